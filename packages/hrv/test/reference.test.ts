// Agreement with the reference implementations' values in expected-public.json: time domain to 1e-6
// relative (NeuroKit2 0.2.12 and the "basic" block), Baevsky exact (to the printed digits).
import { describe, expect, it } from "vitest";
import { analyzeRr } from "../src/index.ts";
import { type Json, readExpected, readRr } from "./load.ts";

const expected = readExpected();
const records = Object.entries(expected.rr_series as Record<string, Json>);

function close(actual: number | undefined, want: number | null, rel: number): void {
  if (want === null) {
    expect(actual).toBeUndefined();
    return;
  }
  expect(actual).toBeTypeOf("number");
  expect(Math.abs((actual as number) - want)).toBeLessThanOrEqual(rel * Math.max(Math.abs(want), 1e-9));
}

describe.each(records)("analyzeRr on %s", (name, ref) => {
  const raw = analyzeRr(readRr(name)).raw;
  if (!raw) throw new Error(`no metrics for ${name}`);
  const t = raw.timeDomain;
  const b = raw.baevsky;

  it("matches NeuroKit2's time domain to 1e-6 relative", () => {
    const nk = ref.neurokit2.time;
    const n = t.beats;
    close(t.meanRr, nk.MeanNN, 1e-6);
    close(t.sdnn, nk.SDNN, 1e-6);
    close(t.rmssd, nk.RMSSD, 1e-6);
    close(t.sdsd, nk.SDSD, 1e-6);
    close(t.cvPct / 100, nk.CVNN, 1e-6);
    close(t.median, nk.MedianNN, 1e-6);
    close(t.min, nk.MinNN, 1e-6);
    close(t.max, nk.MaxNN, 1e-6);
    close(t.pnn50OverNPct, nk.pNN50, 1e-6);
    // NeuroKit2 divides pNN20 by N; ours is over N−1 differences.
    close((t.pnn20Pct * (n - 1)) / n, nk.pNN20, 1e-6);
  });

  it("matches the basic block and the app-convention values to 1e-6 relative", () => {
    const basic = ref.basic;
    expect(t.beats).toBe(basic.n_intervals);
    expect(t.nn50).toBe(basic.NN50);
    close(t.hrFromMeanRrBpm, basic.HR_from_MeanNN_bpm, 1e-6);
    close(t.hrBpm, basic.HR_mean_of_instantaneous_bpm, 1e-6);
    close(t.pnn50Pct, basic.pNN50_over_N_minus_1_pct, 1e-6);
    close(t.range, basic.range_ms, 1e-6);
    const w = ref.welltory_style;
    expect(t.bpm).toBe(w.bpm);
    close(t.meanRr, w.meanrr, 1e-6);
    close(t.sdnn, w.sdnn, 1e-6);
    close(t.rmssd, w.rmssd, 1e-6);
    close(t.pnn50Pct, w.pnn50, 1e-6);
  });

  it("matches Baevsky's indices exactly (classic and app conventions)", () => {
    const classic = ref.baevsky.classic_50ms;
    const app = ref.baevsky.welltory_style;
    expect(b.moS).toBe(classic.Mo_s);
    expect(b.modalBinsTied).toBe(classic.modal_bins_tied);
    close(b.amoExactPct, classic.AMo_pct, 1e-8);
    close(b.mxdmnFullS, classic.MxDMn_s, 1e-8);
    close(b.classic.si, classic.SI, 1e-8);
    close(b.classic.ivr, classic.IVR, 1e-8);
    close(b.classic.vpr, classic.VPR, 1e-8);
    close(b.papr, classic.PAPR, 1e-8);
    expect(b.moS).toBe(app.Mo_s);
    close(b.mxdmnTrimmedS, app.MxDMn_s, 1e-8);
    close(b.si, app.SI, 1e-8);
    close(b.ivr, app.IVR, 1e-8);
    close(b.vpr, app.VPR, 1e-8);
    close(b.papr, app.PAPR, 1e-8);
  });
});

describe("analyzeRr on a constant series", () => {
  it("reports zero variability and no stress index, with a zero_range issue", () => {
    const result = analyzeRr(readRr("syn05_constant_800"));
    expect(result.raw?.timeDomain.sdnn).toBe(0);
    expect(result.raw?.timeDomain.rmssd).toBe(0);
    expect(result.raw?.baevsky.mxdmnS).toBe(0);
    expect(result.raw?.baevsky.si).toBeUndefined();
    expect(result.issues).toContainEqual({ code: "zero_range", series: "raw" });
  });
});
