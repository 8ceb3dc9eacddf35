import type { MeasurementSource } from "@tonus/contract";

/** A finished recording, ready for feel, mood and tags before it is saved. */
export type CapturedRr = {
  rrMs: number[];
  /** Indices into `rrMs` of intervals that do not follow the one before (beats between not timed). */
  rrBreaks: number[];
  source: MeasurementSource;
  device: string | null;
  /** ISO instant the recording began. */
  startedAt: string;
};

/** `new Date().toISOString()` with the local offset written as Z (UTC), accepted by the contract. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Minutes and seconds, "1:05". */
export function formatClock(ms: number): string {
  const totalS = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(totalS / 60)}:${String(totalS % 60).padStart(2, "0")}`;
}
