import { BiquadState, highPass, lowPass } from "./filters.ts";

export interface PpgStreamOptions {
  /** See `PpgOptions.polarity`; "camera" (default) inverts the brightness. */
  polarity?: "camera" | "oximeter";
  /** Rate of the uniform grid the frames are interpolated onto, Hz (default 30). */
  sampleRateHz?: number;
  /** Length of the waveform kept for display, seconds (default 5). */
  waveformSeconds?: number;
}

/** Live PPG state; every method runs in constant time and allocates nothing after creation. */
export interface PpgStream {
  /**
   * Adds one frame: brightness and capture time in ms (increasing; a frame with a non-finite value or a
   * time not after the previous frame is ignored; after a pause of more than 2 s the stream starts
   * over as after `reset`). Returns true when a new pulse was detected.
   */
  push(value: number, timestampMs: number): boolean;
  /** Heart rate, beats/min: 60000 / median of the last 8 plausible pulse intervals; undefined before 3 pulses. */
  readonly hrBpm: number | undefined;
  /** Time of the latest pulse, ms on the caller's clock (delayed by the causal filters, ≈ 0.1 s). */
  readonly lastBeatMs: number | undefined;
  /** Number of pulses detected since creation or reset. */
  readonly beatCount: number;
  /** True while pulses keep coming at a steady rhythm (a pulse in the last 2.5 s and the last 4 intervals within 30 % of the median). */
  readonly pulseDetected: boolean;
  /**
   * Copies the most recent filtered waveform (oldest first, larger = more blood, unitless) into `out`
   * and returns how many samples were written (at most `out.length` and the waveform length).
   */
  waveform(out: Float32Array | Float64Array): number;
  /** Forgets everything (e.g. after the finger was lifted). */
  reset(): void;
}

const W_PEAK_S = 0.111;
const W_BEAT_S = 0.667;
const BETA = 0.02;
const MIN_DISTANCE_S = 0.3;
const WARM_UP_S = 2;
/** Time constant of the running mean of the squared signal (Elgendi's offset), seconds. */
const MEAN_TAU_S = 8;
const HR_WINDOW = 8;
const MAX_FRAME_GAP_MS = 2000;

/**
 * Streaming form of the PPG beat detector for live heart rate and waveform during a measurement: frames
 * are pushed one at a time, linearly interpolated onto a uniform grid, band-passed 0.5–8 Hz with causal
 * 2nd-order Butterworth sections, and pulses are found with Elgendi's two moving averages (Elgendi et
 * al. 2013) evaluated causally with a delay of half the beat window, then refined below one sample by
 * parabolic interpolation. Ring buffers are allocated once; `push` does no allocation.
 *
 * Use `analyzePpg` on the whole recording for the reported numbers; this form is for display.
 */
export function createPpgStream(options: PpgStreamOptions = {}): PpgStream {
  const fs = options.sampleRateHz ?? 30;
  const stepMs = 1000 / fs;
  const sign = options.polarity === "oximeter" ? 1 : -1;
  const w1 = Math.max(1, Math.round(W_PEAK_S * fs));
  const w2 = Math.max(w1, Math.round(W_BEAT_S * fs));
  const h1 = (w1 - 1) >> 1;
  const h2 = (w2 - 1) >> 1;
  const minDistance = MIN_DISTANCE_S * fs;
  const meanAlpha = 1 / (MEAN_TAU_S * fs);
  const hp = new BiquadState(highPass(0.5, fs));
  const lp = new BiquadState(lowPass(Math.min(8, fs * 0.45), fs));

  const waveLen = Math.max(w2 + 4, Math.round((options.waveformSeconds ?? 5) * fs));
  const xs = new Float64Array(waveLen); // filtered signal ring
  const sq = new Float64Array(w2); // squared signal ring for the trailing sums
  const peakMa = new Float64Array(h2 - h1 + 1); // delay line of the short average
  const pp = new Float64Array(HR_WINDOW);
  const sortBuf = new Float64Array(HR_WINDOW);

  let n = 0; // grid samples produced
  let prevT = Number.NaN;
  let prevV = 0;
  let nextGridT = 0;
  let t0 = 0;
  let sum1 = 0;
  let sum2 = 0;
  let meanSq = 0;
  let blockStart = -1;
  let blockBest = -1;
  let lastPeak = -1;
  let lastBeatMs: number | undefined;
  let beatCount = 0;
  let ppCount = 0;
  let lastFrameT = Number.NaN;

  const at = (ring: Float64Array, i: number) => ring[((i % ring.length) + ring.length) % ring.length] ?? 0;

  function peakTime(i: number): number {
    const a = at(xs, i - 1);
    const b = at(xs, i);
    const c = at(xs, i + 1);
    const denom = a - 2 * b + c;
    const delta = denom < 0 ? Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / denom)) : 0;
    return t0 + (i + delta) * stepMs;
  }

  function onPeak(i: number): boolean {
    if (lastPeak >= 0 && i - lastPeak < minDistance) {
      if (at(xs, i) <= at(xs, lastPeak)) return false;
      // A higher peak within 300 ms replaces the previous one (and moves the end of its interval).
      const t = peakTime(i);
      if (ppCount > 0 && lastBeatMs !== undefined) {
        const k = (ppCount - 1) % HR_WINDOW;
        pp[k] = (pp[k] ?? 0) + t - lastBeatMs;
      }
      lastPeak = i;
      lastBeatMs = t;
      return false;
    }
    const t = peakTime(i);
    if (lastBeatMs !== undefined) {
      pp[ppCount % HR_WINDOW] = t - lastBeatMs;
      ppCount++;
    }
    lastPeak = i;
    lastBeatMs = t;
    beatCount++;
    return true;
  }

  function processSample(v: number): boolean {
    const y = lp.step(hp.step(v));
    const i = n++;
    xs[i % waveLen] = y;
    const s = y > 0 ? y * y : 0;
    sum1 += s - (i >= w1 ? at(sq, i - w1) : 0);
    sum2 += s - (i >= w2 ? at(sq, i - w2) : 0);
    sq[i % w2] = s;
    meanSq += (s - meanSq) * (i < fs ? 1 / (i + 1) : meanAlpha);
    peakMa[i % peakMa.length] = sum1 / Math.min(w1, i + 1);
    // Compare both averages centred on sample c = i − h2 (the short one is delayed to match).
    const c = i - h2;
    if (i < WARM_UP_S * fs || c < 0) return false;
    const inBlock = at(peakMa, i - h2 + h1) > sum2 / w2 + BETA * meanSq;
    if (inBlock) {
      if (blockStart < 0) {
        blockStart = c;
        blockBest = c;
      } else if (at(xs, c) > at(xs, blockBest)) blockBest = c;
      return false;
    }
    if (blockStart < 0) return false;
    const long = c - blockStart >= w1;
    blockStart = -1;
    return long ? onPeak(blockBest) : false;
  }

  function push(value: number, timestampMs: number): boolean {
    if (!Number.isFinite(value) || !Number.isFinite(timestampMs)) return false;
    if (!(timestampMs > lastFrameT) && !Number.isNaN(lastFrameT)) return false;
    // After a pause longer than MAX_FRAME_GAP_MS the old state says nothing about the new frames.
    if (timestampMs - lastFrameT > MAX_FRAME_GAP_MS) reset();
    lastFrameT = timestampMs;
    const v = sign * value;
    if (Number.isNaN(prevT)) {
      prevT = timestampMs;
      prevV = v;
      t0 = timestampMs;
      nextGridT = timestampMs;
      hp.reset(v);
      lp.reset(0);
    }
    let beat = false;
    while (nextGridT <= timestampMs) {
      const span = timestampMs - prevT;
      const u = span > 0 ? (nextGridT - prevT) / span : 1;
      if (processSample(prevV + (v - prevV) * u)) beat = true;
      nextGridT = t0 + n * stepMs;
    }
    prevT = timestampMs;
    prevV = v;
    return beat;
  }

  function medianPp(): number | undefined {
    const k = Math.min(ppCount, HR_WINDOW);
    let m = 0;
    for (let j = 0; j < k; j++) {
      const d = pp[j] ?? 0;
      if (d < 250 || d > 2500) continue;
      let p = m++;
      while (p > 0 && (sortBuf[p - 1] ?? 0) > d) {
        sortBuf[p] = sortBuf[p - 1] ?? 0;
        p--;
      }
      sortBuf[p] = d;
    }
    if (m < 2) return undefined;
    return m % 2 === 1 ? sortBuf[m >> 1] : ((sortBuf[(m >> 1) - 1] ?? 0) + (sortBuf[m >> 1] ?? 0)) / 2;
  }

  function reset(): void {
    n = 0;
    prevT = Number.NaN;
    lastFrameT = Number.NaN;
    sum1 = 0;
    sum2 = 0;
    meanSq = 0;
    blockStart = -1;
    lastPeak = -1;
    lastBeatMs = undefined;
    beatCount = 0;
    ppCount = 0;
    xs.fill(0);
    sq.fill(0);
    peakMa.fill(0);
  }

  return {
    push,
    reset,
    get hrBpm() {
      const m = medianPp();
      return m === undefined ? undefined : 60000 / m;
    },
    get lastBeatMs() {
      return lastBeatMs;
    },
    get beatCount() {
      return beatCount;
    },
    get pulseDetected() {
      const m = medianPp();
      if (m === undefined || lastBeatMs === undefined || lastFrameT - lastBeatMs > 2500) return false;
      const k = Math.min(ppCount, 4);
      for (let j = 1; j <= k; j++) {
        const d = pp[(ppCount - j) % HR_WINDOW] ?? 0;
        if (Math.abs(d - m) > 0.3 * m) return false;
      }
      return true;
    },
    waveform(out) {
      const k = Math.min(out.length, waveLen, n);
      for (let j = 0; j < k; j++) out[j] = at(xs, n - k + j);
      return k;
    },
  };
}
