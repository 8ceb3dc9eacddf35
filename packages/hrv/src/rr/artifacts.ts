import { HrvError } from "./issues.ts";
import { SortedWindow } from "./stats.ts";

/**
 * Artifact detection and correction after Lipponen & Tarvainen 2019 ("A robust algorithm for heart
 * rate variability time series artefact correction using novel beat classification", J Med Eng
 * Technol 43(3):173–181), the automatic method of Kubios HRV ≥ 3.2 (DEFINITIONS.md §8.4).
 *
 * Interval i spans beat i to beat i+1; dRRᵢ = RRᵢ − RRᵢ₋₁ (dRR₀ = 0). mRRᵢ = RRᵢ − median of the
 * 11 intervals centred on i, doubled when negative. Both are divided by a time-varying threshold
 * α · QD (α = 5.2, QD = quartile deviation (Q3 − Q1)/2 of the absolute values in a 91-interval
 * centred window; windows are truncated at the ends). An interval is then classified as
 * - **extra** — it and the next are both shorter than the local median and together make about one
 *   median interval (|RRᵢ + RRᵢ₊₁ − med| < Th2): a spurious beat split one interval;
 * - **ectopic** — the normalised dRR and its neighbour S12 fall in the ectopic region bounded by lines
 *   of slope c1 = 0.13 and offset c2 = 0.17 (a short–long or long–short pair);
 * - **missed** — a long/short candidate (|dRR| > 1 with an opposite S22 pattern, or |mRR| > 3) that
 *   is about two median intervals (|RRᵢ/2 − med| < Th2);
 * - **long_short** — the other long/short candidates.
 * The extra-beat test comes before the ectopic one (the paper tests ectopic first, which labels a
 * split interval as an ectopic pair and "corrects" it by adding a beat's worth of time).
 *
 * Correction: extra → the two intervals merged; missed → split into two halves; ectopic and
 * long_short → replaced by linear interpolation between the nearest normal intervals. Detection and
 * correction repeat on the corrected series (at most 3 passes) until nothing is found; flags of every
 * pass are reported against the input's indices.
 *
 * Thresholds below `minThresholdMs` are raised to it, so that quantisation noise in very regular
 * records (integer-ms camera exports, constant pacing) is not classified (the paper has no floor).
 */
export type ArtifactType = "ectopic" | "missed" | "extra" | "long_short";

/** One flagged input interval. */
export interface ArtifactFlag {
  /** 0-based index into the analysed (valid) input series. */
  index: number;
  type: ArtifactType;
}

/** Result of {@link correctArtifacts}. */
export interface ArtifactCorrection {
  /** Flagged input intervals, in index order (an interval flagged in several passes appears once). */
  flags: ArtifactFlag[];
  /** Number of flagged input intervals per type. */
  counts: Record<ArtifactType, number>;
  /** Flagged intervals / input intervals, 0…1. */
  share: number;
  /** The corrected NN series (ms); equal to the input when nothing was flagged. */
  nn: Float64Array;
  /** With `breaks`: the breaks of `nn` (1 = the value does not follow the one before it). */
  nnBreaks?: Uint8Array;
}

/** Tuning of {@link correctArtifacts}; the defaults are the paper's. */
export interface ArtifactOptions {
  /** Threshold multiplier α (default 5.2). */
  alpha?: number;
  /** Window for the quartile deviation, intervals (default 91). */
  thresholdWindow?: number;
  /** Window for the local median, intervals (default 11). */
  medianWindow?: number;
  /** Lowest threshold in ms (default 10). */
  minThresholdMs?: number;
  /** Lowest threshold as a fraction of the local median RR (default 0.05). */
  minThresholdFraction?: number;
  /** Most detection + correction passes (default 3). */
  maxPasses?: number;
}

const C1 = 0.13;
const C2 = 0.17;

const TYPE_CODE: Record<number, ArtifactType> = { 1: "ectopic", 2: "missed", 3: "extra", 4: "long_short" };

/**
 * Detects and corrects artifacts in `rr` (ms, positive, time order). Series shorter than 4 intervals
 * are returned unchanged. See the module comment for the method. Throws {@link HrvError} only for
 * invalid options.
 *
 * `breaks` (one flag per interval, 1 = it does not follow the interval before it): dRR is 0 at a break,
 * as at the start, and two intervals either side of a break are never merged as a split beat.
 */
export function correctArtifacts(
  rr: Float64Array,
  options: ArtifactOptions = {},
  breaks?: Uint8Array,
): ArtifactCorrection {
  const cfg = resolveArtifactOptions(options);
  const maxPasses = cfg.maxPasses;
  const typeOf = new Uint8Array(rr.length);
  let series: Float64Array = rr;
  let origin: Int32Array = Int32Array.from({ length: rr.length }, (_, i) => i);
  let seriesBreaks = breaks;
  for (let pass = 0; pass < maxPasses && series.length >= 4; pass++) {
    const cls = classify(series, cfg, seriesBreaks);
    let found = false;
    for (let i = 0; i < cls.length; i++) {
      const t = cls[i] as number;
      if (t === 0) continue;
      found = true;
      const o = origin[i] as number;
      if (typeOf[o] === 0) typeOf[o] = t;
    }
    if (!found) break;
    [series, origin] = applyCorrection(series, origin, cls);
    if (breaks) seriesBreaks = breaksOf(origin, breaks);
  }
  const flags: ArtifactFlag[] = [];
  const counts: Record<ArtifactType, number> = { ectopic: 0, missed: 0, extra: 0, long_short: 0 };
  for (let i = 0; i < typeOf.length; i++) {
    const type = TYPE_CODE[typeOf[i] as number];
    if (!type) continue;
    flags.push({ index: i, type });
    counts[type]++;
  }
  const share = rr.length ? flags.length / rr.length : 0;
  return { flags, counts, share, nn: series, ...(seriesBreaks ? { nnBreaks: seriesBreaks } : {}) };
}

/** The breaks of a corrected series: where a value starts at an input interval that had one. */
function breaksOf(origin: Int32Array, inputBreaks: Uint8Array): Uint8Array {
  const out = new Uint8Array(origin.length);
  for (let j = 1; j < origin.length; j++) {
    const o = origin[j] as number;
    if (o !== origin[j - 1] && inputBreaks[o]) out[j] = 1;
  }
  return out;
}

/** Fills in the defaults and validates (throws {@link HrvError} for invalid values). */
export function resolveArtifactOptions(options: ArtifactOptions = {}): Required<ArtifactOptions> {
  const cfg = {
    alpha: options.alpha ?? 5.2,
    thresholdWindow: options.thresholdWindow ?? 91,
    medianWindow: options.medianWindow ?? 11,
    minThresholdMs: options.minThresholdMs ?? 10,
    minThresholdFraction: options.minThresholdFraction ?? 0.05,
    maxPasses: options.maxPasses ?? 3,
  };
  checkOptions(cfg, cfg.maxPasses);
  return cfg;
}

function checkOptions(cfg: Config, maxPasses: number): void {
  const positive = [cfg.alpha, cfg.minThresholdMs, cfg.minThresholdFraction];
  if (!positive.every((x) => Number.isFinite(x) && x >= 0) || !(cfg.alpha > 0)) {
    throw new HrvError("invalid_argument", "alpha must be > 0, minThresholdMs and minThresholdFraction ≥ 0");
  }
  const windows = [cfg.thresholdWindow, cfg.medianWindow];
  if (!windows.every((w) => Number.isInteger(w) && w >= 3) || !Number.isInteger(maxPasses) || maxPasses < 1) {
    throw new HrvError("invalid_argument", "windows must be integers ≥ 3 and maxPasses an integer ≥ 1");
  }
}

interface Config {
  alpha: number;
  thresholdWindow: number;
  medianWindow: number;
  minThresholdMs: number;
  minThresholdFraction: number;
}

/** Per-interval class: 0 normal, 1 ectopic, 2 missed, 3 extra (this and the next), 4 long/short. */
function classify(rr: Float64Array, cfg: Config, breaks?: Uint8Array): Uint8Array {
  const n = rr.length;
  const drr = new Float64Array(n);
  for (let i = 1; i < n; i++) if (!breaks?.[i]) drr[i] = (rr[i] as number) - (rr[i - 1] as number);
  const med = runningMedian(rr, cfg.medianWindow);
  const mrr = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const m = (rr[i] as number) - (med[i] as number);
    mrr[i] = m < 0 ? 2 * m : m;
  }
  const th1 = thresholds(drr, med, cfg);
  const th2 = thresholds(mrr, med, cfg);
  const dn = new Float64Array(n);
  const mn = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    dn[i] = (drr[i] as number) / (th1[i] as number);
    mn[i] = (mrr[i] as number) / (th2[i] as number);
  }
  const cls = new Uint8Array(n);
  const at = (i: number) => (i >= 0 && i < n ? (dn[i] as number) : 0);
  for (let i = 0; i < n; i++) {
    const d = dn[i] as number;
    const m = mn[i] as number;
    if (Math.abs(d) <= 1 && Math.abs(m) <= 3) continue;
    const x = rr[i] as number;
    const md = med[i] as number;
    const t2 = th2[i] as number;
    const next = i + 1 < n && !breaks?.[i + 1] ? (rr[i + 1] as number) : Number.NaN;
    if (x < md && next < md && Math.abs(x + next - md) < t2) {
      cls[i] = 3;
      cls[i + 1] = 3;
      i++;
      continue;
    }
    const s12 = d > 0 ? Math.max(at(i - 1), at(i + 1)) : Math.min(at(i - 1), at(i + 1));
    if ((d > 1 && s12 < -C1 * d - C2) || (d < -1 && s12 > -C1 * d + C2)) {
      cls[i] = 1;
      continue;
    }
    const s22 = d >= 0 ? Math.min(at(i + 1), at(i + 2)) : Math.max(at(i + 1), at(i + 2));
    const longShort = (d < -1 && s22 > 1) || (d > 1 && s22 < -1) || Math.abs(m) > 3;
    if (!longShort) continue;
    cls[i] = x > md && Math.abs(x / 2 - md) < t2 ? 2 : 4;
  }
  return cls;
}

/** α · quartile deviation of |x| over a centred window, floored (see `ArtifactOptions`). */
function thresholds(x: Float64Array, med: Float64Array, cfg: Config): Float64Array {
  const n = x.length;
  const half = cfg.thresholdWindow >> 1;
  const win = new SortedWindow(Math.min(cfg.thresholdWindow, n) + 1);
  const out = new Float64Array(n);
  for (let i = 0; i < Math.min(half, n); i++) win.add(Math.abs(x[i] as number));
  for (let i = 0; i < n; i++) {
    if (i - half - 1 >= 0) win.remove(Math.abs(x[i - half - 1] as number));
    if (i + half < n) win.add(Math.abs(x[i + half] as number));
    const qd = (win.quantile(0.75) - win.quantile(0.25)) / 2;
    const floor = Math.max(cfg.minThresholdMs, cfg.minThresholdFraction * (med[i] as number));
    out[i] = Math.max(floor, cfg.alpha * qd);
  }
  return out;
}

/** Running median over a centred window of `w` values, truncated at the ends. */
function runningMedian(x: Float64Array, w: number): Float64Array {
  const n = x.length;
  const half = w >> 1;
  const win = new SortedWindow(Math.min(w, n) + 1);
  const out = new Float64Array(n);
  for (let i = 0; i < Math.min(half, n); i++) win.add(x[i] as number);
  for (let i = 0; i < n; i++) {
    if (i - half - 1 >= 0) win.remove(x[i - half - 1] as number);
    if (i + half < n) win.add(x[i + half] as number);
    out[i] = win.quantile(0.5);
  }
  return out;
}

/** Applies one pass of corrections; returns the new series and each value's input index. */
function applyCorrection(rr: Float64Array, origin: Int32Array, cls: Uint8Array): [Float64Array, Int32Array] {
  const out: number[] = [];
  const org: number[] = [];
  const interpolate: boolean[] = [];
  for (let i = 0; i < rr.length; i++) {
    const t = cls[i];
    const x = rr[i] as number;
    const o = origin[i] as number;
    if (t === 3 && cls[i + 1] === 3) {
      out.push(x + (rr[i + 1] as number));
      org.push(o);
      interpolate.push(false);
      i++;
    } else if (t === 2) {
      out.push(x / 2, x / 2);
      org.push(o, o);
      interpolate.push(false, false);
    } else {
      out.push(x);
      org.push(o);
      interpolate.push(t === 1 || t === 4);
    }
  }
  fillByInterpolation(out, interpolate);
  return [Float64Array.from(out), Int32Array.from(org)];
}

/** Replaces every marked value by linear interpolation between the nearest unmarked neighbours. */
function fillByInterpolation(values: number[], marked: boolean[]): void {
  const n = values.length;
  let i = 0;
  while (i < n) {
    if (!marked[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < n && marked[j]) j++;
    const left = i > 0 ? (values[i - 1] as number) : undefined;
    const right = j < n ? (values[j] as number) : undefined;
    for (let k = i; k < j; k++) {
      if (left !== undefined && right !== undefined) {
        values[k] = left + ((right - left) * (k - i + 1)) / (j - i + 1);
      } else values[k] = (left ?? right ?? values[k]) as number;
    }
    i = j;
  }
}
