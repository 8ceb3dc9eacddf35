import { HrvError } from "./issues.ts";
import { evaluateQuadraticSpline, fitQuadraticSpline } from "./spline.ts";

/**
 * Frequency-domain HRV (Task Force 1996 bands; DEFINITIONS.md §3) by Welch's method on the RR series
 * resampled at 4 Hz — the estimate the reference values call "neurokit2.freq_welch_4hz_ms2", rebuilt
 * from its published description:
 * 1. beat times tᵢ = Σ_{k≤i} RR_k / 1000 s; RRᵢ is placed at tᵢ (the end of the interval);
 * 2. a 4-Hz grid g_k = t₀ + k/4 s up to one step past the last beat;
 * 3. RR on the grid from the quadratic interpolating B-spline through (tᵢ, RRᵢ) (see `spline.ts`);
 *    grid points after the last beat take the last RR;
 * 4. the mean is removed; N samples;
 * 5. f_min = 8 / (N/2) Hz, segment length L = ⌊(2 / f_min) · 4⌋ ≤ ⌊N/2⌋; periodic Hann windows,
 *    50 % overlap, each segment zero-padded to 2L, one-sided density |X|² / (fs · Σw²) (doubled except
 *    at 0 Hz and Nyquist), averaged over segments (Welch 1967);
 * 6. frequencies below f_min or above 0.5 Hz dropped; band power = trapezoidal integral over the bins
 *    with low ≤ f < high.
 * Powers are in ms² (the PSD integrates to the variance of the resampled series).
 */
export interface FrequencyDomain {
  /** Estimator, for stored results: Welch on a 4-Hz quadratic-spline resampling. */
  method: "welch_4hz_quadratic";
  /** Very low frequency power 0.0033–0.04 Hz, ms² (unreliable below 5 minutes). */
  vlfMs2: number;
  /** Low frequency power 0.04–0.15 Hz, ms². */
  lfMs2: number;
  /** High frequency power 0.15–0.4 Hz, ms². */
  hfMs2: number;
  /** Total power VLF + LF + HF, ms² (not NeuroKit2's TP, which adds 0.4–0.5 Hz). */
  totalPowerMs2: number;
  /** LF / HF (absent when HF is 0). */
  lfHf?: number;
  /** 100 · LF / (LF + HF), normalised units (absent when LF + HF is 0). */
  lfNu?: number;
  /** 100 · HF / (LF + HF), normalised units (absent when LF + HF is 0). */
  hfNu?: number;
  /** The PSD for plotting: frequencies (Hz, f_min … 0.5) and densities (ms²/Hz). */
  spectrum: { frequencyHz: number[]; psdMs2PerHz: number[] };
}

/** Band edges, Hz, half-open [low, high). */
export const BANDS = { vlf: [0.0033, 0.04], lf: [0.04, 0.15], hf: [0.15, 0.4] } as const;

const FS = 4;
// Below this a band power is rounding noise of a flat series (the reference tools print ~1e-28).
const ZERO_POWER_MS2 = 1e-9;

/**
 * Computes {@link FrequencyDomain} for `rr` (ms, positive, time order; the caller requires more than
 * 280 intervals, spec §5; below 16 intervals — too few for a single Welch segment with a band in
 * it — it throws {@link HrvError}).
 */
export function computeFrequencyDomain(rr: ArrayLike<number>): FrequencyDomain {
  if (rr.length < 16)
    throw new HrvError("invalid_argument", "computeFrequencyDomain needs at least 16 intervals");
  const signal = resample(rr);
  const { freqs, psd } = welch(signal);
  const vlf = bandPower(freqs, psd, BANDS.vlf);
  const lf = bandPower(freqs, psd, BANDS.lf);
  const hf = bandPower(freqs, psd, BANDS.hf);
  const result: FrequencyDomain = {
    method: "welch_4hz_quadratic",
    vlfMs2: vlf,
    lfMs2: lf,
    hfMs2: hf,
    totalPowerMs2: vlf + lf + hf,
    spectrum: { frequencyHz: Array.from(freqs), psdMs2PerHz: Array.from(psd) },
  };
  if (hf > 0) result.lfHf = lf / hf;
  if (lf + hf > 0) {
    result.lfNu = (100 * lf) / (lf + hf);
    result.hfNu = (100 * hf) / (lf + hf);
  }
  return result;
}

/** Steps 1–4: the mean-removed 4-Hz series. */
function resample(rr: ArrayLike<number>): Float64Array {
  const n = rr.length;
  const t = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc += (rr[i] as number) / 1000;
    t[i] = acc;
  }
  const t0 = t[0] as number;
  const tLast = t[n - 1] as number;
  const count = Math.ceil((tLast + 1 / FS - t0) * FS);
  const grid = new Float64Array(count);
  for (let k = 0; k < count; k++) grid[k] = t0 + k * (1 / FS);
  const out = new Float64Array(count);
  evaluateQuadraticSpline(fitQuadraticSpline(t, rr), grid, rr[n - 1] as number, out);
  let mean = 0;
  for (let k = 0; k < count; k++) mean += out[k] as number;
  mean /= count;
  for (let k = 0; k < count; k++) out[k] = (out[k] as number) - mean;
  return out;
}

/** Step 5–6 (up to the band integration): Welch PSD on f_min … 0.5 Hz. */
function welch(x: Float64Array): { freqs: Float64Array; psd: Float64Array } {
  const n = x.length;
  const fMin = (2 * FS) / (n / 2);
  let seg = Math.trunc((2 / fMin) * FS);
  if (seg > n / 2) seg = Math.trunc(n / 2);
  const nfft = 2 * seg;
  const step = seg - Math.floor(seg / 2);
  const window = new Float64Array(seg);
  let wss = 0;
  for (let i = 0; i < seg; i++) {
    const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / seg);
    window[i] = w;
    wss += w * w;
  }
  const df = 1 / (nfft * (1 / FS));
  let kLo = 0;
  while (kLo * df < fMin) kLo++;
  let kHi = kLo - 1;
  while ((kHi + 1) * df <= 0.5 && kHi + 1 <= nfft / 2) kHi++;
  // Very short records have f_min above 0.5 Hz: no bins, an empty spectrum and zero band powers.
  const bins = Math.max(0, kHi - kLo + 1);
  const coef = new Float64Array(bins);
  for (let b = 0; b < bins; b++) coef[b] = 2 * Math.cos((2 * Math.PI * (kLo + b)) / nfft);
  const psd = new Float64Array(bins);
  const power = new Float64Array(bins);
  const xs = new Float64Array(seg);
  let segments = 0;
  for (let start = 0; start + seg <= n; start += step) {
    segments++;
    for (let i = 0; i < seg; i++) xs[i] = (x[start + i] as number) * (window[i] as number);
    goertzelPowers(xs, coef, power);
    for (let b = 0; b < bins; b++) {
      const k = kLo + b;
      const scale = k === 0 || k === nfft / 2 ? 1 : 2;
      psd[b] = (psd[b] as number) + (scale * (power[b] as number)) / (FS * wss);
    }
  }
  const freqs = new Float64Array(bins);
  for (let b = 0; b < bins; b++) {
    freqs[b] = (kLo + b) * df;
    psd[b] = (psd[b] as number) / segments;
  }
  return { freqs, psd };
}

/**
 * |X_k|² of `xs` zero-padded to the DFT length behind `coef` (= 2·cos(2πk/nfft)) by the Goertzel
 * recurrence (Goertzel 1958). Trailing zeros do not change the final state, so only the real samples
 * are visited. Four bins run side by side: each recurrence is a serial dependency chain, and four
 * independent chains keep the CPU's multipliers busy (≈ 3× faster than one at a time).
 */
function goertzelPowers(xs: Float64Array, coef: Float64Array, out: Float64Array): void {
  const m = xs.length;
  const bins = coef.length;
  let b = 0;
  for (; b + 3 < bins; b += 4) {
    const c0 = coef[b] as number;
    const c1 = coef[b + 1] as number;
    const c2 = coef[b + 2] as number;
    const c3 = coef[b + 3] as number;
    let a1 = 0;
    let a2 = 0;
    let b1 = 0;
    let b2 = 0;
    let d1 = 0;
    let d2 = 0;
    let e1 = 0;
    let e2 = 0;
    for (let i = 0; i < m; i++) {
      const v = xs[i] as number;
      const a0 = v + c0 * a1 - a2;
      a2 = a1;
      a1 = a0;
      const b0 = v + c1 * b1 - b2;
      b2 = b1;
      b1 = b0;
      const d0 = v + c2 * d1 - d2;
      d2 = d1;
      d1 = d0;
      const e0 = v + c3 * e1 - e2;
      e2 = e1;
      e1 = e0;
    }
    out[b] = a1 * a1 + a2 * a2 - c0 * a1 * a2;
    out[b + 1] = b1 * b1 + b2 * b2 - c1 * b1 * b2;
    out[b + 2] = d1 * d1 + d2 * d2 - c2 * d1 * d2;
    out[b + 3] = e1 * e1 + e2 * e2 - c3 * e1 * e2;
  }
  for (; b < bins; b++) {
    const c = coef[b] as number;
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < m; i++) {
      const s0 = (xs[i] as number) + c * s1 - s2;
      s2 = s1;
      s1 = s0;
    }
    out[b] = s1 * s1 + s2 * s2 - c * s1 * s2;
  }
}

function bandPower(freqs: Float64Array, psd: Float64Array, [low, high]: readonly [number, number]): number {
  let power = 0;
  let prevF = Number.NaN;
  let prevP = 0;
  for (let b = 0; b < freqs.length; b++) {
    const f = freqs[b] as number;
    if (f < low || f >= high) continue;
    const p = psd[b] as number;
    if (!Number.isNaN(prevF)) power += ((f - prevF) * (p + prevP)) / 2;
    prevF = f;
    prevP = p;
  }
  return power < ZERO_POWER_MS2 ? 0 : power;
}
