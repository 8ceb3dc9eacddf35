import { WEEKLY_REPORT_LOCAL_TIME } from "@tonus/contract";

/**
 * When notifications fall due, in the person's own time zone. Pure: every function takes the instant it
 * reasons about, so the tick, the tests and a DST week all see the same answers. Local dates are
 * `YYYY-MM-DD` strings, local times `HH:MM`, weekdays ISO (1 Monday … 7 Sunday).
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A weekly report that could not go out at 08:00 (server down) still goes out within the day after. */
export const REPORT_GRACE_MS = DAY_MS;
/** A reminder more than two hours late is no longer a reminder: it is skipped. */
export const REMINDER_GRACE_MS = 2 * HOUR_MS;

export type ScheduleSettings = {
  weeklyReport: boolean;
  weeklyReportDay: number;
  reminders: boolean;
  reminderTime: string;
  reminderDays: readonly number[];
};

export type DueNotification = {
  kind: "weekly_report" | "reminder";
  /** The local date the notification belongs to: the ledger's period. */
  periodKey: string;
  scheduledAt: Date;
};

type WallClock = { year: number; month: number; day: number; hour: number; minute: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall clock in `timeZone` at instant `at` (seconds dropped). */
function wallClock(at: Date, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const p of formatterFor(timeZone).formatToParts(at)) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
  };
}

/** The zone's offset from UTC at `at`, in ms (east positive), to the minute. */
function offsetMs(at: Date, timeZone: string): number {
  const w = wallClock(at, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
  return asUtc - Math.floor(at.getTime() / 60_000) * 60_000;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** A time zone the runtime knows, or UTC (a stored zone the runtime no longer has must not stop mail). */
export function safeTimeZone(timeZone: string): string {
  try {
    formatterFor(timeZone);
    return timeZone;
  } catch {
    return "UTC";
  }
}

/** The local calendar date of `at` in `timeZone`. */
export function localDate(at: Date, timeZone: string): string {
  const w = wallClock(at, timeZone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}`;
}

/** `date` plus `days` calendar days. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number);
  const t = new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, (d ?? 1) + days));
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
}

/** ISO weekday of a calendar date: 1 Monday … 7 Sunday. */
export function isoWeekday(date: string): number {
  const [y, m, d] = date.split("-").map(Number);
  const day = new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1)).getUTCDay();
  return day === 0 ? 7 : day;
}

/**
 * The instant the wall clock in `timeZone` shows `time` on `date`. Across DST the rules are those of
 * Temporal's "compatible" choice: a time that occurs twice (autumn) is its first occurrence; a time that
 * does not exist (spring, e.g. 02:30 in New York on the second Sunday of March) moves forward by the gap
 * (03:30 daylight time).
 */
export function zonedTimeToUtc(date: string, time: string, timeZone: string): Date {
  const [y, m, d] = date.split("-").map(Number);
  const [hh, mm] = time.split(":").map(Number);
  const asUtc = Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1, hh ?? 0, mm ?? 0);
  const before = offsetMs(new Date(asUtc - DAY_MS), timeZone);
  const after = offsetMs(new Date(asUtc + DAY_MS), timeZone);
  const wanted = `${date} ${time}`;
  const shows = (t: number) => {
    const w = wallClock(new Date(t), timeZone);
    return `${w.year}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}` === wanted;
  };
  const candidates = [asUtc - before, asUtc - after].filter(shows).sort((a, b) => a - b);
  // No candidate shows the wanted time: it fell into a gap; the offset before the gap moves it forward.
  return new Date(candidates[0] ?? asUtc - before);
}

/** The local days a weekly report sent on `sendDate` covers (the seven before it) and their bounds. */
export function reportWeek(sendDate: string, timeZone: string): { days: string[]; from: Date; to: Date } {
  const days = Array.from({ length: 7 }, (_, i) => addDays(sendDate, i - 7));
  return {
    days,
    from: zonedTimeToUtc(days[0] ?? sendDate, "00:00", timeZone),
    to: zonedTimeToUtc(sendDate, "00:00", timeZone),
  };
}

/**
 * The notifications due for one person at `now`: a scheduled time that has passed and is still within
 * its grace period. Today and yesterday (local) are looked at, so a reminder at 23:30 is still found at
 * 00:10. The ledger makes a second answer for the same period harmless.
 */
export function dueNotifications(settings: ScheduleSettings, timeZone: string, now: Date): DueNotification[] {
  const zone = safeTimeZone(timeZone);
  const today = localDate(now, zone);
  const due: DueNotification[] = [];
  for (const date of [addDays(today, -1), today]) {
    const weekday = isoWeekday(date);
    if (settings.weeklyReport && weekday === settings.weeklyReportDay) {
      const at = zonedTimeToUtc(date, WEEKLY_REPORT_LOCAL_TIME, zone);
      if (isWithin(now, at, REPORT_GRACE_MS))
        due.push({ kind: "weekly_report", periodKey: date, scheduledAt: at });
    }
    if (settings.reminders && settings.reminderDays.includes(weekday)) {
      const at = zonedTimeToUtc(date, settings.reminderTime, zone);
      if (isWithin(now, at, REMINDER_GRACE_MS))
        due.push({ kind: "reminder", periodKey: date, scheduledAt: at });
    }
  }
  return due;
}

/** Whether `now` lies in [at, at + graceMs). */
export function isWithin(now: Date, at: Date, graceMs: number): boolean {
  const t = now.getTime();
  return t >= at.getTime() && t < at.getTime() + graceMs;
}

/** The grace period of a kind of notification; news waits for no clock. */
export function graceOf(kind: string): number {
  if (kind === "weekly_report") return REPORT_GRACE_MS;
  if (kind === "reminder") return REMINDER_GRACE_MS;
  return 7 * DAY_MS;
}
