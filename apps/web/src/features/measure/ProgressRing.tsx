import type { ReactNode } from "react";

const RADIUS = 52;
const CIRCUMFERENCE = 2 * Math.PI * RADIUS;

/** A ring that fills clockwise with `progress` (0–1); the centre shows `children`. */
export function ProgressRing({
  progress,
  label,
  children,
}: {
  progress: number;
  /** What the ring measures, for screen readers (the value is announced as a percentage). */
  label: string;
  children?: ReactNode;
}) {
  const clamped = Math.max(0, Math.min(1, progress));
  return (
    <div
      className="progress-ring"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(clamped * 100)}
    >
      <svg viewBox="0 0 120 120" aria-hidden="true" focusable="false">
        <circle className="progress-ring__track" cx="60" cy="60" r={RADIUS} />
        <circle
          className="progress-ring__bar"
          cx="60"
          cy="60"
          r={RADIUS}
          strokeDasharray={CIRCUMFERENCE}
          strokeDashoffset={CIRCUMFERENCE * (1 - clamped)}
          transform="rotate(-90 60 60)"
        />
      </svg>
      <div className="progress-ring__centre">{children}</div>
    </div>
  );
}
