import { movingAverage } from "./filters.ts";

// Elgendi et al. 2013 (PLoS One 8:e76585), "two event-related moving averages": window of a systolic
// peak (111 ms), window of a beat (667 ms), offset β = 0.02 of the mean squared signal.
const W_PEAK_S = 0.111;
const W_BEAT_S = 0.667;
const BETA = 0.02;
/** Shortest accepted beat-to-beat distance (200 bpm). */
const MIN_DISTANCE_S = 0.3;

/** Scratch buffers reused between calls of the same length (no allocation on repeated use). */
export interface DetectorScratch {
  squared: Float64Array;
  maPeak: Float64Array;
  maBeat: Float64Array;
}

export function createScratch(n: number): DetectorScratch {
  return { squared: new Float64Array(n), maPeak: new Float64Array(n), maBeat: new Float64Array(n) };
}

/**
 * Systolic peaks of a band-passed PPG (larger = more blood) by Elgendi's method: indices of the maximum
 * of each block where the 111-ms moving average of the squared positive signal exceeds the 667-ms
 * one plus an offset, blocks shorter than the peak window rejected, peaks closer than 300 ms merged
 * (the higher kept).
 */
export function elgendiPeaks(x: Float64Array, fs: number, scratch = createScratch(x.length)): number[] {
  const n = x.length;
  const { squared, maPeak, maBeat } = scratch;
  let mean = 0;
  for (let i = 0; i < n; i++) {
    const v = x[i] ?? 0;
    const s = v > 0 ? v * v : 0;
    squared[i] = s;
    mean += s;
  }
  mean /= Math.max(1, n);
  const w1 = Math.max(1, Math.round(W_PEAK_S * fs));
  movingAverage(squared, w1, maPeak);
  movingAverage(squared, Math.max(1, Math.round(W_BEAT_S * fs)), maBeat);
  const offset = BETA * mean;
  const minDistance = MIN_DISTANCE_S * fs;
  const peaks: number[] = [];
  let start = -1;
  for (let i = 0; i <= n; i++) {
    const inBlock = i < n && (maPeak[i] ?? 0) > (maBeat[i] ?? 0) + offset;
    if (inBlock && start < 0) start = i;
    if (inBlock || start < 0) continue;
    if (i - start >= w1) {
      let best = start;
      for (let k = start + 1; k < i; k++) if ((x[k] ?? 0) > (x[best] ?? 0)) best = k;
      const last = peaks[peaks.length - 1];
      if (last !== undefined && best - last < minDistance) {
        if ((x[best] ?? 0) > (x[last] ?? 0)) peaks[peaks.length - 1] = best;
      } else peaks.push(best);
    }
    start = -1;
  }
  return peaks;
}

/**
 * Sub-sample position of a local maximum at index i by fitting a parabola through i−1, i, i+1;
 * returns i + δ with |δ| ≤ 0.5 (i itself at the edges or on a flat top).
 */
export function parabolicPeak(x: Float64Array, i: number): number {
  if (i <= 0 || i >= x.length - 1) return i;
  const a = x[i - 1] ?? 0;
  const b = x[i] ?? 0;
  const c = x[i + 1] ?? 0;
  const denom = a - 2 * b + c;
  if (denom >= 0) return i;
  const delta = (0.5 * (a - c)) / denom;
  return i + Math.max(-0.5, Math.min(0.5, delta));
}
