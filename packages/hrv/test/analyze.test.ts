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
