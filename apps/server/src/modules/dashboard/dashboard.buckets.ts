import { type ChartPeriod, type ChartPoint, METRICS, type MetricKey } from "@tonus/contract";

/**
 * Pure date and bucket arithmetic of the chart API. Days are local calendar days as `YYYY-MM-DD`
 * strings; arithmetic runs on their UTC midnights, where every day is 24 hours long, so nothing here
 * depends on the server's zone or on daylight saving (the database already counted the instants into
 * the person's local days).
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

/** The first day of the bucket holding `day`: itself, its week's first day, or its month's first day. */
export function bucketStart(day: string, period: ChartPeriod, weekStart: 0 | 1): string {
  if (period === "day") return day;
  if (period === "month") return `${day.slice(0, 7)}-01`;
  const weekday = new Date(dayToMs(day)).getUTCDay();
  return addDays(day, -((weekday - weekStart + 7) % 7));
}

/** The start of the `i`-th bucket after the one starting at `first`. */
function bucketAt(first: string, period: ChartPeriod, i: number): string {
  if (period === "day") return addDays(first, i);
  if (period === "week") return addDays(first, 7 * i);
  const months = Number(first.slice(0, 4)) * 12 + Number(first.slice(5, 7)) - 1 + i;
  return `${Math.floor(months / 12)}-${String((months % 12) + 1).padStart(2, "0")}-01`;
}

/** How many buckets cover [from, to]. */
function bucketCount(from: string, to: string, period: ChartPeriod, weekStart: 0 | 1): number {
  const first = bucketStart(from, period, weekStart);
  if (period === "day") return daysBetween(from, to) + 1;
  if (period === "week") return Math.floor(daysBetween(first, to) / 7) + 1;
  const month = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7));
  return month(to) - month(from) + 1;
}

/** The day range of chunk `index` of [from, to], each chunk `size` buckets; null past the last. */
export function chunkRange(
  from: string,
  to: string,
  period: ChartPeriod,
  weekStart: 0 | 1,
  index: number,
  size: number,
): { from: string; to: string; chunks: number } | null {
  const count = bucketCount(from, to, period, weekStart);
  const chunks = Math.max(1, Math.ceil(count / size));
  if (index >= chunks) return null;
  const first = bucketStart(from, period, weekStart);
  const start = bucketAt(first, period, index * size);
  const end = addDays(bucketAt(first, period, Math.min(count, (index + 1) * size)), -1);
  return { from: start < from ? from : start, to: end > to ? to : end, chunks };
}

/** One (metric, day, source) summary: what `dashboard_daily` holds. */
export type DailyRow = {
  metric: string;
  day: string;
  source: string;
  n: number;
  sum: number;
  min: number;
  max: number;
  lastAtMs: number;
  lastValue: number;
};

/**
 * Keeps one source per (metric, day): the best-ranked one, ties broken by name, so the same reading
 * reported by two sources (a watch and the phone's health app) counts once.
 */
export function pickSources(
  rows: readonly DailyRow[],
  rank: (metric: string, source: string) => number,
): DailyRow[] {
  const best = new Map<string, DailyRow>();
  for (const row of rows) {
    const key = `${row.metric}\u0000${row.day}`;
    const held = best.get(key);
    if (!held) {
      best.set(key, row);
      continue;
    }
    const a = rank(row.metric, row.source);
    const b = rank(held.metric, held.source);
    if (a < b || (a === b && row.source < held.source)) best.set(key, row);
  }
  return [...best.values()];
}

/** The day's value of a summary row by the metric's aggregate. */
export function dayValue(metric: MetricKey, row: DailyRow): number {
  const aggregate = METRICS[metric].aggregate;
  if (aggregate === "sum") return row.sum;
  if (aggregate === "last") return row.lastValue;
  return row.sum / row.n;
}

/**
 * Folds one metric's chosen daily rows into period buckets (storage units). For summed metrics the
 * value is the mean per day with data and `total` the period's sum; for averaged ones the mean of all
 * samples, with the samples' extremes; for last-value metrics the last day's value. Buckets without
 * data are absent.
 */
export function bucketize(
  metric: MetricKey,
  rows: readonly DailyRow[],
  period: ChartPeriod,
  weekStart: 0 | 1,
): ChartPoint[] {
  const aggregate = METRICS[metric].aggregate;
  const groups = new Map<string, DailyRow[]>();
  for (const row of rows) {
    const key = bucketStart(row.day, period, weekStart);
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  const points: ChartPoint[] = [];
  for (const [t, days] of [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    days.sort((a, b) => (a.day < b.day ? -1 : 1));
    const values = days.map((d) => dayValue(metric, d));
    let value: number;
    let total: number | null = null;
    let min = Math.min(...values);
    let max = Math.max(...values);
    if (aggregate === "sum") {
      total = values.reduce((a, b) => a + b, 0);
      value = total / days.length;
    } else if (aggregate === "last") {
      value = values[values.length - 1] as number;
    } else {
      const n = days.reduce((a, d) => a + d.n, 0);
      value = days.reduce((a, d) => a + d.sum, 0) / n;
      min = Math.min(...days.map((d) => d.min));
      max = Math.max(...days.map((d) => d.max));
    }
    points.push({ t, value, min, max, total, days: days.length });
  }
  return points;
}
