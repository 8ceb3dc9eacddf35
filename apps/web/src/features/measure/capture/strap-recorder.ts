import type { HeartRateMeasurement } from "@tonus/hrv";

/** Strap measurements last 2 or 5 minutes; 5 minutes gives the frequency domain (spec §5). */
export const STRAP_DURATIONS_MS = [120_000, 300_000] as const;

export type StrapSnapshot = {
  /** RR intervals received so far, ms, oldest first. */
  rrMs: number[];
  /** Heart rate the strap reports, beats/min. */
  hrBpm: number | undefined;
  /** Recorded time: the sum of the RR intervals, ms. */
  recordedMs: number;
  progress: number;
  /** The strap says it has no skin contact (or sends heart rate 0). */
  hasNoContact: boolean;
  /** The strap sends heart rate but no RR intervals (many fitness bands): HRV cannot be measured. */
  lacksRr: boolean;
  isDone: boolean;
};

/** Packets before deciding that a strap that sends no RR intervals at all never will. */
const PACKETS_BEFORE_NO_RR = 5;

/** Collects a strap's RR intervals until the chosen duration is covered. */
export function createStrapRecorder(durationMs: number) {
  const rrMs: number[] = [];
  let recordedMs = 0;
  let hrBpm: number | undefined;
  let hasNoContact = false;
  let packets = 0;

  function push(measurement: HeartRateMeasurement): void {
    if (recordedMs >= durationMs) return;
    packets++;
    hasNoContact =
      measurement.sensorContact === "not_detected" ||
      measurement.issues.some((issue) => issue.code === "zero_heart_rate");
    if (measurement.heartRateBpm) hrBpm = measurement.heartRateBpm;
    if (hasNoContact) return;
    for (const rr of measurement.rrMs) {
      if (recordedMs >= durationMs) break;
      rrMs.push(rr);
      recordedMs += rr;
    }
  }

  function snapshot(): StrapSnapshot {
    return {
      rrMs: [...rrMs],
      hrBpm,
      recordedMs,
      progress: Math.min(1, recordedMs / durationMs),
      hasNoContact,
      lacksRr: packets >= PACKETS_BEFORE_NO_RR && rrMs.length === 0,
      isDone: recordedMs >= durationMs,
    };
  }

  return { push, snapshot };
}
