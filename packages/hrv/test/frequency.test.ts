// Frequency domain against expected-public.json ("neurokit2.freq_welch_4hz_ms2"): LF, HF and LF/HF
// within 2 % (the implementation follows the published method, so in practice ≪ 0.01 %), plus the
// analytic sine test and the degenerate and short cases.
import { describe, expect, it } from "vitest";
import { analyzeRr, computeFrequencyDomain, MIN_FREQUENCY_INTERVALS } from "../src/index.ts";
import { type Json, readExpected, readRr } from "./load.ts";

const expected = readExpected();
const records = Object.entries(expected.rr_series as Record<string, Json>).filter(
  ([name]) => name !== "syn05_constant_800",
);

function within(actual: number | undefined, want: number, rel: number): void {
  expect(actual).toBeTypeOf("number");
  expect(Math.abs((actual as number) / want - 1)).toBeLessThanOrEqual(rel);
}

describe.each(records)("computeFrequencyDomain on %s", (name, ref) => {
  const f = analyzeRr(readRr(name)).raw?.frequency;
  const nk = ref.neurokit2.freq_welch_4hz_ms2;

  it("agrees with the reference LF, HF and LF/HF within 2 %", () => {
    within(f?.lfMs2, nk.LF, 0.02);
    within(f?.hfMs2, nk.HF, 0.02);
    within(f?.lfHf, nk.LFHF, 0.02);
  });

  it("agrees with the reference VLF within 2 % and sums the bands into total power", () => {
    within(f?.vlfMs2, nk.VLF, 0.02);
    expect(f?.totalPowerMs2).toBeCloseTo((f?.vlfMs2 ?? 0) + (f?.lfMs2 ?? 0) + (f?.hfMs2 ?? 0), 9);
    expect((f?.lfNu ?? 0) + (f?.hfNu ?? 0)).toBeCloseTo(100, 9);
  });
});

describe("computeFrequencyDomain", () => {
  it("reads the calibrated sines of syn01 as LF ≈ 1250 ms² and HF ≈ 420–450 ms²", () => {
    const f = computeFrequencyDomain(readRr("syn01_sine_clean"));
    within(f.lfMs2, 1250, 0.02);
    expect(f.hfMs2).toBeGreaterThan(420);
    expect(f.hfMs2).toBeLessThan(450);
  });

  it("returns a spectrum from f_min to 0.5 Hz whose LF part peaks at 0.1 Hz", () => {
    const { frequencyHz, psdMs2PerHz } = computeFrequencyDomain(readRr("syn01_sine_clean")).spectrum;
    expect(frequencyHz).toHaveLength(psdMs2PerHz.length);
    expect(frequencyHz[0]).toBeGreaterThan(0.01);
    expect(frequencyHz.at(-1)).toBeLessThanOrEqual(0.5);
    const lf = frequencyHz
      .map((f, i) => [f, psdMs2PerHz[i] ?? 0] as const)
      .filter(([f]) => f >= 0.04 && f < 0.15);
    const peak = lf.reduce((a, b) => (b[1] > a[1] ? b : a));
    expect(peak[0]).toBeCloseTo(0.1, 2);
  });
});

/** RR(t) = mean + amp · sin(2π f t), t = onset of the interval, `n` intervals (rounded to 1 ms). */
function sineSeries(n: number, meanMs: number, ampMs: number, hz: number): number[] {
  const rr: number[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    const x = Math.round(meanMs + ampMs * Math.sin(2 * Math.PI * hz * t));
    rr.push(x);
    t += x / 1000;
  }
  return rr;
}

describe("computeFrequencyDomain on seeded sines", () => {
  it.each([10, 20, 40])("puts a %s-ms respiratory (0.25 Hz) modulation into HF as about A²/2", (amp) => {
    const f = computeFrequencyDomain(sineSeries(330, 900, amp, 0.25));
    within(f.hfMs2, (amp * amp) / 2, 0.1);
    expect(f.lfMs2).toBeLessThan(0.05 * f.hfMs2);
  });

  it.each([10, 20, 40])("puts a %s-ms baroreflex (0.1 Hz) modulation into LF as about A²/2", (amp) => {
    const f = computeFrequencyDomain(sineSeries(330, 900, amp, 0.1));
    within(f.lfMs2, (amp * amp) / 2, 0.1);
    expect(f.hfMs2).toBeLessThan(0.05 * f.lfMs2);
  });

  it("raises LF/HF when the LF share grows", () => {
    const ratios = [10, 20, 30].map((lf) => {
      const a = sineSeries(330, 900, lf, 0.1);
      const b = sineSeries(330, 900, 20, 0.3);
      return computeFrequencyDomain(a.map((x, i) => x + (b[i] ?? 900) - 900)).lfHf ?? 0;
    });
    expect(ratios[0]).toBeLessThan(ratios[1] ?? 0);
    expect(ratios[1]).toBeLessThan(ratios[2] ?? 0);
  });
});

describe("analyzeRr frequency domain", () => {
  it("reports zero band powers, no ratios and no_spectral_power on a constant series", () => {
    const result = analyzeRr(readRr("syn05_constant_800"));
    const f = result.raw?.frequency;
    expect([f?.vlfMs2, f?.lfMs2, f?.hfMs2, f?.totalPowerMs2]).toEqual([0, 0, 0, 0]);
    expect(f?.lfHf).toBeUndefined();
    expect(f?.lfNu).toBeUndefined();
    expect(result.issues).toContainEqual({ code: "no_spectral_power", series: "raw", band: "hf" });
  });

  it("is absent with too_short_for_frequency when the record has at most 280 intervals", () => {
    const result = analyzeRr(readRr("welltory_90c4d3e033"));
    expect(result.raw?.frequency).toBeUndefined();
    expect(result.issues).toContainEqual({
      code: "too_short_for_frequency",
      series: "raw",
      intervals: 100,
      minimum: MIN_FREQUENCY_INTERVALS,
    });
    const rr = readRr("syn01_sine_clean");
    expect(analyzeRr(rr.slice(0, 280)).raw?.frequency).toBeUndefined();
    expect(analyzeRr(rr.slice(0, 281)).raw?.frequency).toBeDefined();
  });

  it("computes the corrected series' spectrum too when artifacts were corrected", () => {
    const result = analyzeRr(readRr("syn03_ectopic"));
    const raw = result.raw?.frequency;
    const corrected = result.corrected?.frequency;
    // the ectopic beats add broadband power, mostly in HF; correction removes it
    expect(corrected?.hfMs2).toBeLessThan(0.5 * (raw?.hfMs2 ?? 0));
    const clean = computeFrequencyDomain(readRr("syn02_sine_noise"));
    within(corrected?.lfMs2, clean.lfMs2, 0.1);
  });
});
