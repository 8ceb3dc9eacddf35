import { describe, expect, it } from "vitest";
import {
  analyzeRr,
  computeBaevsky,
  computeFrequencyDomain,
  computeTimeDomain,
  HrvError,
  RR_ALGORITHM_VERSION,
} from "../src/index.ts";
import { readRr } from "./load.ts";

/** A seeded series around `meanMs` with small respiratory-like variation. */
function series(n: number, meanMs: number, seed = 1): number[] {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  return Array.from({ length: n }, (_, i) => meanMs + 40 * Math.sin(i / 3) + 10 * (rand() - 0.5));
}

describe("analyzeRr", () => {
  it("carries the algorithm version and no issues on a clean 5-minute record", () => {
    const result = analyzeRr(readRr("syn02_sine_noise"));
    expect(result.algorithmVersion).toBe(RR_ALGORITHM_VERSION);
    expect(result.issues).toEqual([]);
    expect(result.raw?.timeDomain.beats).toBe(301);
    expect(result.raw?.frequency).toBeDefined();
  });

  it("has only the spectral issue on a clean 100-interval spot measurement", () => {
    const result = analyzeRr(readRr("welltory_90c4d3e033"));
    expect(result.issues.map((i) => i.code)).toEqual(["too_short_for_frequency"]);
    expect(result.raw?.timeDomain.beats).toBe(100);
  });

  it("returns a too_short issue and no metrics when fewer than 20 intervals remain", () => {
    const result = analyzeRr([800, 810, 790]);
    expect(result.raw).toBeUndefined();
    expect(result.issues).toEqual([{ code: "too_short", intervals: 3, minimum: 20 }]);
  });

  it("drops invalid values with an invalid_values issue and analyses the rest", () => {
    const rr = series(40, 900);
    const result = analyzeRr([Number.NaN, ...rr, -5, 0, Number.POSITIVE_INFINITY, 70000]);
    expect(result.issues).toContainEqual({ code: "invalid_values", count: 5 });
    expect(result.raw?.timeDomain.beats).toBe(40);
    expect(result.raw?.timeDomain.meanRr).toBeCloseTo(analyzeRr(rr).raw?.timeDomain.meanRr ?? 0, 9);
  });

  it("throws HrvError only for a non-array input or invalid options", () => {
    expect(() => analyzeRr(null as unknown as number[])).toThrow(HrvError);
    expect(() => analyzeRr([800], { minIntervals: 2 })).toThrow(HrvError);
    expect(() => analyzeRr([800], { artifacts: { alpha: 0 } })).toThrow(HrvError);
    expect(() => analyzeRr([800], { artifacts: { medianWindow: 2.5 } })).toThrow(HrvError);
    expect(() => analyzeRr([])).not.toThrow();
  });

  it("gives a faster heart rate a shorter mean RR and a higher bpm", () => {
    const slow = analyzeRr(series(120, 1000)).raw?.timeDomain;
    const fast = analyzeRr(series(120, 700)).raw?.timeDomain;
    expect(fast?.meanRr).toBeLessThan(slow?.meanRr ?? 0);
    expect(fast?.bpm).toBeGreaterThan(slow?.bpm ?? 0);
  });

  it("is unchanged by scaling variability around the mean in the indices that must scale", () => {
    const base = series(200, 900, 7);
    const doubled = base.map((x) => 900 + 2 * (x - 900));
    const a = analyzeRr(base).raw?.timeDomain;
    const b = analyzeRr(doubled).raw?.timeDomain;
    expect(b?.sdnn).toBeCloseTo(2 * (a?.sdnn ?? 0), 6);
    expect(b?.rmssd).toBeCloseTo(2 * (a?.rmssd ?? 0), 6);
  });
});

describe("analyzeRr with breaks (runs of a series whose joins were not timed)", () => {
  const rr = readRr("syn02_sine_noise");
  /** The same beats with stretches cut out: the intervals either side of a cut now sit side by side. */
  const cuts = [40, 90, 150, 220];
  const kept = rr.filter((_, i) => !cuts.some((c) => i >= c && i < c + 3));
  const breaks = cuts.map((c, k) => c - 3 * k);

  it("takes no successive difference across a break", () => {
    const joined = analyzeRr(kept).raw?.timeDomain;
    const split = analyzeRr(kept, { breaks }).raw?.timeDomain;
    // By hand: the differences inside each run only.
    let sq = 0;
    let pairs = 0;
    let nn50 = 0;
    for (let i = 1; i < kept.length; i++) {
      if (breaks.includes(i)) continue;
      const d = (kept[i] ?? 0) - (kept[i - 1] ?? 0);
      sq += d * d;
      pairs++;
      if (Math.abs(d) > 50) nn50++;
    }
    expect(split?.pairs).toBe(kept.length - 1 - breaks.length);
    expect(split?.rmssd).toBeCloseTo(Math.sqrt(sq / pairs), 9);
    expect(split?.pnn50Pct).toBeCloseTo((100 * nn50) / pairs, 9);
    expect(joined?.pairs).toBe(kept.length - 1);
    expect(joined?.rmssd).not.toBeCloseTo(split?.rmssd ?? 0, 3);
    // What does not depend on neighbours is the same either way.
    expect(split?.meanRr).toBe(joined?.meanRr);
    expect(split?.sdnn).toBe(joined?.sdnn);
  });

  it("gives the unbroken series' RMSSD where the joins alone would inflate it", () => {
    // A slow sine: neighbours differ little, intervals 15 beats apart a lot.
    const sine = Array.from({ length: 300 }, (_, i) => 800 + 100 * Math.sin(i / 5));
    const cut = sine.filter((_, i) => i % 40 < 25);
    const at = Array.from({ length: 7 }, (_, k) => 25 * (k + 1));
    const whole = analyzeRr(sine).raw?.timeDomain.rmssd ?? 0;
    const withBreaks = analyzeRr(cut, { breaks: at }).raw?.timeDomain.rmssd ?? 0;
    const joined = analyzeRr(cut).corrected?.timeDomain.rmssd ?? analyzeRr(cut).raw?.timeDomain.rmssd ?? 0;
    expect(Math.abs(withBreaks / whole - 1)).toBeLessThan(0.02);
    expect(joined / whole).toBeGreaterThan(1.5);
  });

  it("never merges the intervals either side of a break as one split beat", () => {
    // Two short intervals that add up to one: a spurious beat, unless a break lies between them.
    const steady = Array.from({ length: 120 }, (_, i) => 800 + 10 * Math.sin(i / 2));
    const split = [...steady.slice(0, 60), 400, 400, ...steady.slice(60)];
    const joined = analyzeRr(split).artifacts?.flags ?? [];
    expect(joined.filter((f) => f.type === "extra").map((f) => f.index)).toEqual([60, 61]);
    const broken = analyzeRr(split, { breaks: [61] }).artifacts?.flags ?? [];
    expect(broken.filter((f) => f.type === "extra")).toEqual([]);
  });

  it("keeps breaks on the corrected series and moves a break at a dropped value to the next one", () => {
    const noisy = [...rr];
    noisy[100] = (noisy[100] ?? 0) * 1.6; // an ectopic beat
    const result = analyzeRr(noisy, { breaks: [200] });
    expect(result.corrected?.timeDomain.pairs).toBe(
      result.corrected ? result.corrected.timeDomain.beats - 2 : 0,
    );
    const withInvalid = [...rr.slice(0, 50), -1, ...rr.slice(50)];
    const moved = analyzeRr(withInvalid, { breaks: [50] }).raw?.timeDomain;
    expect(moved?.rmssd).toBeCloseTo(analyzeRr(rr, { breaks: [50] }).raw?.timeDomain.rmssd ?? 0, 9);
  });

  it("ignores breaks out of range and refuses a series with too few pairs", () => {
    const ignored = analyzeRr(rr, { breaks: [0, -3, 1.5, rr.length, Number.NaN] }).raw?.timeDomain;
    expect(ignored?.rmssd).toBe(analyzeRr(rr).raw?.timeDomain.rmssd);
    const every = Array.from({ length: 40 }, (_, i) => i + 1);
    const sparse = analyzeRr(rr.slice(0, 45), { breaks: every });
    expect(sparse.raw).toBeUndefined();
    expect(sparse.issues).toEqual([{ code: "too_few_pairs", pairs: 4, minimum: 19 }]);
  });
});

describe("the building blocks", () => {
  it("throw HrvError when called directly with fewer intervals than they need", () => {
    expect(() => computeTimeDomain([800, 810])).toThrow(HrvError);
    expect(() => computeBaevsky([800, 810, 820, 830, 840, 850, 860])).toThrow(HrvError);
    expect(() => computeFrequencyDomain(new Array(15).fill(800))).toThrow(HrvError);
  });

  it("give finite results at their minimum lengths", () => {
    expect(Number.isFinite(computeTimeDomain([800, 810, 790]).sdsd)).toBe(true);
    expect(computeBaevsky([800, 810, 820, 830, 840, 850, 860, 870]).si).toBeGreaterThan(0);
    const rr = Array.from({ length: 16 }, (_, i) => 800 + 30 * Math.sin(i));
    const f = computeFrequencyDomain(rr);
    expect(Number.isFinite(f.totalPowerMs2)).toBe(true);
  });
});

describe("computeFrequencyDomain on a record too short for any band", () => {
  it("returns an empty spectrum and zero powers instead of bins above 0.5 Hz", () => {
    const f = computeFrequencyDomain(Array.from({ length: 16 }, (_, i) => 300 + 10 * (i % 2)));
    expect(f.spectrum.frequencyHz).toEqual([]);
    expect(f.totalPowerMs2).toBe(0);
    expect(f.lfHf).toBeUndefined();
  });
});
