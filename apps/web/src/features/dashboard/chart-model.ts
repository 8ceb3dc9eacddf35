import {
  type ChartItem,
  type ChartPeriod,
  DASHBOARD_LIMITS,
  type DisplayUnit,
  type Intraday,
  type LocalizedText,
  METRICS,
} from "@tonus/contract";
import { buildPlotData, buildPlotOptions, type PlotSpec, SERIES_COLORS } from "./chart-options.ts";
import type { MergedSeries } from "./chunks.ts";
import { daysBetween } from "./dates.ts";
import { pick } from "./format.ts";
import { alignInstants, alignSeries, isolatedIndices, type SeriesSummary, summarize } from "./series.ts";

/** What a chart shows, prepared once its data is in: the plot, the legend and the text alternative. */
export type ChartModel = {
  plot: { options: ReturnType<typeof buildPlotOptions>; data: ReturnType<typeof buildPlotData> };
  series: {
    label: string;
    unitLabel: string;
    decimals: number;
    color: string;
    /** Per x index: the value, and for summed metrics by week or month the period's total. */
    values: (number | null)[];
    totals: (number | null)[];
    summary: SeriesSummary | null;
  }[];
  /** How many x values there are. */
  size: number;
  /**
   * The label of the x value at an index (a day, a week's first day, a month, or a time); made when
   * asked, as a year of days is 366 date formats per chart that only the legend and the table read.
   */
  labelAt: (index: number) => string;
  /** A summary's `t` (a bucket start, or an instant) as text. */
  formatT: (t: string) => string;
  /** Buckets (or samples) with any value, and all of them: "data on 18 of 30 days". */
  withData: number;
  total: number;
  /** Summed metrics by week or month show the mean per day and the period's total. */
  isPerDay: boolean;
  isIntraday: boolean;
};

export type ChartContext = {
  language: string;
  unitLabels: Map<DisplayUnit, LocalizedText>;
};

function unitLabel(context: ChartContext, unit: string): string {
  const label = context.unitLabels.get(unit as DisplayUnit);
  return label ? pick(label, context.language) : "";
}

export function buildDailyModel(
  item: ChartItem,
  merged: readonly MergedSeries[],
  range: { startDate: string; endDate: string; period: ChartPeriod; weekStart: 0 | 1 },
  context: ChartContext,
  formatX: (t: string) => string,
): ChartModel {
  const aligned = alignSeries(merged, range);
  const isBars = item.aggregate === "sum" && item.series.length === 1;
  const meta = (metric: string) => item.series.find((s) => s.metric === metric);
  const spec: PlotSpec = {
    xs: aligned.xs,
    kind: isBars ? "bars" : "line",
    axis: { kind: "days" },
    language: context.language,
    series: aligned.series.map((s) => ({
      label: meta(s.metric)
        ? pick((meta(s.metric) as ChartItem["series"][number]).label, context.language)
        : s.metric,
      values: s.values,
      isolated: s.isolated,
      decimals: meta(s.metric)?.decimals ?? 1,
      // A band says something only where buckets hold several samples (a line has no room for it).
      ...(s.hasSpread && !isBars ? { band: { mins: s.mins, maxs: s.maxs } } : {}),
    })),
  };
  return {
    plot: { options: buildPlotOptions(spec), data: buildPlotData(spec) },
    series: aligned.series.map((s, i) => {
      const m = meta(s.metric);
      return {
        label: spec.series[i]?.label ?? s.metric,
        unitLabel: unitLabel(context, merged[i]?.unit ?? m?.unit ?? ""),
        decimals: m?.decimals ?? 1,
        color: SERIES_COLORS[i % SERIES_COLORS.length] as string,
        values: s.values,
        totals: s.totals,
        summary: summarize(merged[i]?.points ?? []),
      };
    }),
    size: aligned.buckets.length,
    labelAt: (index) => {
      const bucket = aligned.buckets[index];
      return bucket === undefined ? "" : formatX(bucket);
    },
    formatT: formatX,
    withData: aligned.bucketsWithData,
    total: aligned.buckets.length,
    isPerDay: item.aggregate === "sum" && range.period !== "day",
    isIntraday: false,
  };
}

export function buildIntradayModel(
  item: ChartItem,
  intraday: Intraday,
  context: ChartContext & { timeZone: string },
  formatX: (at: string) => string,
): ChartModel {
  const { xs, values } = alignInstants(intraday.points);
  const meta = item.series[0];
  const label = meta ? pick(meta.label, context.language) : intraday.metric;
  const decimals = meta?.decimals ?? 0;
  const spec: PlotSpec = {
    xs,
    kind: "line",
    axis: { kind: "instants", timeZone: context.timeZone },
    language: context.language,
    series: [{ label, values, isolated: isolatedIndices(values), decimals }],
  };
  const points = intraday.points.map((p) => ({
    t: p.at,
    value: p.value,
    min: p.value,
    max: p.value,
    total: null,
    days: 1,
  }));
  return {
    plot: { options: buildPlotOptions(spec), data: buildPlotData(spec) },
    series: [
      {
        label,
        unitLabel: unitLabel(context, intraday.unit),
        decimals,
        color: SERIES_COLORS[0],
        values,
        totals: values.map(() => null),
        summary: summarize(points),
      },
    ],
    size: xs.length,
    labelAt: (index) => {
      const s = xs[index];
      return s === undefined || values[index] === null ? "" : formatX(new Date(s * 1000).toISOString());
    },
    formatT: formatX,
    withData: intraday.points.length,
    total: intraday.points.length,
    isPerDay: false,
    isIntraday: true,
  };
}

/**
 * Intraday samples are shown for a chart of one intraday metric (a watch's heart rate) over at most a
 * few days by day, without tag filters; the chart falls back to daily values when there are none.
 */
export function wantsIntraday(
  item: Pick<ChartItem, "series">,
  range: { startDate: string; endDate: string; period: ChartPeriod; tags: readonly string[] },
): boolean {
  const metric = item.series[0]?.metric;
  if (!metric || item.series.length !== 1) return false;
  const def = METRICS[metric];
  return (
    "intraday" in def &&
    def.intraday === true &&
    range.period === "day" &&
    range.tags.length === 0 &&
    daysBetween(range.startDate, range.endDate) < DASHBOARD_LIMITS.intradayMaxDays
  );
}
