import type { Pacer } from "@tonus/contract";

export type PacerPhase = {
  phase: "inhale" | "exhale" | "done";
  /** 0 → 1 within the phase (the circle grows while inhaling and shrinks while exhaling). */
  progress: number;
  /** Whole seconds left in the exercise, rounded up. */
  secondsLeft: number;
  breaths: number;
};

/** Where a paced-breathing exercise stands after `elapsedMs`: pure, so the timer is tested without a clock. */
export function pacerPhase(pacer: Pacer, elapsedMs: number): PacerPhase {
  const totalMs = pacer.duration_min * 60_000;
  const cycleMs = (pacer.inhale_s + pacer.exhale_s) * 1000;
  const elapsed = Math.max(0, elapsedMs);
  if (elapsed >= totalMs)
    return { phase: "done", progress: 1, secondsLeft: 0, breaths: Math.floor(totalMs / cycleMs) };
  const inCycle = elapsed % cycleMs;
  const inhaleMs = pacer.inhale_s * 1000;
  const secondsLeft = Math.ceil((totalMs - elapsed) / 1000);
  const breaths = Math.floor(elapsed / cycleMs);
  if (inCycle < inhaleMs) return { phase: "inhale", progress: inCycle / inhaleMs, secondsLeft, breaths };
  return { phase: "exhale", progress: (inCycle - inhaleMs) / (cycleMs - inhaleMs), secondsLeft, breaths };
}

/** Breaths per minute of a pacer, e.g. 5 s in + 5 s out → 6. */
export function breathsPerMinute(pacer: Pacer): number {
  return 60 / (pacer.inhale_s + pacer.exhale_s);
}
