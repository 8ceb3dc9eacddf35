import { sourceRank } from "@tonus/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addDays,
  bucketize,
  bucketStart,
  chunkRange,
  type DailyRow,
  pickSources,
} from "./dashboard.buckets.ts";

const row = (metric: string, day: string, source: string, values: number[]): DailyRow => ({
  metric,
  day,
  source,
  n: values.length,
  sum: values.reduce((a, b) => a + b, 0),
  min: Math.min(...values),
  max: Math.max(...values),
  lastAtMs: Date.parse(`${day}T12:00:00Z`),
  lastValue: values[values.length - 1] as number,
});

describe("bucketStart", () => {
  it("starts weeks on Monday for week_start 1 and on Sunday for 0 (spec §9)", () => {
    // 2026-11-25 is a Wednesday.
    expect(bucketStart("2026-11-25", "week", 1)).toBe("2026-11-23");
    expect(bucketStart("2026-11-25", "week", 0)).toBe("2026-11-22");
    expect(bucketStart("2026-11-22", "week", 1)).toBe("2026-11-16");
    expect(bucketStart("2026-11-22", "week", 0)).toBe("2026-11-22");
    expect(bucketStart("2026-11-25", "month", 0)).toBe("2026-11-01");
    expect(bucketStart("2026-11-25", "day", 0)).toBe("2026-11-25");
  });

  it("counts months across year ends and days across leap days", () => {
    const months = [0, 1, 2, 3].map((i) => chunkRange("2027-12-15", "2028-03-02", "month", 0, i, 1));
    expect(months.map((c) => c && [c.from, c.to])).toEqual([
      ["2027-12-15", "2027-12-31"],
      ["2028-01-01", "2028-01-31"],
      ["2028-02-01", "2028-02-29"],
      ["2028-03-01", "2028-03-02"],
    ]);
    expect(months[0]?.chunks).toBe(4);
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(chunkRange("2026-03-07", "2026-03-10", "day", 0, 0, 400)?.chunks).toBe(1);
  });
});

describe("chunkRange", () => {
  it("splits a range into chunks whose days join up exactly", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 0, max: 2000 }),
        fc.constantFrom("day" as const, "week" as const, "month" as const),
        fc.constantFrom(0 as const, 1 as const),
        fc.integer({ min: 1, max: 50 }),
        (offset, length, period, weekStart, size) => {
          const from = addDays("2020-01-01", offset);
          const to = addDays(from, length);
          const first = chunkRange(from, to, period, weekStart, 0, size);
          if (!first) throw new Error("no first chunk");
          let expected = from;
          for (let i = 0; i < first.chunks; i++) {
            const c = chunkRange(from, to, period, weekStart, i, size);
            expect(c?.from).toBe(expected);
            expected = addDays(c?.to as string, 1);
          }
          expect(expected).toBe(addDays(to, 1));
          expect(chunkRange(from, to, period, weekStart, first.chunks, size)).toBeNull();
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("pickSources", () => {
  const defaults = ["manual", "garmin", "apple_health"];

  it("keeps the best-ranked source per metric and day, the person's own order first", () => {
    const rows = [
      row("steps", "2026-11-01", "apple_health.iphone", [5000]),
      row("steps", "2026-11-01", "garmin", [7000]),
      row("steps", "2026-11-02", "apple_health.iphone", [4000]),
      row("weight", "2026-11-01", "withings", [80]),
    ];
    const byDefault = pickSources(rows, (_m, s) => sourceRank(s, [], defaults));
    expect(byDefault.map((r) => `${r.metric}:${r.day}:${r.source}`).sort()).toEqual([
      "steps:2026-11-01:garmin",
      "steps:2026-11-02:apple_health.iphone",
      "weight:2026-11-01:withings",
    ]);
    const mine = pickSources(rows, (_m, s) => sourceRank(s, ["apple_health"], defaults));
    expect(mine.find((r) => r.day === "2026-11-01" && r.metric === "steps")?.source).toBe(
      "apple_health.iphone",
    );
  });

  it("ranks sub-sources one of the person's patterns covers by the default order among themselves", () => {
    const order = ["garmin", "apple_health.watch", "apple_health.phone", "apple_health"];
    const rows = [
      row("steps", "2026-11-01", "apple_health.phone", [9000]),
      row("steps", "2026-11-01", "apple_health.watch", [7000]),
      row("steps", "2026-11-01", "garmin", [6000]),
    ];
    expect(pickSources(rows, (_m, s) => sourceRank(s, [], order))[0]?.source).toBe("garmin");
    const mine = pickSources(rows, (_m, s) => sourceRank(s, ["apple_health"], order));
    expect(mine[0]?.source).toBe("apple_health.watch");
    const phoneFirst = pickSources(rows, (_m, s) => sourceRank(s, ["apple_health.phone"], order));
    expect(phoneFirst[0]?.source).toBe("apple_health.phone");
  });

  it("ranks unknown sources after the known ones and breaks ties by name", () => {
    expect(sourceRank("zeo", [], defaults)).toBe(3);
    const rows = [row("sleep", "2026-11-01", "zz", [1]), row("sleep", "2026-11-01", "aa", [2])];
    expect(pickSources(rows, (_m, s) => sourceRank(s, [], defaults))[0]?.source).toBe("aa");
  });
});

describe("bucketize", () => {
  it("gives summed metrics the mean per day and the total, averaged ones the sample mean and extremes", () => {
    const steps = [row("steps", "2026-11-23", "x", [4000, 2000]), row("steps", "2026-11-24", "x", [9000])];
    expect(bucketize("steps", steps, "week", 1)).toEqual([
      { t: "2026-11-23", value: 7500, min: 6000, max: 9000, total: 15000, days: 2 },
    ]);
    const hr = [
      row("heart_rate", "2026-11-23", "x", [60, 70, 80]),
      row("heart_rate", "2026-11-24", "x", [90]),
    ];
    expect(bucketize("heart_rate", hr, "week", 1)).toEqual([
      { t: "2026-11-23", value: 75, min: 60, max: 90, total: null, days: 2 },
    ]);
  });

  it("takes the last day's last value for body weight", () => {
    const weight = [row("weight", "2026-11-02", "x", [81, 80.5]), row("weight", "2026-11-20", "x", [79])];
    expect(bucketize("weight", weight, "month", 0)).toEqual([
      { t: "2026-11-01", value: 79, min: 79, max: 80.5, total: null, days: 2 },
    ]);
  });
});
