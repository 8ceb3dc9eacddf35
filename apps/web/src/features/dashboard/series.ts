import type { ChartPeriod, ChartPoint } from "@tonus/contract";
import type { MergedSeries } from "./chunks.ts";
import { bucketsOf, dayToMs } from "./dates.ts";

/**
 * A chart's series on a full axis of buckets: a bucket without data is null, so the chart draws a gap
 * rather than a line across days nobody measured.
 */
export type AlignedSeries = {
  metric: MergedSeries["metric"];
  values: (number | null)[];
  mins: (number | null)[];
  maxs: (number | null)[];
  totals: (number | null)[];
  /** Indices of values with no neighbour on either side: drawn as dots, a line cannot show them. */
  isolated: number[];
  /** True when some bucket's lowest and highest differ, so a min–max band says something. */
  hasSpread: boolean;
};

export type AlignedChart = {
  /** Bucket starts, oldest first. */
  buckets: string[];
  /** The same as seconds of UTC midnights (uPlot's x values). */
  xs: number[];
  series: AlignedSeries[];
  /** Buckets with a value in any series. */
  bucketsWithData: number;
};

export function isolatedIndices(values: readonly (number | null)[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    if (values[i] === null) continue;
    const before = i > 0 ? values[i - 1] : null;
    const after = i < values.length - 1 ? values[i + 1] : null;
    if ((before ?? null) === null && (after ?? null) === null) out.push(i);
  }
  return out;
}

export function alignSeries(
  series: readonly MergedSeries[],
  range: { startDate: string; endDate: string; period: ChartPeriod; weekStart: 0 | 1 },
): AlignedChart {
  const buckets = bucketsOf(range.startDate, range.endDate, range.period, range.weekStart);
  const index = new Map(buckets.map((b, i) => [b, i]));
  const filled = new Set<number>();
  const aligned = series.map((s) => {
    const values: (number | null)[] = new Array(buckets.length).fill(null);
    const mins: (number | null)[] = new Array(buckets.length).fill(null);
    const maxs: (number | null)[] = new Array(buckets.length).fill(null);
    const totals: (number | null)[] = new Array(buckets.length).fill(null);
    let hasSpread = false;
    for (const p of s.points) {
      const i = index.get(p.t);
      if (i === undefined) continue;
      values[i] = p.value;
      mins[i] = p.min;
      maxs[i] = p.max;
      totals[i] = p.total;
      if (p.max > p.min) hasSpread = true;
      filled.add(i);
    }
    return { metric: s.metric, values, mins, maxs, totals, isolated: isolatedIndices(values), hasSpread };
  });
  return {
    buckets,
    xs: buckets.map((b) => dayToMs(b) / 1000),
    series: aligned,
    bucketsWithData: filled.size,
  };
}

export type SeriesSummary = {
  count: number;
  mean: number;
  lowest: { value: number; t: string };
  highest: { value: number; t: string };
  latest: { value: number; t: string };
};

/** What the text alternative says about one series: how many periods have data, mean, extremes, latest. */
export function summarize(points: readonly ChartPoint[]): SeriesSummary | null {
  const first = points[0];
  if (!first) return null;
  let sum = 0;
  let lowest = first;
  let highest = first;
  let latest = first;
  for (const p of points) {
    sum += p.value;
    if (p.value < lowest.value) lowest = p;
    if (p.value > highest.value) highest = p;
    if (p.t > latest.t) latest = p;
  }
  const at = (p: ChartPoint) => ({ value: p.value, t: p.t });
  return {
    count: points.length,
    mean: sum / points.length,
    lowest: at(lowest),
    highest: at(highest),
    latest: at(latest),
  };
}

/** Intraday samples as chart columns; a pause longer than `gapS` (the watch was off) becomes a gap. */
export function alignInstants(
  points: readonly { at: string; value: number }[],
  gapS = 15 * 60,
): { xs: number[]; values: (number | null)[] } {
  const xs: number[] = [];
  const values: (number | null)[] = [];
  let previous: number | null = null;
  for (const p of points) {
    const s = Date.parse(p.at) / 1000;
    if (!Number.isFinite(s)) continue;
    if (previous !== null && s - previous > gapS) {
      xs.push((previous + s) / 2);
      values.push(null);
    }
    xs.push(s);
    values.push(p.value);
    previous = s;
  }
  return { xs, values };
}
