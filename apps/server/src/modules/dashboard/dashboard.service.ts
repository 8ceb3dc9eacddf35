import {
  CHART_ITEM_KEYS,
  CHART_ITEMS,
  type ChartData,
  type ChartDataQuery,
  type ChartFlows,
  type ChartItem,
  type ChartItemKey,
  type ChartPeriod,
  type ChartPoint,
  type ChartSourceDetail,
  DASHBOARD_LIMITS,
  defaultSourceOrder,
  displayUnitOf,
  type EnergyUnit,
  type Intraday,
  type IntradayQuery,
  isMetricKey,
  METRIC_CATEGORIES,
  METRICS,
  type MetricKey,
  sourceRank,
  toDisplayUnit,
  type UnitSystem,
} from "@tonus/contract";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { getEntitlements } from "../entitlements/entitlements.service.ts";
import {
  listMeasurementMetrics,
  listMeasurementTags,
  parseTagFilter,
} from "../measurements/measurements.service.ts";
import {
  addDays,
  bucketize,
  chunkRange,
  type DailyRow,
  daysBetween,
  dayValue,
  pickSources,
} from "./dashboard.buckets.ts";
import { DEMO_SOURCE, demoDataFor } from "./dashboard.demo.ts";
import { dailyRows, findSettings, intradayPoints, metricSources } from "./dashboard.repo.ts";
import {
  CATEGORY_TITLES,
  itemDescription,
  itemTitle,
  METRIC_LABELS,
  sourceName,
  UNIT_LABELS,
} from "./dashboard.texts.ts";

type Ctx = Pick<AppContext, "config" | "database">;

/** Who is looking: a customer sees their own data; everyone else (and visitors) the demo (spec §6). */
export type Viewer = {
  userId: string | null;
  demo: boolean;
  units: UnitSystem;
  /** kcal or kJ for energy metrics. */
  energy: EnergyUnit;
  tz: string;
  /** Per metric, the person's preferred sources. */
  priority: Record<string, string[]>;
};

export async function resolveViewer(ctx: Ctx, userId: string | null): Promise<Viewer> {
  const demo = {
    userId: null,
    demo: true,
    units: "metric",
    energy: "kcal",
    tz: "UTC",
    priority: {},
  } satisfies Viewer;
  if (!userId) return demo;
  const [user] = await ctx.database.db
    .select({ units: users.units, energy: users.energyUnit, tz: users.timezone })
    .from(users)
    .where(eq(users.id, userId));
  if (!user) return demo;
  const units: UnitSystem = user.units === "imperial" ? "imperial" : "metric";
  const energy: EnergyUnit = user.energy === "kj" ? "kj" : "kcal";
  const { is_customer } = await getEntitlements(ctx, userId);
  if (!is_customer) return { ...demo, units, energy, tz: user.tz };
  const settings = await findSettings(ctx.database.db, userId);
  return { userId, demo: false, units, energy, tz: user.tz, priority: settings?.sourcePriority ?? {} };
}

/** Today's local calendar day in `tz`. */
export function localDay(tz: string, at = new Date()): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: tz,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(at);
}

/**
 * Which source wins a (metric, day): the person's order for the metric, then its default order. The
 * summaries read here are kept right by every write (and built for older data by a migration), so
 * reading never writes (RELIABILITY S3).
 */
export function rankFor(priority: Record<string, string[]>) {
  return (metric: string, source: string) =>
    sourceRank(source, priority[metric] ?? [], isMetricKey(metric) ? defaultSourceOrder(metric) : []);
}

const isHealth = (metric: MetricKey) => "health" in METRICS[metric] && METRICS[metric].health === true;

/** Daily rows of health metrics from the measurements carrying every tag (the tag filter's path). */
async function taggedRows(
  ctx: Ctx,
  viewer: Viewer,
  metrics: readonly MetricKey[],
  from: string,
  to: string,
  tags: string[],
): Promise<DailyRow[]> {
  const wanted = new Set<string>(metrics);
  let list: { day: string; atMs: number; metrics: Record<string, number | null> }[];
  if (viewer.demo) {
    list = demoDataFor(localDay(viewer.tz)).measurements.filter((m) => tags.every((t) => m.tags.includes(t)));
  } else {
    // Instants a day wider than the local range on each side; the local day decides below.
    const rows = await listMeasurementMetrics(ctx.database.db, viewer.userId as string, {
      from: new Date(`${addDays(from, -1)}T00:00:00Z`),
      to: new Date(`${addDays(to, 2)}T00:00:00Z`),
      tags,
    });
    const day = new Intl.DateTimeFormat("en-CA", {
      timeZone: viewer.tz,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    list = rows.map((r) => ({ day: day.format(r.at), atMs: r.at.getTime(), metrics: r.metrics }));
  }
  const out = new Map<string, DailyRow>();
  for (const m of list) {
    if (m.day < from || m.day > to) continue;
    for (const [metric, value] of Object.entries(m.metrics)) {
      if (!wanted.has(metric) || value === null || !Number.isFinite(value)) continue;
      const key = `${metric}\u0000${m.day}`;
      const row = out.get(key);
      if (!row) {
        out.set(key, {
          metric,
          day: m.day,
          source: "measurement",
          n: 1,
          sum: value,
          min: value,
          max: value,
          lastAtMs: m.atMs,
          lastValue: value,
        });
      } else {
        row.n += 1;
        row.sum += value;
        row.min = Math.min(row.min, value);
        row.max = Math.max(row.max, value);
        if (m.atMs >= row.lastAtMs) {
          row.lastAtMs = m.atMs;
          row.lastValue = value;
        }
      }
    }
  }
  return [...out.values()];
}

/** One source per (metric, day) of `metrics` in [from, to], from the summaries, the demo or tagged measurements. */
async function chosenDailyRows(
  ctx: Ctx,
  viewer: Viewer,
  metrics: readonly MetricKey[],
  from: string,
  to: string,
  tags: string[],
): Promise<DailyRow[]> {
  const tagged = tags.length ? metrics.filter(isHealth) : [];
  const plain = metrics.filter((m) => !tagged.includes(m));
  const rows: DailyRow[] = [];
  if (tagged.length) rows.push(...(await taggedRows(ctx, viewer, tagged, from, to, tags)));
  if (plain.length) {
    if (viewer.demo) {
      const set = new Set<string>(plain);
      rows.push(
        ...demoDataFor(localDay(viewer.tz)).daily.filter(
          (r) => set.has(r.metric) && r.day >= from && r.day <= to,
        ),
      );
    } else {
      rows.push(...(await dailyRows(ctx.database.db, viewer.userId as string, plain, from, to)));
    }
  }
  return pickSources(rows, rankFor(viewer.priority));
}

function displayPoints(metric: MetricKey, points: ChartPoint[], viewer: Viewer): ChartPoint[] {
  const unit = displayUnitOf(metric, viewer.units, viewer.energy);
  const show = (v: number) => toDisplayUnit(v, unit);
  return points.map((p) => ({
    ...p,
    value: show(p.value),
    min: show(p.min),
    max: show(p.max),
    total: p.total === null ? null : show(p.total),
  }));
}

function checkRange(from: string, to: string): void {
  if (from > to) throw new AppError("validation_failed", "The range ends before it starts");
  if (daysBetween(from, to) > DASHBOARD_LIMITS.maxRangeDays)
    throw new AppError("validation_failed", "The range is longer than 20 years");
}

/** Buckets of every metric in [from, to], in display units, keyed by metric. */
export async function seriesOf(
  ctx: Ctx,
  viewer: Viewer,
  metrics: readonly MetricKey[],
  q: { from: string; to: string; period: ChartPeriod; week_start: number; tags?: string | undefined },
): Promise<Map<MetricKey, ChartPoint[]>> {
  const rows = await chosenDailyRows(ctx, viewer, metrics, q.from, q.to, parseTagFilter(q.tags));
  const weekStart = q.week_start === 1 ? 1 : 0;
  const out = new Map<MetricKey, ChartPoint[]>();
  for (const metric of metrics) {
    const mine = rows.filter((r) => r.metric === metric);
    out.set(metric, displayPoints(metric, bucketize(metric, mine, q.period, weekStart), viewer));
  }
  return out;
}

/** One chunk of a chart (spec §4 "Charts data: fetched when the last chunk arrives"). */
export async function getChartData(ctx: Ctx, viewer: Viewer, q: ChartDataQuery): Promise<ChartData> {
  checkRange(q.from, q.to);
  const weekStart = q.week_start === 1 ? 1 : 0;
  const range = chunkRange(q.from, q.to, q.period, weekStart, q.chunk, DASHBOARD_LIMITS.chunkBuckets);
  if (!range) throw new AppError("validation_failed", "There is no such chunk");
  const metrics = CHART_ITEMS[q.item].series;
  const series = await seriesOf(ctx, viewer, metrics, { ...q, from: range.from, to: range.to });
  return {
    item: q.item,
    period: q.period,
    from: range.from,
    to: range.to,
    chunk: q.chunk,
    chunks: range.chunks,
    demo: viewer.demo,
    series: metrics.map((metric) => ({
      metric,
      unit: displayUnitOf(metric, viewer.units, viewer.energy),
      points: series.get(metric) ?? [],
    })),
  };
}

/**
 * Raw samples of a short range, downsampled keeping peaks (the demo has no intraday series), from each
 * day's winning source as the daily charts pick it.
 */
export async function getIntraday(ctx: Ctx, viewer: Viewer, q: IntradayQuery): Promise<Intraday> {
  checkRange(q.from, q.to);
  if (daysBetween(q.from, q.to) >= DASHBOARD_LIMITS.intradayMaxDays)
    throw new AppError(
      "validation_failed",
      `Intraday ranges are at most ${DASHBOARD_LIMITS.intradayMaxDays} days`,
    );
  const unit = displayUnitOf(q.metric, viewer.units, viewer.energy);
  if (viewer.demo) return { metric: q.metric, unit, demo: true, samples: 0, points: [] };
  const userId = viewer.userId as string;
  // Each day's samples come from the source the daily charts chose for that day.
  const winners = pickSources(
    await dailyRows(ctx.database.db, userId, [q.metric], q.from, q.to),
    rankFor(viewer.priority),
  ).map((r) => ({ day: r.day, source: r.source }));
  // Four samples per bucket at most (first, lowest, highest, last).
  const { samples, points } = await intradayPoints(
    ctx.database.db,
    userId,
    q.metric,
    { from: q.from, to: q.to, tz: viewer.tz, winners },
    Math.max(1, Math.floor(q.points / 4)),
  );
  return {
    metric: q.metric,
    unit,
    demo: false,
    samples,
    points: points.map((p) => ({ at: new Date(p.atMs).toISOString(), value: toDisplayUnit(p.value, unit) })),
  };
}

/** A stable numeric id of a source key (spec: "source entries … whose second number becomes the id"). */
export function sourceNumber(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 1) % 1_000_000_000;
}

export function chartSource(key: string) {
  return { key, name: sourceName(key), url: `/dashboard_api/v1/charts/sources/${sourceNumber(key)}/` };
}

function itemOf(key: ChartItemKey, viewer: Viewer, sources: readonly string[]): ChartItem {
  const def = CHART_ITEMS[key];
  const first = def.series[0] as MetricKey;
  return {
    id: key,
    title: itemTitle(key, first),
    description: itemDescription(key),
    label: METRIC_LABELS[first],
    unit: {
      metric_label: UNIT_LABELS[displayUnitOf(first, "metric", viewer.energy)],
      imperial_label: UNIT_LABELS[displayUnitOf(first, "imperial", viewer.energy)],
    },
    series: def.series.map((metric) => ({
      metric,
      label: METRIC_LABELS[metric],
      unit: displayUnitOf(metric, viewer.units, viewer.energy),
      decimals: METRICS[metric].decimals,
    })),
    aggregate: METRICS[first].aggregate,
    categories: def.categories.map((c) => ({
      id: c,
      title: CATEGORY_TITLES[c],
      order_item:
        CHART_ITEM_KEYS.filter((k) => (CHART_ITEMS[k].categories as readonly string[]).includes(c)).indexOf(
          key,
        ) + 1,
      order_category: METRIC_CATEGORIES.indexOf(c) + 1,
    })),
    sources: sources.map((s) => ({ source: chartSource(s) })),
    has_data: sources.length > 0,
    health_data: def.series.some(isHealth),
    manual: def.series.some((s) => "manual" in METRICS[s] && METRICS[s].manual === true),
  };
}

/** The catalogue with this person's (or the demo's) has-data flags, sources, last day and tags. */
export async function getFlows(ctx: Ctx, viewer: Viewer): Promise<ChartFlows> {
  let pairs: { metric: string; source: string; first_day: string; last_day: string }[];
  let tags: { tag: string; count: number }[];
  if (viewer.demo) {
    const demo = demoDataFor(localDay(viewer.tz));
    const span = new Map<string, { first_day: string; last_day: string }>();
    for (const r of demo.daily) {
      const held = span.get(r.metric);
      if (!held) span.set(r.metric, { first_day: r.day, last_day: r.day });
      else {
        if (r.day < held.first_day) held.first_day = r.day;
        if (r.day > held.last_day) held.last_day = r.day;
      }
    }
    pairs = [...span.entries()].map(([metric, days]) => ({ metric, source: DEMO_SOURCE, ...days }));
    const counts = new Map<string, number>();
    for (const m of demo.measurements) for (const t of m.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
    tags = [...counts.entries()]
      .map(([tag, count]) => ({ tag, count }))
      .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : 1));
  } else {
    const userId = viewer.userId as string;
    pairs = await metricSources(ctx.database.db, userId);
    tags = await listMeasurementTags(ctx.database.db, userId);
  }
  const sourcesOf = (item: ChartItemKey) => {
    const series = new Set<string>(CHART_ITEMS[item].series);
    return [...new Set(pairs.filter((p) => series.has(p.metric)).map((p) => p.source))].sort();
  };
  const items = CHART_ITEM_KEYS.map((key) => itemOf(key, viewer, sourcesOf(key)));
  const flowSources = [...new Set(pairs.map((p) => p.source))].sort();
  return {
    demo: viewer.demo,
    units: viewer.units,
    energy_unit: viewer.energy,
    time_zone: viewer.tz,
    categories: METRIC_CATEGORIES.map((c, i) => ({
      id: c,
      title: CATEGORY_TITLES[c],
      order_category: i + 1,
    })),
    chart_flows: flowSources.map((source) => ({
      id: source,
      source: chartSource(source),
      items: items.filter((i) => i.sources.some((s) => s.source.key === source)).map((i) => i.id),
    })),
    items,
    last_data_day: pairs.reduce<string | null>(
      (last, p) => (last === null || p.last_day > last ? p.last_day : last),
      null,
    ),
    first_data_day: pairs.reduce<string | null>(
      (first, p) => (first === null || p.first_day < first ? p.first_day : first),
      null,
    ),
    tags,
    unit_labels: UNIT_LABELS,
  };
}

/** One source of the viewer's charts by its numeric id, or not found. */
export async function getChartSource(ctx: Ctx, viewer: Viewer, id: number): Promise<ChartSourceDetail> {
  const flows = await getFlows(ctx, viewer);
  const flow = flows.chart_flows.find((f) => sourceNumber(f.id) === id);
  if (!flow) throw new AppError("not_found", "Not found");
  const items = new Set<string>(flow.items);
  const metrics = new Set(
    flows.items.filter((i) => items.has(i.id)).flatMap((i) => i.series.map((s) => s.metric)),
  );
  const last = viewer.demo
    ? flows.last_data_day
    : (await metricSources(ctx.database.db, viewer.userId as string))
        .filter((p) => p.source === flow.id && metrics.has(p.metric as MetricKey))
        .reduce<string | null>((max, p) => (max === null || p.last_day > max ? p.last_day : max), null);
  return { ...flow.source, id, items: flow.items, last_data_day: last };
}

/**
 * One metric's daily values of a person between two local days (storage units), one source per day as
 * the charts choose it, whatever their plan: for other modules (the weekly e-mail report).
 */
export async function dailyValuesOf(
  ctx: Pick<AppContext, "database">,
  userId: string,
  metric: MetricKey,
  from: string,
  to: string,
): Promise<Map<string, number>> {
  const settings = await findSettings(ctx.database.db, userId);
  const rank = rankFor(settings?.sourcePriority ?? {});
  const rows = pickSources(await dailyRows(ctx.database.db, userId, [metric], from, to), rank);
  return new Map(rows.map((r) => [r.day, dayValue(metric, r)]));
}
