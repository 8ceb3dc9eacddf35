import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addToBaselineSeries,
  type BaselineEntry,
  baselineSeriesOf,
  computeBaseline,
  computeBaselineOf,
  computeScores,
  type ScoreBaseline,
} from "../src/scores/index.ts";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 31, 7);

const rmssd = fc.double({ min: 2, max: 300, noNaN: true });
const si = fc.double({ min: 5, max: 3000, noNaN: true });
const hr = fc.double({ min: 35, max: 190, noNaN: true });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

/** Histories of 0–40 measurements over the last 60 days. */
const history: fc.Arbitrary<BaselineEntry[]> = fc.array(
  fc.record({
    timeMs: fc.integer({ min: NOW - 60 * DAY, max: NOW }),
    rmssdMs: rmssd,
    stressIndex: maybe(si),
    hrBpm: maybe(hr),
  }),
  { maxLength: 40 },
);
const baseline: fc.Arbitrary<ScoreBaseline | undefined> = maybe(history.map((h) => computeBaseline(h, NOW)));

const KEYS = ["stress", "energy", "performance"] as const;

describe("computeScores", () => {
  it("keeps every score within 0–100", () => {
    fc.assert(
      fc.property(rmssd, maybe(si), maybe(hr), baseline, (r, s, h, b) => {
        const scores = computeScores({ rmssdMs: r, stressIndex: s, hrBpm: h }, b);
        for (const k of KEYS) {
          const v = scores[k];
          expect(v).toBeDefined();
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(100);
        }
      }),
    );
  });

  it("lowers stress and raises energy and performance when rMSSD rises", () => {
    fc.assert(
      fc.property(
        rmssd,
        fc.double({ min: 1.001, max: 3, noNaN: true }),
        maybe(si),
        maybe(hr),
        baseline,
        (r, k, s, h, b) => {
          const lo = computeScores({ rmssdMs: r, stressIndex: s, hrBpm: h }, b);
          const hi = computeScores({ rmssdMs: r * k, stressIndex: s, hrBpm: h }, b);
          expect(hi.stress).toBeLessThanOrEqual(lo.stress ?? Number.NaN);
          expect(hi.energy).toBeGreaterThanOrEqual(lo.energy ?? Number.NaN);
          expect(hi.performance).toBeGreaterThanOrEqual(lo.performance ?? Number.NaN);
        },
      ),
    );
  });

  it("raises stress and lowers energy and performance when the stress index rises", () => {
    fc.assert(
      fc.property(
        rmssd,
        si,
        fc.double({ min: 1.001, max: 3, noNaN: true }),
        maybe(hr),
        baseline,
        (r, s, k, h, b) => {
          const lo = computeScores({ rmssdMs: r, stressIndex: s, hrBpm: h }, b);
          const hi = computeScores({ rmssdMs: r, stressIndex: s * k, hrBpm: h }, b);
          expect(hi.stress).toBeGreaterThanOrEqual(lo.stress ?? Number.NaN);
          expect(hi.energy).toBeLessThanOrEqual(lo.energy ?? Number.NaN);
          expect(hi.performance).toBeLessThanOrEqual(lo.performance ?? Number.NaN);
        },
      ),
    );
  });

  it("raises stress and lowers energy and performance when heart rate rises", () => {
    fc.assert(
      fc.property(
        rmssd,
        maybe(si),
        hr,
        fc.double({ min: 0.1, max: 30, noNaN: true }),
        baseline,
        (r, s, h, d, b) => {
          const lo = computeScores({ rmssdMs: r, stressIndex: s, hrBpm: h }, b);
          const hi = computeScores({ rmssdMs: r, stressIndex: s, hrBpm: h + d }, b);
          expect(hi.stress).toBeGreaterThanOrEqual(lo.stress ?? Number.NaN);
          expect(hi.energy).toBeLessThanOrEqual(lo.energy ?? Number.NaN);
          expect(hi.performance).toBeLessThanOrEqual(lo.performance ?? Number.NaN);
        },
      ),
    );
  });

  it("moves by less than 0.01 points when an input changes by one part in a million", () => {
    fc.assert(
      fc.property(rmssd, si, hr, baseline, fc.integer({ min: 0, max: 2 }), (r, s, h, b, which) => {
        const e = 1 + 1e-6;
        const base = computeScores({ rmssdMs: r, stressIndex: s, hrBpm: h }, b);
        const nudged = computeScores(
          {
            rmssdMs: which === 0 ? r * e : r,
            stressIndex: which === 1 ? s * e : s,
            hrBpm: which === 2 ? h * e : h,
          },
          b,
        );
        for (const k of KEYS) expect(Math.abs((nudged[k] ?? 0) - (base[k] ?? 0))).toBeLessThan(0.01);
      }),
    );
  });

  it("scores a typical resting measurement in the middle and extremes near the ends", () => {
    const typical = computeScores({ rmssdMs: 42, stressIndex: 150, hrBpm: 72 });
    for (const k of KEYS) expect(typical[k]).toBeCloseTo(50, 5);
    const strained = computeScores({ rmssdMs: 8, stressIndex: 900, hrBpm: 100 });
    expect(strained.stress).toBeGreaterThan(85);
    expect(strained.energy).toBeLessThan(15);
    const rested = computeScores({ rmssdMs: 90, stressIndex: 40, hrBpm: 55 });
    expect(rested.stress).toBeLessThan(25);
    expect(rested.energy).toBeGreaterThan(75);
  });

  it("judges the same rMSSD against the person's own normal range", () => {
    const days = (lnMean: number) =>
      Array.from({ length: 30 }, (_, i) => ({
        timeMs: NOW - (i + 1) * DAY,
        rmssdMs: Math.exp(lnMean + 0.2 * Math.sin(i)),
        stressIndex: 120,
        hrBpm: 70,
      }));
    const input = { rmssdMs: 40, stressIndex: 120, hrBpm: 70 };
    const lowPerson = computeScores(input, computeBaseline(days(Math.log(20)), NOW));
    const highPerson = computeScores(input, computeBaseline(days(Math.log(80)), NOW));
    expect(lowPerson.personalWeight).toBe(1);
    expect(lowPerson.energy).toBeGreaterThan(80);
    expect(highPerson.energy).toBeLessThan(20);
    expect(lowPerson.stress).toBeLessThan(highPerson.stress ?? 0);
  });

  it("lets a low 7-day trend pull performance down more than energy", () => {
    const history: BaselineEntry[] = Array.from({ length: 40 }, (_, i) => ({
      timeMs: NOW - (i + 1) * DAY,
      // Usual ln rMSSD ≈ ln 50, but the last 6 days were low (≈ 30 ms).
      rmssdMs: i < 6 ? 30 : 50 * Math.exp(0.15 * Math.sin(i)),
    }));
    const s = computeScores({ rmssdMs: 50 }, computeBaseline(history, NOW));
    expect(s.performance).toBeLessThan((s.energy ?? 0) - 10);
  });

  it("blends population and personal references while the history is short", () => {
    const entries = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ timeMs: NOW - (i + 1) * DAY, rmssdMs: 30 }));
    expect(
      computeScores({ rmssdMs: 30 }, computeBaseline(entries(3), NOW)).issues.map((i) => i.code),
    ).toContain("no_baseline");
    const partial = computeScores({ rmssdMs: 30 }, computeBaseline(entries(7), NOW));
    expect(partial.personalWeight).toBeCloseTo(0.5, 10);
    expect(partial.issues.map((i) => i.code)).toContain("partial_baseline");
  });

  it("returns no scores and invalid_rmssd for unusable rMSSD, without throwing", () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const s = computeScores({ rmssdMs: bad, stressIndex: 100 });
      expect(s.stress).toBeUndefined();
      expect(s.energy).toBeUndefined();
      expect(s.performance).toBeUndefined();
      expect(s.issues[0]).toEqual({ code: "invalid_rmssd" });
    }
  });

  it("works without SI (constant RR) and says so", () => {
    const s = computeScores({ rmssdMs: 42, stressIndex: Number.NaN, hrBpm: 72 });
    expect(s.issues.map((i) => i.code)).toContain("missing_stress_index");
    expect(s.stress).toBeCloseTo(50, 5);
  });
});

describe("computeBaseline", () => {
  it("summarises ln rMSSD over 60 and 7 days and ignores old, future and invalid entries", () => {
    const b = computeBaseline(
      [
        { timeMs: NOW - 1 * DAY, rmssdMs: Math.exp(3), stressIndex: Math.exp(5), hrBpm: 60 },
        { timeMs: NOW - 3 * DAY, rmssdMs: Math.exp(4), hrBpm: 70 },
        { timeMs: NOW - 30 * DAY, rmssdMs: Math.exp(5) },
        { timeMs: NOW - 61 * DAY, rmssdMs: 1000 },
        { timeMs: NOW + DAY, rmssdMs: 1000 },
        { timeMs: NOW - DAY, rmssdMs: -3, stressIndex: 0 },
        { timeMs: Number.NaN, rmssdMs: 40 },
      ],
      NOW,
    );
    expect(b.lnRmssd60?.count).toBe(3);
    expect(b.lnRmssd60?.mean).toBeCloseTo(4, 12);
    expect(b.lnRmssd60?.sd).toBeCloseTo(1, 12);
    expect(b.lnRmssd7).toMatchObject({ count: 2 });
    expect(b.lnRmssd7?.mean).toBeCloseTo(3.5, 12);
    expect(b.lnStressIndex60).toEqual({ mean: 5, sd: 0, count: 1 });
    expect(b.hr60?.mean).toBe(65);
  });

  it("returns an empty baseline for no history", () => {
    expect(computeBaseline([], NOW)).toEqual({});
  });
});

/** The baseline as its definition reads, one array per quantity: what the faster forms must equal. */
function referenceBaseline(history: readonly BaselineEntry[], nowMs: number): ScoreBaseline {
  const ok = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v) && v > 0;
  const lists = {
    lnRmssd60: [] as number[],
    lnRmssd7: [] as number[],
    lnStressIndex60: [] as number[],
    hr60: [] as number[],
  };
  for (const e of history) {
    const age = nowMs - e.timeMs;
    if (!Number.isFinite(age) || age < 0 || age > 60 * DAY) continue;
    if (ok(e.rmssdMs)) {
      lists.lnRmssd60.push(Math.log(e.rmssdMs));
      if (age <= 7 * DAY) lists.lnRmssd7.push(Math.log(e.rmssdMs));
    }
    if (ok(e.stressIndex)) lists.lnStressIndex60.push(Math.log(e.stressIndex));
    if (ok(e.hrBpm)) lists.hr60.push(e.hrBpm);
  }
  const out: ScoreBaseline = {};
  for (const [key, values] of Object.entries(lists)) {
    if (values.length === 0) continue;
    let sum = 0;
    for (const v of values) sum += v;
    const mean = sum / values.length;
    let ss = 0;
    for (const v of values) ss += (v - mean) ** 2;
    out[key as keyof ScoreBaseline] = {
      mean,
      sd: values.length > 1 ? Math.sqrt(ss / (values.length - 1)) : 0,
      count: values.length,
    };
  }
  return out;
}

/** Histories with dirty entries too: old, future, non-finite times, non-positive or missing values. */
const dirtyHistory: fc.Arbitrary<BaselineEntry[]> = fc.array(
  fc.record({
    timeMs: fc.oneof(
      fc.integer({ min: NOW - 70 * DAY, max: NOW + DAY }),
      fc.constantFrom(NOW, NOW - 7 * DAY, NOW - 60 * DAY, Number.NaN),
    ),
    rmssdMs: fc.oneof(rmssd, fc.constantFrom(0, -3, Number.NaN, Number.POSITIVE_INFINITY)),
    stressIndex: maybe(fc.oneof(si, fc.constant(0))),
    hrBpm: maybe(hr),
  }),
  { maxLength: 60 },
);

describe("computeBaselineOf", () => {
  it("gives computeBaseline's numbers, bit for bit, as the definition reads", () => {
    fc.assert(
      fc.property(dirtyHistory, (h) => {
        expect(computeBaseline(h, NOW)).toStrictEqual(referenceBaseline(h, NOW));
      }),
    );
  });

  it("gives for a window of a series kept by time what computeBaseline gives for it newest first", () => {
    fc.assert(
      fc.property(dirtyHistory, fc.nat(), fc.nat(), (h, a, b) => {
        if (h.some((e) => Number.isNaN(e.timeMs))) return; // NaN has no place in an order
        const series = baselineSeriesOf([]);
        for (const e of h) addToBaselineSeries(series, e);
        // Ascending by time, as inserted (equal times in the order they came).
        const sorted = h
          .map((e, i) => ({ e, i }))
          .sort((x, y) => x.e.timeMs - y.e.timeMs || x.i - y.i)
          .map((x) => x.e);
        const from = h.length === 0 ? 0 : a % (h.length + 1);
        const to = from + (h.length === 0 ? 0 : b % (h.length - from + 1));
        expect(computeBaselineOf(series, from, to, NOW)).toStrictEqual(
          referenceBaseline(sorted.slice(from, to).reverse(), NOW),
        );
      }),
    );
  });
});
