import type { BloodPressureRecord } from "@tonus/importers";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import type { Db } from "../../db/client.ts";
import type { NewDomainEvent } from "../../lib/events.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { SHORT_RR } from "../../test/rr-fixtures.ts";
import { createTestUser } from "../../test/users.ts";
import { splitAndAnalyse } from "./imports.values.ts";
import { writeSlowRecords } from "./imports.writer.ts";

describe.each(BACKENDS)("a batch's RR series and readings on %s", (backend) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => resetDatabase(app.ctx.database));

  it("emits the batch's events at once, the readings' before the measurements', as each module made them", async () => {
    const user = await createTestUser(app.ctx.database);
    const start = Date.UTC(2026, 2, 1, 7);
    const reading = (i: number): BloodPressureRecord => ({
      kind: "bp",
      at: start + i * 3_600_000,
      systolicMmHg: 120 + i,
      diastolicMmHg: 80,
      source: "apple_health",
      clientId: `bp-${i}`,
    });
    const series = (i: number) =>
      splitAndAnalyse({
        kind: "rr",
        startedAt: start + i * 3_600_000 + 60_000,
        rrMs: SHORT_RR,
        source: "apple_health",
        clientId: `rr-${i}`,
      });
    const calls: NewDomainEvent[][] = [];
    const events = {
      ...app.ctx.services.events,
      emitEvents: async (tx: Db, list: readonly NewDomainEvent[]) => {
        calls.push([...list]);
        await app.ctx.services.events.emitEvents(tx, list);
      },
    };
    const ctx = { services: { ...app.ctx.services, events } };
    const out = await app.ctx.database.db.transaction((tx) =>
      writeSlowRecords(
        ctx,
        tx as unknown as Db,
        user.userId,
        [series(0), reading(0), series(1), reading(1)],
        "UTC",
      ),
    );
    expect(out).toMatchObject({ measurements: 2, bpReadings: 2, rejected: 0 });
    expect(calls.map((list) => list.map((e) => e.type))).toEqual([
      ["bp.reading_added", "bp.reading_added", "measurement.created", "measurement.created"],
    ]);
  });
});
