/** Stable codes of what `analyzePpg` found wrong with a recording; the UI catalogues hold the text (en/ru). */
export type PpgIssueCode =
  /** `samples` and `timestampsMs` differ in length; the extra entries were ignored. */
  | "length_mismatch"
  /** Frames with a non-finite value or a timestamp not after the previous one were dropped (`count`). */
  | "dropped_frames"
  /**
   * Frame times have holes of two or more missing frames (`count`): pulses peaking in one, and intervals
   * spanning one longer than 250 ms, are not timed (`ppTimed`) and not used.
   */
  | "frame_gaps"
  /** Frame rate below 10 fps: too coarse to time beats; no beats are reported. */
  | "low_frame_rate"
  /** Fewer than 10 s of frames (`durationMs`); no beats are reported. */
  | "too_short"
  /** More than an hour of frames (`durationMs`), usually timestamps in the wrong unit; nothing is analysed. */
  | "too_long"
  /** More than 5 % of frames sit exactly at the recording's extreme value (`share`): the sensor saturated. */
  | "clipped_signal"
  /** No finger on the camera for most of the recording: no pulse wave was found. */
  | "no_finger"
  /** The signal is too poor for heart rate or HRV (`goodShare` = share of usable intervals); the numbers are left out. */
  | "poor_signal"
  /** Some stretches were unusable and are listed in `badSegments` (`badShare` = share of intervals left out). */
  | "artifacts";

export interface PpgIssue {
  code: PpgIssueCode;
  count?: number;
  durationMs?: number;
  goodShare?: number;
  badShare?: number;
  share?: number;
}

/** One detected pulse. */
export interface PpgBeat {
  /** Time of the systolic peak, ms on the caller's clock, refined below one frame by parabolic interpolation. */
  timeMs: number;
  /** Similarity of this pulse to the recording's average pulse, 0–1 (template correlation, amplitude-checked). */
  quality: number;
}

/** A stretch of the recording whose beats were left out of the numbers. */
export interface PpgBadSegment {
  startMs: number;
  endMs: number;
}

export interface PpgAnalysis {
  /** Detected pulses in time order. */
  beats: PpgBeat[];
  /** Pulse-to-pulse intervals, ms (beats[i+1] − beats[i]), as detected. */
  ppMs: number[];
  /** For each `ppMs` entry: true when both pulses are good, it is timed and it fits its neighbours. */
  ppUsable: boolean[];
  /**
   * For each `ppMs` entry: false when its length is not known because frames were missing where it was
   * timed (a pulse peaking in a hole of two or more frames, or a hole over 250 ms inside it).
   */
  ppTimed: boolean[];
  /** Mean heart rate over the usable intervals, beats/min (60000 / mean usable PP); absent with `poor_signal`. */
  hrBpm?: number;
  /** rMSSD over successive usable intervals, ms; absent with `poor_signal`. */
  rmssdMs?: number;
  /** Share of intervals that are usable, 0–1. */
  goodShare: number;
  /** Whether a pulse wave (a finger on the camera) was found: usable intervals cover at least 30 % of the recording. */
  fingerPresent: boolean;
  /** Stretches left out of the numbers. */
  badSegments: PpgBadSegment[];
  /** Sample rate of the uniform grid the frames were resampled to, Hz. */
  sampleRateHz: number;
  issues: PpgIssue[];
}

export interface PpgOptions {
  /**
   * "camera" (default): brightness of a fingertip on the lens, darker = more blood, so the signal is
   * inverted; "oximeter": larger = more blood (pulse-oximeter pleth).
   */
  polarity?: "camera" | "oximeter";
}
