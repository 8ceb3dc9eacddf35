import type { BpAverage, BpAverages, BpPeriod } from "@tonus/contract";
import type { PlotSpec } from "../dashboard/chart-options.ts";
import { addDays, addMonths, dayToMs } from "../dashboard/dates.ts";
import { isolatedIndices } from "../dashboard/series.ts";

/** The ranges the log's averages and chart can show, ending today. */
export const BP_RANGES = ["last_30_days", "last_3_months", "last_year"] as const;
export type BpRange = (typeof BP_RANGES)[number];
export const BP_PERIODS: readonly BpPeriod[] = ["day", "week", "month"];

/** The local days a range covers, both ends included. */
export function rangeDays(range: BpRange, today: string): { from: string; to: string } {
  switch (range) {
    case "last_30_days":
      return { from: addDays(today, -29), to: today };
    case "last_3_months":
      return { from: addDays(addMonths(today, -3), 1), to: today };
    case "last_year":
      return { from: addDays(addMonths(today, -12), 1), to: today };
  }
}

/** A pressure as a person reads it, "128/82": whole mmHg. */
export function pressureText(average: Pick<BpAverage, "systolic" | "diastolic">): string {
  return `${Math.round(average.systolic.mean)}/${Math.round(average.diastolic.mean)}`;
}

/**
 * The chart of a range's averages: systolic, diastolic and pulse per period with readings, on a day
 * axis. Periods without readings are left out, so the lines join the periods that have them.
 */
export function averagesPlotSpec(
  averages: BpAverages,
  labels: { systolic: string; diastolic: string; pulse: string },
  language: string,
): PlotSpec {
  const buckets = averages.buckets;
  const pulse = buckets.map((b) => b.pulse?.mean ?? null);
  const systolic = buckets.map((b) => b.systolic.mean);
  const diastolic = buckets.map((b) => b.diastolic.mean);
  const hasPulse = pulse.some((v) => v !== null);
  return {
    xs: buckets.map((b) => dayToMs(b.t) / 1000),
    kind: "line",
    axis: { kind: "days" },
    language,
    series: [
      {
        label: labels.systolic,
        values: systolic,
        isolated: isolatedIndices(systolic),
        decimals: 0,
        band: { mins: buckets.map((b) => b.systolic.min), maxs: buckets.map((b) => b.systolic.max) },
      },
      {
        label: labels.diastolic,
        values: diastolic,
        isolated: isolatedIndices(diastolic),
        decimals: 0,
        band: { mins: buckets.map((b) => b.diastolic.min), maxs: buckets.map((b) => b.diastolic.max) },
      },
      ...(hasPulse
        ? [{ label: labels.pulse, values: pulse, isolated: isolatedIndices(pulse), decimals: 0 }]
        : []),
    ],
  };
}
