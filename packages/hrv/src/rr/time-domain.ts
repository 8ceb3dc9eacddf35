import { HrvError } from "./issues.ts";
import { mean, medianSorted, sd } from "./stats.ts";

/**
 * Time-domain HRV indices of one RR series (Task Force 1996; DEFINITIONS.md §2). All durations in ms.
 *
 * Where the app the spec describes (Welltory) uses a convention, that value is the product's
 * (`bpm`, `pnn50Pct` over N−1); the Task Force / NeuroKit2 variants are kept alongside.
 */
export interface TimeDomain {
  /** Number of RR intervals N (the spec's "total beats": one interval per heartbeat). */
  beats: number;
  /** Heart rate, bpm, as the app exports it: floor(mean(60000 / RRᵢ)). */
  bpm: number;
  /** Mean instantaneous heart rate mean(60000 / RRᵢ), bpm, unrounded. */
  hrBpm: number;
  /** 60000 / meanRr, bpm (the Task Force's "HR from mean NN"). */
  hrFromMeanRrBpm: number;
  /** Mean RR (MeanNN), ms. */
  meanRr: number;
  /** Median RR, ms. */
  median: number;
  /** Shortest and longest RR, ms. */
  min: number;
  max: number;
  /** max − min, ms. */
  range: number;
  /** SDNN (the spec's STDRR): sample SD of RR, denominator N−1, ms. */
  sdnn: number;
  /**
   * Successive differences the indices below are taken over: N−1, less one for each break (an interval
   * that does not follow the one before it, see `computeTimeDomain`).
   */
  pairs: number;
  /** RMSSD: sqrt(mean of the squared successive differences), ms. */
  rmssd: number;
  /** SDSD: sample SD (denominator pairs − 1) of the successive differences, ms (NeuroKit2's convention). */
  sdsd: number;
  /** Number of successive differences with |Δ| > 50 ms (strictly). */
  nn50: number;
  /** 100 · NN50 / pairs, % — the product's and the app's pNN50 (share of differences). */
  pnn50Pct: number;
  /** 100 · NN50 / N, % — NeuroKit2's / Task Force's wording, kept for comparison. */
  pnn50OverNPct: number;
  /** Number of |Δ| > 20 ms and 100 · NN20 / pairs, % (Mietus et al. 2002). */
  nn20: number;
  pnn20Pct: number;
  /** Coefficient of variation 100 · SDNN / meanRr, %. */
  cvPct: number;
}

/**
 * Computes {@link TimeDomain} for `rr` (ms, at least 3 positive finite intervals; the caller checks
 * length and validity and reports issues; fewer than 3 throws {@link HrvError}).
 *
 * `breaks` (optional, one flag per interval): a non-zero flag at i says interval i does not follow
 * interval i−1 — beats between them were not timed (camera frames lost, a finger lifted) — so no
 * successive difference is taken across it; the indices built on differences (RMSSD, SDSD, NN50,
 * NN20) use the pairs inside each run. Without breaks every index is as above.
 */
export function computeTimeDomain(rr: ArrayLike<number>, breaks?: ArrayLike<number>): TimeDomain {
  const n = rr.length;
  if (n < 3) throw new HrvError("invalid_argument", "computeTimeDomain needs at least 3 intervals");
  const follows = (i: number) => i > 0 && !breaks?.[i];
  let instHr = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sumSq = 0;
  let sumD = 0;
  let nn50 = 0;
  let nn20 = 0;
  for (let i = 0; i < n; i++) {
    const x = rr[i] as number;
    instHr += 60000 / x;
    if (x < min) min = x;
    if (x > max) max = x;
    if (!follows(i)) continue;
    const d = x - (rr[i - 1] as number);
    sumSq += d * d;
    sumD += d;
    const ad = Math.abs(d);
    if (ad > 50) nn50++;
    if (ad > 20) nn20++;
  }
  let nd = 0;
  for (let i = 1; i < n; i++) if (follows(i)) nd++;
  const meanD = sumD / nd;
  let ssD = 0;
  for (let i = 1; i < n; i++) {
    if (!follows(i)) continue;
    const e = (rr[i] as number) - (rr[i - 1] as number) - meanD;
    ssD += e * e;
  }
  const meanRr = mean(rr);
  const sdnn = sd(rr, 1);
  const hrBpm = instHr / n;
  const sorted = Float64Array.from(rr);
  sorted.sort();
  return {
    beats: n,
    bpm: Math.floor(hrBpm),
    hrBpm,
    hrFromMeanRrBpm: 60000 / meanRr,
    meanRr,
    median: medianSorted(sorted),
    min,
    max,
    range: max - min,
    sdnn,
    pairs: nd,
    rmssd: Math.sqrt(sumSq / nd),
    sdsd: Math.sqrt(ssD / (nd - 1)),
    nn50,
    pnn50Pct: (100 * nn50) / nd,
    pnn50OverNPct: (100 * nn50) / n,
    nn20,
    pnn20Pct: (100 * nn20) / nd,
    cvPct: (100 * sdnn) / meanRr,
  };
}
