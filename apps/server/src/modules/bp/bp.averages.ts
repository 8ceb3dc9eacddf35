import {
  BP_AVERAGES_MAX_DAYS,
  type BpAverage,
  type BpAverages,
  type BpAveragesQuery,
  type BpPeriod,
} from "@tonus/contract";
import { bpCategory } from "@tonus/hrv";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { type BpDayStats, dailyReadingStats } from "./bp.repo.ts";

/** Averages of the log by day, week or month (the log page's chart and cards, the doctor's view). */

const DAY_MS = 86_400_000;
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const addDays = (day: string, n: number) => dayOf(dayMs(day) + n * DAY_MS);

/** The first day of the period holding `day`: itself, its week's first day, or its month's. */
export function bucketStart(day: string, period: BpPeriod, weekStart: 0 | 1): string {
  if (period === "day") return day;
  if (period === "month") return `${day.slice(0, 7)}-01`;
  const weekday = new Date(dayMs(day)).getUTCDay();
  return addDays(day, -((weekday - weekStart + 7) % 7));
}

const round1 = (v: number) => Math.round(v * 10) / 10;

/** The average of some days' readings; null when they hold none. */
export function averageOf(days: readonly BpDayStats[]): BpAverage | null {
  let n = 0;
  let sys = 0;
  let dia = 0;
  let pulseN = 0;
  let pulse = 0;
  const range = { sysMin: Infinity, sysMax: -Infinity, diaMin: Infinity, diaMax: -Infinity };
  let pulseMin = Infinity;
  let pulseMax = -Infinity;
  for (const d of days) {
    n += d.n;
    sys += d.sys.sum;
    dia += d.dia.sum;
    range.sysMin = Math.min(range.sysMin, d.sys.min);
    range.sysMax = Math.max(range.sysMax, d.sys.max);
    range.diaMin = Math.min(range.diaMin, d.dia.min);
    range.diaMax = Math.max(range.diaMax, d.dia.max);
    if (d.pulse.n > 0) {
      pulseN += d.pulse.n;
      pulse += d.pulse.sum;
      pulseMin = Math.min(pulseMin, d.pulse.min ?? Infinity);
      pulseMax = Math.max(pulseMax, d.pulse.max ?? -Infinity);
    }
  }
  if (n === 0) return null;
  const systolic = sys / n;
  const diastolic = dia / n;
  return {
    count: n,
    systolic: { mean: round1(systolic), min: range.sysMin, max: range.sysMax },
    diastolic: { mean: round1(diastolic), min: range.diaMin, max: range.diaMax },
    pulse: pulseN > 0 ? { mean: round1(pulse / pulseN), min: pulseMin, max: pulseMax } : null,
    pulse_count: pulseN,
    // The category of the average as a person would read it: the mean pressures rounded to whole mmHg.
    category: bpCategory(Math.round(systolic), Math.round(diastolic)),
  };
}

/** Buckets, the range's average and the 7 and 30 days ending on `to`, from per-day sums. */
export function averagesOf(days: readonly BpDayStats[], q: BpAveragesQuery): BpAverages {
  const weekStart = q.week_start === 1 ? 1 : 0;
  const inRange = days.filter((d) => d.day >= q.from && d.day <= q.to);
  const groups = new Map<string, BpDayStats[]>();
  for (const d of inRange) {
    const t = bucketStart(d.day, q.period, weekStart);
    const group = groups.get(t);
    if (group) group.push(d);
    else groups.set(t, [d]);
  }
  const buckets = [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .flatMap(([t, group]) => {
      const average = averageOf(group);
      return average ? [{ t, ...average }] : [];
    });
  const since = (n: number) => averageOf(days.filter((d) => d.day > addDays(q.to, -n) && d.day <= q.to));
  return {
    from: q.from,
    to: q.to,
    period: q.period,
    buckets,
    overall: averageOf(inRange),
    last_7_days: since(7),
    last_30_days: since(30),
  };
}

/** The averages of one person's log (the owner's, or the one a share link opens). */
export async function getAverages(
  ctx: Pick<AppContext, "database">,
  userId: string,
  q: BpAveragesQuery,
): Promise<BpAverages> {
  if (q.from > q.to) throw new AppError("validation_failed", "The range ends before it starts");
  if ((dayMs(q.to) - dayMs(q.from)) / DAY_MS + 1 > BP_AVERAGES_MAX_DAYS)
    throw new AppError("validation_failed", "The range is longer than 20 years");
  const earliest = [q.from, addDays(q.to, -29)].sort()[0] as string;
  return averagesOf(await dailyReadingStats(ctx.database.db, userId, earliest, q.to), q);
}
