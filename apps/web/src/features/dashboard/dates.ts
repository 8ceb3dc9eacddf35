import { type ChartPeriod, DASHBOARD_LIMITS } from "@tonus/contract";

/**
 * Calendar-day arithmetic of the dashboard. Days are the person's local days as `YYYY-MM-DD` (the
 * server counts instants into them in the profile's time zone); arithmetic runs on their UTC
 * midnights, where every day has 24 hours, so nothing here depends on the browser's zone or on
 * daylight saving. Buckets and chunks mirror the server's (modules/dashboard/dashboard.buckets.ts).
 */

const DAY_MS = 86_400_000;

export function dayToMs(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
}

export function msToDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function addDays(day: string, days: number): string {
  return msToDay(dayToMs(day) + days * DAY_MS);
}

/** Whole days from `a` to `b` (positive when `b` is later). */
export function daysBetween(a: string, b: string): number {
  return Math.round((dayToMs(b) - dayToMs(a)) / DAY_MS);
}

/** The same day `months` months later, clamped to the month's last day (31 Mar − 1 month = 28/29 Feb). */
export function addMonths(day: string, months: number): string {
  const total = Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1 + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const date = Math.min(Number(day.slice(8, 10)), lastDay);
  return msToDay(Date.UTC(year, month, date));
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** True for a real calendar day written `YYYY-MM-DD` (not 2025-02-30). */
export function isIsoDay(text: string): boolean {
  return ISO_DAY.test(text) && msToDay(dayToMs(text)) === text;
}

/** Today's calendar day in a time zone (the profile's; the demo's is UTC). */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  try {
    return new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    }).format(now);
  } catch {
    return now.toISOString().slice(0, 10);
  }
}

/** The first day of the bucket holding `day`: itself, its week's first day, or its month's first day. */
export function bucketStart(day: string, period: ChartPeriod, weekStart: 0 | 1): string {
  if (period === "day") return day;
  if (period === "month") return `${day.slice(0, 7)}-01`;
  const weekday = new Date(dayToMs(day)).getUTCDay();
  return addDays(day, -((weekday - weekStart + 7) % 7));
}

/** Days in a month (`month` 1–12) of the proleptic Gregorian calendar. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * Bucket starts covering [from, to], oldest first: the chart's x axis, gaps included. Counted on the
 * calendar rather than through Date objects: a year of days for a dozen charts on every render adds up.
 */
export function bucketsOf(from: string, to: string, period: ChartPeriod, weekStart: 0 | 1): string[] {
  const start = bucketStart(from, period, weekStart);
  let year = Number(start.slice(0, 4));
  let month = Number(start.slice(5, 7));
  let day = Number(start.slice(8, 10));
  const step = period === "week" ? 7 : 1;
  const out: string[] = [];
  for (;;) {
    const text = `${year}-${pad2(month)}-${pad2(day)}`;
    if (text > to) return out;
    out.push(text);
    if (period === "month") {
      month += 1;
    } else {
      day += step;
      const length = daysInMonth(year, month);
      if (day > length) {
        day -= length;
        month += 1;
      }
    }
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
}

/** How many buckets cover [from, to] (the length of `bucketsOf`, without listing them). */
export function bucketCount(from: string, to: string, period: ChartPeriod, weekStart: 0 | 1): number {
  if (to < from) return 0;
  if (period === "day") return daysBetween(from, to) + 1;
  if (period === "week") return Math.floor(daysBetween(bucketStart(from, "week", weekStart), to) / 7) + 1;
  const months = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7));
  return months(to) - months(from) + 1;
}

/** How many chunks the server splits [from, to] into (spec §4 "fetched when the last chunk arrives"). */
export function chunkCount(from: string, to: string, period: ChartPeriod, weekStart: 0 | 1): number {
  return Math.max(1, Math.ceil(bucketCount(from, to, period, weekStart) / DASHBOARD_LIMITS.chunkBuckets));
}
