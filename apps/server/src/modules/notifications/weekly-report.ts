import type { AppContext } from "../../lib/context.ts";
import { dailyValuesOf } from "../dashboard/dashboard.service.ts";
import { listMeasurements } from "../measurements/measurements.service.ts";
import { localDate, reportWeek } from "./notifications.schedule.ts";

/** The report's four series; HRV is rMSSD in ms, stress and energy are 0–100 scores, sleep in seconds. */
export const REPORT_METRICS = ["rmssd", "stress", "energy", "sleep"] as const;
export type ReportMetric = (typeof REPORT_METRICS)[number];

export type ReportDay = { date: string; measurements: number } & Record<ReportMetric, number | null>;

export type WeeklyReport = {
  /** The seven local days, oldest first. */
  days: ReportDay[];
  /** The mean over the days that have a value (each day counts once), or null. */
  averages: Record<ReportMetric, number | null>;
  measurementCount: number;
  /** No measurement and no sleep value in the whole week. */
  isEmpty: boolean;
};

const PAGE = 200;

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/**
 * The week before `sendDate` (local dates in `timeZone`): measurements through the measurements module,
 * sleep as the dashboard counts it (metric `sleep`, seconds, one source per day). Days are local
 * calendar days, so a DST week
 * has one 23- or 25-hour day and every value still lands on the day the person lived it.
 */
export async function buildWeeklyReport(
  ctx: Pick<AppContext, "database">,
  userId: string,
  sendDate: string,
  timeZone: string,
): Promise<WeeklyReport> {
  const week = reportWeek(sendDate, timeZone);
  const perDay = new Map(
    week.days.map((date) => [
      date,
      { rmssd: [] as number[], stress: [] as number[], energy: [] as number[] },
    ]),
  );
  let measurementCount = 0;
  const counts = new Map<string, number>();
  for (let offset = 0; ; offset += PAGE) {
    const page = await listMeasurements(ctx, userId, {
      from: week.from.toISOString(),
      to: week.to.toISOString(),
      limit: PAGE,
      offset,
    });
    for (const m of page.results) {
      const date = localDate(new Date(m.started_at), timeZone);
      const bucket = perDay.get(date);
      if (!bucket) continue;
      measurementCount++;
      counts.set(date, (counts.get(date) ?? 0) + 1);
      if (m.rmssd !== null) bucket.rmssd.push(m.rmssd);
      if (m.stress !== null) bucket.stress.push(m.stress);
      if (m.energy !== null) bucket.energy.push(m.energy);
    }
    if (page.results.length < PAGE) break;
  }
  const sleep = await dailyValuesOf(
    ctx,
    userId,
    "sleep",
    week.days[0] as string,
    week.days[week.days.length - 1] as string,
  );
  const days: ReportDay[] = week.days.map((date) => {
    const b = perDay.get(date);
    return {
      date,
      measurements: counts.get(date) ?? 0,
      rmssd: mean(b?.rmssd ?? []),
      stress: mean(b?.stress ?? []),
      energy: mean(b?.energy ?? []),
      sleep: sleep.get(date) ?? null,
    };
  });
  const averages = Object.fromEntries(
    REPORT_METRICS.map((metric) => [
      metric,
      mean(days.map((d) => d[metric]).filter((v): v is number => v !== null)),
    ]),
  ) as Record<ReportMetric, number | null>;
  return {
    days,
    averages,
    measurementCount,
    isEmpty: measurementCount === 0 && days.every((d) => d.sleep === null),
  };
}
