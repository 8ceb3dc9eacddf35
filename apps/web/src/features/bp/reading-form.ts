import { BP_LIMITS, type BpArm, type BpReading, type BpReadingCreate } from "@tonus/contract";

/** What the person typed; numbers stay text until checked. */
export type ReadingDraft = {
  systolic: string;
  diastolic: string;
  pulse: string;
  /** `datetime-local` value in the browser's time zone, e.g. `2026-11-23T08:15`. */
  at: string;
  arm: "" | BpArm;
  note: string;
};

export type DraftErrors = Partial<Record<"systolic" | "diastolic" | "pulse" | "at" | "note", string>>;

/** i18n keys with their values: the page turns them into text. */
export type ErrorKey = { key: string; values?: Record<string, number> };

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

/** A `datetime-local` value for an instant, in the browser's time zone. */
export function toLocalInput(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function emptyDraft(now: Date = new Date()): ReadingDraft {
  return { systolic: "", diastolic: "", pulse: "", at: toLocalInput(now), arm: "", note: "" };
}

export function draftOf(reading: BpReading): ReadingDraft {
  return {
    systolic: String(reading.systolic),
    diastolic: String(reading.diastolic),
    pulse: reading.pulse === null ? "" : String(reading.pulse),
    at: toLocalInput(new Date(reading.measured_at)),
    arm: reading.arm ?? "",
    note: reading.note,
  };
}

function wholeNumber(text: string): number | null {
  const trimmed = text.trim();
  return /^\d{1,3}$/.test(trimmed) ? Number(trimmed) : null;
}

function checkRange(
  text: string,
  limits: { min: number; max: number },
  required: boolean,
): { value: number | null; error?: ErrorKey } {
  if (text.trim() === "")
    return required ? { value: null, error: { key: "bp.errors.required" } } : { value: null };
  const value = wholeNumber(text);
  if (value === null) return { value: null, error: { key: "bp.errors.whole_number" } };
  if (value < limits.min || value > limits.max) {
    return { value: null, error: { key: "bp.errors.range", values: { min: limits.min, max: limits.max } } };
  }
  return { value };
}

/**
 * Checks a draft the way the server will (plausible ranges, systolic above diastolic, a time not in the
 * future) and builds the request; `errors` holds i18n keys per field.
 */
export function validateDraft(
  draft: ReadingDraft,
  now: Date = new Date(),
): {
  errors: Partial<Record<keyof DraftErrors, ErrorKey>>;
  request: Omit<BpReadingCreate, "client_id" | "time_zone"> | null;
} {
  const errors: Partial<Record<keyof DraftErrors, ErrorKey>> = {};
  const systolic = checkRange(draft.systolic, BP_LIMITS.systolic, true);
  const diastolic = checkRange(draft.diastolic, BP_LIMITS.diastolic, true);
  const pulse = checkRange(draft.pulse, BP_LIMITS.pulse, false);
  if (systolic.error) errors.systolic = systolic.error;
  if (diastolic.error) errors.diastolic = diastolic.error;
  if (pulse.error) errors.pulse = pulse.error;
  if (systolic.value !== null && diastolic.value !== null && systolic.value <= diastolic.value) {
    errors.systolic = { key: "bp.errors.systolic_above" };
  }
  const at = new Date(draft.at);
  if (draft.at === "" || Number.isNaN(at.getTime())) errors.at = { key: "bp.errors.time" };
  else if (at.getTime() > now.getTime() + 5 * 60_000) errors.at = { key: "bp.errors.future" };
  if (draft.note.length > BP_LIMITS.noteMax) {
    errors.note = { key: "bp.errors.note_long", values: { max: BP_LIMITS.noteMax } };
  }
  if (Object.keys(errors).length > 0 || systolic.value === null || diastolic.value === null) {
    return { errors, request: null };
  }
  return {
    errors,
    request: {
      systolic: systolic.value,
      diastolic: diastolic.value,
      pulse: pulse.value,
      measured_at: at.toISOString(),
      arm: draft.arm === "" ? null : draft.arm,
      note: draft.note.trim(),
    },
  };
}
