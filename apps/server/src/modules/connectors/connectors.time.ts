/**
 * Times as providers write them. Some answer instants with an offset (`2026-05-01T07:12:00+03:00`), some
 * local wall-clock times without one (Fitbit's sleep `endTime`), some only a calendar day for a daily
 * total. Local times are read in the person's profile time zone, the same zone the dashboard counts
 * its days in, so a day's value lands on that day.
 */

const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/;
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

/** Minutes east of UTC that `tz` is at instant `ms`. */
function offsetMinutesAt(tz: string, ms: number): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: tz,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(
    get("year"),
    get("month") - 1,
    get("day"),
    get("hour"),
    get("minute"),
    get("second"),
  );
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

/**
 * The instant a local wall-clock time (`YYYY-MM-DD[THH:mm[:ss[.fff]]]`) has in `tz`; null when it is
 * not one. A time skipped by a clock change moves forward with the change, as clocks do.
 */
export function localToInstant(local: string, tz: string): Date | null {
  const m = LOCAL_RE.exec(local.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => Number(v ?? 0)) as number[];
  const ms = m[7] ? Math.round(Number(`0.${m[7]}`) * 1000) : 0;
  const wall = Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0, ms);
  if (Number.isNaN(wall) || new Date(wall).getUTCDate() !== d) return null;
  // The offsets in force half a day before and after; a time valid under one of them is the answer (the
  // earlier one when a clock goes back and it happens twice). In the gap when clocks go forward no
  // offset fits: the earlier offset carries the time past the change.
  const before = offsetMinutesAt(tz, wall - 43_200_000);
  const after = offsetMinutesAt(tz, wall + 43_200_000);
  const candidates = [wall - before * 60_000, wall - after * 60_000].filter(
    (t, i) => offsetMinutesAt(tz, t) === (i === 0 ? before : after),
  );
  return new Date(candidates.length > 0 ? Math.min(...candidates) : wall - before * 60_000);
}

/** Noon of calendar day `day` in `tz`: where a provider's daily total goes, safely inside that day. */
export function dayNoon(day: string, tz: string): Date | null {
  if (!DAY_RE.test(day)) return null;
  return localToInstant(`${day}T12:00:00`, tz);
}

/** An instant with an offset or `Z`; a time without one is read in `tz`. Null when unreadable. */
export function parseInstant(value: unknown, tz: string): Date | null {
  if (typeof value !== "string" || value.length > 64) return null;
  if (/(Z|[+-]\d{2}:?\d{2})$/i.test(value)) {
    const t = Date.parse(value);
    return Number.isNaN(t) ? null : new Date(t);
  }
  return localToInstant(value, tz);
}

/** `YYYY-MM-DD` of instant `at` in `tz`. */
export function dayOf(at: Date, tz: string): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: tz,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(at);
}

/** The calendar day `days` after `day` (negative: before). */
export function addDays(day: string, days: number): string {
  const t = Date.parse(`${day}T00:00:00Z`) + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}
