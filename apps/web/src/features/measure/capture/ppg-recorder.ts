import { analyzePpg, createPpgStream, type FrameColour, fingerOnLens, type PpgIssue } from "@tonus/hrv";

/** About 2 minutes (spec §1), or until 300 pulses so the frequency domain unlocks (spec §5). */
export type CameraMode = { kind: "time"; durationMs: number } | { kind: "beats"; beats: number };

export const CAMERA_TIME_MODE: CameraMode = { kind: "time", durationMs: 120_000 };
export const CAMERA_BEATS_MODE: CameraMode = { kind: "beats", beats: 300 };

/** Frames in a row without a fingertip before the recording pauses (≈ 0.3 s at 30 fps). */
const FINGER_LOST_FRAMES = 10;
/** Frames in a row with a fingertip before a paused recording goes on (≈ 0.5 s at 30 fps). */
const FINGER_BACK_FRAMES = 15;
/** Segments shorter than this are thrown away: `analyzePpg` needs 10 s. */
const MIN_SEGMENT_MS = 10_000;
/** Longest gap between frames inside one segment; a longer one starts a new segment. */
const MAX_FRAME_GAP_MS = 1000;

export type CameraPhase = "waiting" | "recording" | "paused" | "done";

export type CameraSnapshot = {
  phase: CameraPhase;
  /** Live heart rate from the streaming detector, beats/min. */
  hrBpm: number | undefined;
  /** True while pulses keep coming at a steady rhythm. */
  isPulseSteady: boolean;
  /** Pulses seen while recording. */
  beatCount: number;
  /** Finger-on time recorded, ms. */
  recordedMs: number;
  /** 0–1 towards the mode's goal. */
  progress: number;
  /** Quality of the live signal: "none" without pulses, "poor" while irregular, "good" when steady. */
  quality: "none" | "poor" | "good";
};

export type CameraResult = {
  /**
   * Pulse-to-pulse intervals of every segment, ms, as detected (the server corrects artifacts), less
   * those `analyzePpg` could not time (a pulse peaking where frames were lost, a hole inside one).
   */
  rrMs: number[];
  /**
   * Indices into `rrMs` of intervals that do not follow the one before them: where an untimed interval
   * was left out, and where a new segment begins (finger lifted, frames stopped). The server takes no
   * successive difference across them, so lost frames cannot inflate rMSSD through either a guessed
   * pulse time or two intervals that were not neighbours.
   */
  rrBreaks: number[];
  /** Intervals left out because their pulses were not timed. */
  untimed: number;
  /** Share of intervals `analyzePpg` found usable, over all segments. */
  goodShare: number;
  issues: PpgIssue["code"][];
  durationMs: number;
};

type Segment = { values: number[]; timesMs: number[] };

/**
 * Camera capture as a pure state machine: each frame's mean colour and capture time go in; the
 * fingertip gate pauses the recording while the finger is off the lens (and a new segment starts when
 * it comes back, so no interval spans the pause); a streaming detector gives the live heart rate and
 * waveform; `finish` runs the full PPG analysis on each segment and joins their pulse intervals.
 */
export function createPpgRecorder(mode: CameraMode) {
  const stream = createPpgStream();
  const segments: Segment[] = [];
  let current: Segment | null = null;
  let phase: CameraPhase = "waiting";
  let missing = 0;
  let present = 0;
  let beatCount = 0;
  let recordedMs = 0;
  let lastTimeMs = Number.NaN;

  function closeSegment(): void {
    if (current && current.timesMs.length > 1) segments.push(current);
    current = null;
    stream.reset();
  }

  function progress(): number {
    if (mode.kind === "time") return Math.min(1, recordedMs / mode.durationMs);
    return Math.min(1, beatCount / mode.beats);
  }

  function pushFrame(colour: FrameColour, timeMs: number): void {
    if (phase === "done" || !(timeMs > lastTimeMs || Number.isNaN(lastTimeMs))) return;
    const gapMs = timeMs - lastTimeMs;
    lastTimeMs = timeMs;
    if (fingerOnLens(colour)) {
      missing = 0;
      present++;
    } else {
      present = 0;
      missing++;
    }
    if (phase === "recording" && missing >= FINGER_LOST_FRAMES) {
      phase = "paused";
      closeSegment();
      return;
    }
    if (phase !== "recording") {
      if (present < FINGER_BACK_FRAMES) return;
      phase = "recording";
    }
    if (missing > 0) return;
    if (current && gapMs > MAX_FRAME_GAP_MS) closeSegment();
    if (!current) current = { values: [], timesMs: [] };
    else recordedMs += gapMs;
    current.values.push(colour.r);
    current.timesMs.push(timeMs);
    if (stream.push(colour.r, timeMs)) beatCount++;
    if (progress() >= 1) {
      closeSegment();
      phase = "done";
    }
  }

  function snapshot(): CameraSnapshot {
    const isRecording = phase === "recording";
    const isPulseSteady = isRecording && stream.pulseDetected;
    const hrBpm = isRecording ? stream.hrBpm : undefined;
    return {
      phase,
      hrBpm,
      isPulseSteady,
      beatCount,
      recordedMs,
      progress: progress(),
      quality: isPulseSteady ? "good" : hrBpm === undefined ? "none" : "poor",
    };
  }

  function finish(): CameraResult {
    closeSegment();
    phase = "done";
    const rrMs: number[] = [];
    const rrBreaks: number[] = [];
    const issues = new Set<PpgIssue["code"]>();
    let usable = 0;
    let total = 0;
    let untimed = 0;
    let durationMs = 0;
    for (const segment of segments) {
      const first = segment.timesMs[0] ?? 0;
      const last = segment.timesMs[segment.timesMs.length - 1] ?? 0;
      if (last - first < MIN_SEGMENT_MS) continue;
      durationMs += last - first;
      const analysis = analyzePpg(segment.values, segment.timesMs);
      for (const issue of analysis.issues) issues.add(issue.code);
      // Untimed intervals are left out and the series breaks there. Timed ones the quality check
      // doubts (an odd pulse shape, an ectopic-looking length) stay for the server's artifact
      // correction: leaving them out too cost 7–10 % of rMSSD on a clean recording (real long and
      // short beats went with them).
      let follows = false;
      for (const [i, pp] of analysis.ppMs.entries()) {
        if (!analysis.ppTimed[i]) {
          untimed++;
          follows = false;
          continue;
        }
        if (!follows && rrMs.length > 0) rrBreaks.push(rrMs.length);
        rrMs.push(pp);
        follows = true;
      }
      usable += analysis.ppUsable.filter(Boolean).length;
      total += analysis.ppMs.length;
    }
    const goodShare = total > 0 ? usable / total : 0;
    return { rrMs, rrBreaks, untimed, goodShare, issues: [...issues], durationMs };
  }

  return {
    pushFrame,
    snapshot,
    finish,
    /** The latest filtered waveform for display (larger = more blood). */
    waveform: (out: Float32Array) => (phase === "recording" ? stream.waveform(out) : 0),
  };
}

export type PpgRecorder = ReturnType<typeof createPpgRecorder>;
