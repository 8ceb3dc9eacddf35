import { elgendiPeaks, parabolicPeak } from "./detect.ts";
import { bandPass, filtfilt } from "./filters.ts";
import { beatQuality, medianOf, usableIntervals } from "./quality.ts";
import { resampleUniform } from "./resample.ts";
import type { PpgAnalysis, PpgBadSegment, PpgIssue, PpgOptions } from "./types.ts";

/** Shortest recording analysed, ms. */
export const PPG_MIN_DURATION_MS = 10_000;
/** Longest recording analysed, ms (one hour): guards memory against timestamps in the wrong unit. */
export const PPG_MAX_DURATION_MS = 3_600_000;
/** Below this share of usable intervals the numbers are withheld (`poor_signal`). */
export const PPG_MIN_GOOD_SHARE = 0.7;
/** Below this share no pulse wave is considered present (`no_finger`). */
const FINGER_MIN_GOOD_SHARE = 0.3;
const MIN_FRAME_RATE_HZ = 10;
/** More frames than this at the exact extreme value means the camera saturated (`clipped_signal`). */
const MAX_CLIPPED_SHARE = 0.05;
const FRAME_GAP_MS = 250;
/**
 * A hole of at least two missing frames (a step over 2.5 frames) hides a peak's shape: a pulse whose
 * peak falls in or next to one is timed 10–90 ms off (measured on nk_bio_resting_5min: one missing frame
 * moves a peak by ≤ 4 ms, two by ~11, three by ~21, six by ~42 ms median), far beyond rMSSD's scale.
 */
const HOLE_STEPS = 2.5;
// Elgendi 2013 band: 0.5–8 Hz keeps the systolic peak's shape; the high-pass also removes drift.
const BAND_LOW_HZ = 0.5;
const BAND_HIGH_HZ = 8;

interface Frames {
  values: number[];
  times: number[];
  issues: PpgIssue[];
}

function cleanFrames(samples: ArrayLike<number>, timestampsMs: ArrayLike<number>, invert: boolean): Frames {
  const issues: PpgIssue[] = [];
  if (samples.length !== timestampsMs.length) issues.push({ code: "length_mismatch" });
  const n = Math.min(samples.length, timestampsMs.length);
  const values: number[] = [];
  const times: number[] = [];
  let dropped = 0;
  for (let i = 0; i < n; i++) {
    const v = samples[i] ?? Number.NaN;
    const t = timestampsMs[i] ?? Number.NaN;
    const last = times[times.length - 1];
    if (!Number.isFinite(v) || !Number.isFinite(t) || (last !== undefined && t <= last)) {
      dropped++;
      continue;
    }
    values.push(invert ? -v : v);
    times.push(t);
  }
  if (dropped > 0) issues.push({ code: "dropped_frames", count: dropped });
  return { values, times, issues };
}

/** Share of frames sitting exactly at the recording's highest or lowest value (a saturated sensor). */
function clippedShare(values: number[]): number {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (!(max > min)) return 0;
  let atEdge = 0;
  for (const v of values) if (v === min || v === max) atEdge++;
  return atEdge / values.length;
}

function emptyResult(issues: PpgIssue[], sampleRateHz: number): PpgAnalysis {
  return {
    beats: [],
    ppMs: [],
    ppUsable: [],
    ppTimed: [],
    goodShare: 0,
    fingerPresent: false,
    badSegments: [],
    sampleRateHz,
    issues,
  };
}

function badSegments(beatTimes: number[], usable: boolean[]): PpgBadSegment[] {
  const segments: PpgBadSegment[] = [];
  for (let i = 0; i < usable.length; i++) {
    if (usable[i]) continue;
    const startMs = beatTimes[i] ?? 0;
    const endMs = beatTimes[i + 1] ?? startMs;
    const last = segments[segments.length - 1];
    if (last && last.endMs >= startMs) last.endMs = endMs;
    else segments.push({ startMs, endMs });
  }
  return segments;
}

function metrics(ppMs: number[], usable: boolean[]): { hrBpm?: number; rmssdMs?: number } {
  let sum = 0;
  let count = 0;
  let sq = 0;
  let pairs = 0;
  for (let i = 0; i < ppMs.length; i++) {
    if (!usable[i]) continue;
    sum += ppMs[i] ?? 0;
    count++;
    if (i > 0 && usable[i - 1]) {
      const d = (ppMs[i] ?? 0) - (ppMs[i - 1] ?? 0);
      sq += d * d;
      pairs++;
    }
  }
  return {
    hrBpm: count > 0 ? 60000 / (sum / count) : undefined,
    rmssdMs: pairs > 1 ? Math.sqrt(sq / pairs) : undefined,
  };
}

/**
 * Beats, pulse-to-pulse intervals, heart rate and rMSSD from a camera (or oximeter) photoplethysmogram.
 *
 * Input: `samples` — one brightness value per video frame (any unit; by default camera polarity, where
 * more blood = darker, so the signal is inverted; `polarity: "oximeter"` for pleth signals) and
 * `timestampsMs` — each frame's capture time in ms, increasing, uneven spacing allowed (phones deliver
 * ≈30 fps with jitter and dropped frames).
 *
 * Method: frames are resampled to a uniform grid at the median frame rate (cubic Hermite), band-passed
 * 0.5–8 Hz with a zero-phase 2nd-order Butterworth cascade (removes drift and breathing baseline), and
 * systolic peaks are found with Elgendi's two-moving-average detector (Elgendi et al. 2013). Each peak
 * is refined below one frame by parabolic interpolation (frames are 33 ms apart; without this rMSSD is
 * badly overstated). Each pulse gets a quality 0–1 by correlation with the average pulse (template
 * matching, Orphanidou et al. 2015); an interval is usable when both its pulses reach 0.8 and it is
 * within 20 % of the median of the 11 intervals around it, which removes missed pulses, extra pulses
 * and ectopic beats. An interval is also unusable, and not even timed (`ppTimed` false), when one of its
 * pulses peaks in or next to a hole of two or more missing frames, or when it spans a hole of more than
 * 250 ms: its length would come from interpolated signal. Runs of unusable intervals are returned as
 * `badSegments`.
 *
 * Output: `hrBpm` = 60000 / mean usable interval and `rmssdMs` over successive usable intervals. When
 * fewer than 70 % of intervals are usable the numbers are left out and `poor_signal` is reported (with
 * `no_finger` below 30 %, i.e. no pulse wave). Dirty input never throws: non-finite values and
 * out-of-order timestamps are dropped (`dropped_frames`), recordings under 10 s give `too_short`,
 * under 10 fps `low_frame_rate`, over an hour `too_long`; more than 5 % of frames stuck at the
 * extreme value give `clipped_signal` (a saturated camera); holes of two or more missing frames are
 * counted in `frame_gaps`. The full interval series (`ppMs`, `ppUsable`, `ppTimed`) is returned so that
 * the RR analysis can apply its own artifact correction. (Leaving the untimed intervals out instead
 * was measured to be no better: the intervals either side of a removed one then follow each other, and
 * with many removed those joins overstate rMSSD as much as the guessed timings do.)
 */
export function analyzePpg(
  samples: ArrayLike<number>,
  timestampsMs: ArrayLike<number>,
  options: PpgOptions = {},
): PpgAnalysis {
  const frames = cleanFrames(samples, timestampsMs, options.polarity !== "oximeter");
  const { values, times, issues } = frames;
  const first = times[0] ?? 0;
  const durationMs = (times[times.length - 1] ?? 0) - first;
  if (times.length < 2 || durationMs < PPG_MIN_DURATION_MS) {
    issues.push({ code: "too_short", durationMs }, { code: "poor_signal", goodShare: 0 });
    return emptyResult(issues, 0);
  }
  if (durationMs > PPG_MAX_DURATION_MS) {
    issues.push({ code: "too_long", durationMs }, { code: "poor_signal", goodShare: 0 });
    return emptyResult(issues, 0);
  }
  const dts: number[] = [];
  const gaps: PpgBadSegment[] = [];
  for (let i = 1; i < times.length; i++) {
    const dt = (times[i] ?? 0) - (times[i - 1] ?? 0);
    dts.push(dt);
    if (dt > FRAME_GAP_MS) gaps.push({ startMs: times[i - 1] ?? 0, endMs: times[i] ?? 0 });
  }
  const stepMs = medianOf(dts);
  const fs = 1000 / stepMs;
  const holes: PpgBadSegment[] = [];
  for (let i = 1; i < times.length; i++) {
    if ((dts[i - 1] ?? 0) > HOLE_STEPS * stepMs)
      holes.push({ startMs: times[i - 1] ?? 0, endMs: times[i] ?? 0 });
  }
  if (holes.length > 0) issues.push({ code: "frame_gaps", count: holes.length });
  if (fs < MIN_FRAME_RATE_HZ) {
    issues.push({ code: "low_frame_rate" }, { code: "poor_signal", goodShare: 0 });
    return emptyResult(issues, fs);
  }

  const clipped = clippedShare(values);
  if (clipped > MAX_CLIPPED_SHARE) issues.push({ code: "clipped_signal", share: clipped });

  const x = resampleUniform(
    values,
    times,
    first,
    stepMs,
    new Float64Array(Math.floor(durationMs / stepMs) + 1),
  );
  filtfilt(x, bandPass(BAND_LOW_HZ, BAND_HIGH_HZ, fs), Math.round(2 * fs));
  const peaks = elgendiPeaks(x, fs);
  const quality = beatQuality(x, peaks);
  const beatTimes = peaks.map((p) => first + parabolicPeak(x, p) * stepMs);
  const beats = beatTimes.map((timeMs, i) => ({ timeMs, quality: quality[i] ?? 0 }));
  const ppMs: number[] = [];
  for (let i = 1; i < beatTimes.length; i++) ppMs.push((beatTimes[i] ?? 0) - (beatTimes[i - 1] ?? 0));
  const ppUsable = usableIntervals(ppMs, quality);
  // A pulse whose peak lies in a hole (± a frame) was timed on interpolated signal; an interval that
  // spans a long hole may hide a whole pulse. Neither interval's length is known.
  const isUntimed = beatTimes.map((t) => holes.some((h) => t > h.startMs - stepMs && t < h.endMs + stepMs));
  const ppTimed = ppMs.map((_, i) => {
    const start = beatTimes[i] ?? 0;
    const end = beatTimes[i + 1] ?? 0;
    return !isUntimed[i] && !isUntimed[i + 1] && !gaps.some((g) => start < g.endMs && end > g.startMs);
  });
  for (let i = 0; i < ppMs.length; i++) if (!ppTimed[i]) ppUsable[i] = false;
  const usableCount = ppUsable.filter(Boolean).length;
  // Judge the share by time, not count: a flat stretch with no beats is one long interval.
  let usableMs = 0;
  for (let i = 0; i < ppMs.length; i++) if (ppUsable[i]) usableMs += ppMs[i] ?? 0;
  const goodShare = Math.min(1, usableMs / durationMs);
  const fingerPresent = goodShare >= FINGER_MIN_GOOD_SHARE;
  const result: PpgAnalysis = {
    beats,
    ppMs,
    ppUsable,
    ppTimed,
    goodShare,
    fingerPresent,
    badSegments: badSegments(beatTimes, ppUsable),
    sampleRateHz: fs,
    issues,
  };
  if (usableCount < ppMs.length) issues.push({ code: "artifacts", badShare: 1 - usableCount / ppMs.length });
  if (!fingerPresent) issues.push({ code: "no_finger" });
  if (goodShare < PPG_MIN_GOOD_SHARE || usableCount < 10) {
    issues.push({ code: "poor_signal", goodShare });
    return result;
  }
  const { hrBpm, rmssdMs } = metrics(ppMs, ppUsable);
  if (hrBpm !== undefined) result.hrBpm = hrBpm;
  if (rmssdMs !== undefined) result.rmssdMs = rmssdMs;
  return result;
}
