// Test helper: turns a shared pulse-oximeter recording into what a phone camera delivers (≈30 fps with
// jittered and dropped frames, inverted brightness), and scores detected pulses against ECG R-peaks.
import { readFileSync } from "node:fs";

export interface Recording {
  id: string;
  file: string;
  fs: number;
}

export const RECORDINGS = {
  nk_bio_resting_5min: { id: "nk_bio_resting_5min", file: "nk_bio_resting_5min_ppg_100hz.csv", fs: 100 },
  cinc2015_a103l: { id: "cinc2015_a103l", file: "cinc2015_a103l_ppg_250hz.csv", fs: 250 },
  wfdb_mixedsignals: { id: "wfdb_mixedsignals", file: "wfdb_mixedsignals_ppg_124p945hz.csv", fs: 124.945 },
  bidmc_01: { id: "bidmc_01", file: "bidmc_01_ppg_125hz.csv", fs: 125 },
} satisfies Record<string, Recording>;

const fixture = (path: string) => readFileSync(new URL(`./fixtures/${path}`, import.meta.url), "utf8");

function column(text: string, index: number): number[] {
  return text
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => Number(l.split(",")[index]));
}

/** ECG R-peak times, ms, from the recording's NeuroKit default beat file. */
export function ecgBeatsMs(rec: Recording): number[] {
  return column(fixture(`beats/${rec.id}_ecg_rpeaks_nk_default.csv`), 1).map((s) => s * 1000);
}

/** The recording's own samples (oximeter polarity) and their times, ms. */
export function oximeterSamples(rec: Recording): { values: number[]; times: number[] } {
  const values = column(fixture(`ppg/${rec.file}`), 0);
  return { values, times: values.map((_, i) => (i * 1000) / rec.fs) };
}

/** Deterministic uniform random numbers in [0, 1) (LCG; seeded so tests are reproducible). */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export interface CameraOptions {
  fps?: number;
  /** Peak-to-peak uniform jitter of frame times, ms. */
  jitterMs?: number;
  /** Probability that a frame is lost. */
  dropRate?: number;
  /** Peak-to-peak uniform noise on the brightness, levels. */
  noise?: number;
  seed?: number;
}

/**
 * Frames as a camera would deliver them: times k/fps + jitter (some frames dropped), brightness
 * 190 − 40·(p − mean)/(max − min) (darker with more blood) from the PPG linearly interpolated at each
 * frame time, plus noise.
 */
export function cameraFrames(rec: Recording, o: CameraOptions = {}): { values: number[]; times: number[] } {
  const ppg = column(fixture(`ppg/${rec.file}`), 0);
  const fps = o.fps ?? 30;
  const rnd = random(o.seed ?? 1);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (const p of ppg) {
    min = Math.min(min, p);
    max = Math.max(max, p);
    sum += p;
  }
  const mean = sum / ppg.length;
  const durationMs = ((ppg.length - 1) / rec.fs) * 1000;
  const values: number[] = [];
  const times: number[] = [];
  for (let k = 0; ; k++) {
    const t = Math.max(0, (k * 1000) / fps + (rnd() - 0.5) * (o.jitterMs ?? 8));
    if (t > durationMs - 1) break;
    if (rnd() < (o.dropRate ?? 0.01)) continue;
    const pos = (t / 1000) * rec.fs;
    const i = Math.floor(pos);
    const p = (ppg[i] ?? 0) + ((ppg[i + 1] ?? 0) - (ppg[i] ?? 0)) * (pos - i);
    times.push(t);
    values.push(190 - (40 * (p - mean)) / (max - min) + (rnd() - 0.5) * (o.noise ?? 0.3));
  }
  return { values, times };
}

export interface BeatMatch {
  /** Share of ECG beats with a pulse within ±100 ms after the best constant delay. */
  matchedShare: number;
  delayMs: number;
  /** Mean |PP − RR| over consecutive matched pairs, ms. */
  intervalMaeMs: number;
  pairs: number;
}

/** Matches pulses to R-peaks with a delay search (0–1.5 s) and a ±100 ms window, as the reference README suggests. */
export function matchBeats(ecgMs: number[], ppgMs: number[]): BeatMatch {
  const matchAt = (delay: number) => {
    const idx: number[] = [];
    let j = 0;
    for (const r of ecgMs) {
      while (j < ppgMs.length && (ppgMs[j] ?? 0) < r + delay - 100) j++;
      idx.push(j < ppgMs.length && Math.abs((ppgMs[j] ?? 0) - r - delay) <= 100 ? j : -1);
    }
    return idx;
  };
  let best = { delay: 0, idx: [] as number[], count: -1 };
  for (let d = 0; d <= 1500; d += 2) {
    const idx = matchAt(d);
    const count = idx.filter((i) => i >= 0).length;
    if (count > best.count) best = { delay: d, idx, count };
  }
  let err = 0;
  let pairs = 0;
  for (let i = 0; i + 1 < ecgMs.length; i++) {
    const a = best.idx[i] ?? -1;
    const b = best.idx[i + 1] ?? -1;
    if (a < 0 || b !== a + 1) continue;
    const pp = (ppgMs[b] ?? 0) - (ppgMs[a] ?? 0);
    const rr = (ecgMs[i + 1] ?? 0) - (ecgMs[i] ?? 0);
    err += Math.abs(pp - rr);
    pairs++;
  }
  return { matchedShare: best.count / ecgMs.length, delayMs: best.delay, intervalMaeMs: err / pairs, pairs };
}

export function rmssd(rr: number[]): number {
  let s = 0;
  for (let i = 1; i < rr.length; i++) s += ((rr[i] ?? 0) - (rr[i - 1] ?? 0)) ** 2;
  return Math.sqrt(s / (rr.length - 1));
}

export function intervals(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - (times[i] ?? 0));
}
