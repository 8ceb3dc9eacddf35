// Second-order IIR sections (RBJ "Audio EQ Cookbook" formulas with Q = 1/√2, i.e. 2nd-order Butterworth)
// and the zero-phase forward–backward application used for offline analysis.

/** Normalised biquad coefficients (a0 = 1). */
export interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

const BUTTERWORTH_Q = Math.SQRT1_2;

/** 2nd-order Butterworth low-pass at `cutoffHz` for sample rate `fs`. */
export function lowPass(cutoffHz: number, fs: number): Biquad {
  const w = (2 * Math.PI * cutoffHz) / fs;
  const alpha = Math.sin(w) / (2 * BUTTERWORTH_Q);
  const cos = Math.cos(w);
  const a0 = 1 + alpha;
  return {
    b0: (1 - cos) / 2 / a0,
    b1: (1 - cos) / a0,
    b2: (1 - cos) / 2 / a0,
    a1: (-2 * cos) / a0,
    a2: (1 - alpha) / a0,
  };
}

/** 2nd-order Butterworth high-pass at `cutoffHz` for sample rate `fs`. */
export function highPass(cutoffHz: number, fs: number): Biquad {
  const w = (2 * Math.PI * cutoffHz) / fs;
  const alpha = Math.sin(w) / (2 * BUTTERWORTH_Q);
  const cos = Math.cos(w);
  const a0 = 1 + alpha;
  return {
    b0: (1 + cos) / 2 / a0,
    b1: -(1 + cos) / a0,
    b2: (1 + cos) / 2 / a0,
    a1: (-2 * cos) / a0,
    a2: (1 - alpha) / a0,
  };
}

/** Band-pass as a cascade of a high-pass and a low-pass section. */
export function bandPass(lowHz: number, highHz: number, fs: number): Biquad[] {
  return [highPass(lowHz, fs), lowPass(Math.min(highHz, fs * 0.45), fs)];
}

/** Runs the sections over x[from..to) in place (direct form II transposed), forwards or backwards. */
function runSections(x: Float64Array, sections: Biquad[], forward: boolean): void {
  const n = x.length;
  for (const s of sections) {
    // Start from the steady state for the first sample, so a DC offset causes no start-up transient.
    const first = forward ? (x[0] ?? 0) : (x[n - 1] ?? 0);
    const dcGain = (s.b0 + s.b1 + s.b2) / (1 + s.a1 + s.a2);
    const y0 = first * dcGain;
    let z1 = y0 - s.b0 * first;
    let z2 = s.b2 * first - s.a2 * y0;
    for (let k = 0; k < n; k++) {
      const i = forward ? k : n - 1 - k;
      const v = x[i] ?? 0;
      const y = s.b0 * v + z1;
      z1 = s.b1 * v - s.a1 * y + z2;
      z2 = s.b2 * v - s.a2 * y;
      x[i] = y;
    }
  }
}

/**
 * Zero-phase filtering (forward then backward pass), in place. The signal is first extended at both
 * ends by odd reflection of `pad` samples so that the edges do not ring.
 */
export function filtfilt(x: Float64Array, sections: Biquad[], pad: number): Float64Array {
  const n = x.length;
  const p = Math.max(0, Math.min(pad, n - 1));
  const ext = new Float64Array(n + 2 * p);
  const a = x[0] ?? 0;
  const b = x[n - 1] ?? 0;
  for (let i = 0; i < p; i++) ext[i] = 2 * a - (x[p - i] ?? 0);
  ext.set(x, p);
  for (let i = 0; i < p; i++) ext[p + n + i] = 2 * b - (x[n - 2 - i] ?? 0);
  runSections(ext, sections, true);
  runSections(ext, sections, false);
  x.set(ext.subarray(p, p + n));
  return x;
}

/** Centred moving average with a window of `w` samples (w ≥ 1), written to `out`. */
export function movingAverage(x: Float64Array, w: number, out: Float64Array): Float64Array {
  const n = x.length;
  const half = Math.floor(w / 2);
  let sum = 0;
  let lo = 0;
  let hi = 0; // window is [lo, hi)
  for (let i = 0; i < n; i++) {
    const wantLo = Math.max(0, i - half);
    const wantHi = Math.min(n, i - half + w);
    while (hi < wantHi) sum += x[hi++] ?? 0;
    while (lo < wantLo) sum -= x[lo++] ?? 0;
    out[i] = sum / Math.max(1, hi - lo);
  }
  return out;
}

/** One biquad with its own state, for sample-by-sample (causal) use without allocation. */
export class BiquadState {
  private z1 = 0;
  private z2 = 0;
  private readonly s: Biquad;
  constructor(sections: Biquad) {
    this.s = sections;
  }

  reset(value: number): void {
    const s = this.s;
    const y0 = (value * (s.b0 + s.b1 + s.b2)) / (1 + s.a1 + s.a2);
    this.z1 = y0 - s.b0 * value;
    this.z2 = s.b2 * value - s.a2 * y0;
  }

  step(v: number): number {
    const s = this.s;
    const y = s.b0 * v + this.z1;
    this.z1 = s.b1 * v - s.a1 * y + this.z2;
    this.z2 = s.b2 * v - s.a2 * y;
    return y;
  }
}
