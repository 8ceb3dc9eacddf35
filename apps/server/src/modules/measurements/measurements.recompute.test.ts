import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BP_WINDOW_MINUTES } from "./measurements.compute.ts";
import { type BpChange, touchedRows } from "./measurements.recompute.ts";
import type { NearMeasurement } from "./measurements.repo.ts";

const RUNS = process.env.TONUS_HEAVY ? 2000 : 200;
const WINDOW = BP_WINDOW_MINUTES * 60_000;
const T0 = Date.UTC(2026, 10, 20, 8);

/** The rule as the subscriber states it, change by change (what `touchedRows` must answer, faster). */
function touchedByRule(changes: readonly BpChange[], row: NearMeasurement): boolean {
  return changes.some((c) => {
    const linked = c.readingId !== null && row.bpReadingId === c.readingId;
    if (c.added && linked) return false;
    const at = row.startedAt.getTime();
    return linked || c.times.some((t) => Math.abs(at - t.getTime()) <= WINDOW);
  });
}

describe("the measurements a blood-pressure change touches", () => {
  it("are those within 30 minutes of a reading's old or new time, or computed with a changed one", () => {
    const reading = fc.constantFrom("r1", "r2", "r3");
    // Minutes around T0, so that windows overlap, touch at their edges and miss.
    const time = fc.integer({ min: -120, max: 120 }).map((m) => new Date(T0 + m * 60_000));
    const change = fc.record({
      added: fc.boolean(),
      readingId: fc.option(reading, { nil: null }),
      times: fc.array(time, { maxLength: 2 }),
    });
    const row = fc.record({
      id: fc.uuid(),
      startedAt: fc.oneof(
        time,
        time.map((d) => new Date(d.getTime() + 1)),
      ),
      bpReadingId: fc.option(reading, { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(change, { maxLength: 8 }), fc.array(row, { maxLength: 8 }), (changes, rows) => {
        expect(touchedRows(changes, rows)).toEqual(rows.filter((r) => touchedByRule(changes, r)));
      }),
      { numRuns: RUNS },
    );
  });

  it("leaves a measurement computed with a new reading alone, and recomputes it when that reading changes", () => {
    const row: NearMeasurement = { id: "m", startedAt: new Date(T0), bpReadingId: "r1" };
    const at = [new Date(T0 + 10 * 60_000)];
    expect(touchedRows([{ added: true, readingId: "r1", times: at }], [row])).toEqual([]);
    expect(touchedRows([{ added: false, readingId: "r1", times: at }], [row])).toEqual([row]);
    // Another new reading nearer than the one it was computed with.
    expect(touchedRows([{ added: true, readingId: "r2", times: at }], [row])).toEqual([row]);
    // Linked, its reading moved far away: still recomputed (it must let go of the reading).
    const far = [new Date(T0 + 600 * 60_000)];
    expect(touchedRows([{ added: false, readingId: "r1", times: far }], [row])).toEqual([row]);
    expect(touchedRows([{ added: true, readingId: "r2", times: far }], [row])).toEqual([]);
  });
});
