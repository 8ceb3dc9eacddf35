import { z } from "zod";
import { InstantSchema } from "./bp.ts";
import { IsoDateSchema, LocalizedTextSchema } from "./common.ts";
import {
  CHART_ITEM_KEYS,
  type ChartItemKey,
  DISPLAY_UNITS,
  type DisplayUnit,
  ENERGY_UNITS,
  METRIC_KEYS,
  type MetricKey,
} from "./dashboard-metrics.ts";

/**
 * The charts dashboard (spec §2 /dashboard, §3 Charts, Stats table, Dashboard date picker, §4 Charts
 * data and Dashboard, §5, §6, §9). Dates are the person's local calendar days (`YYYY-MM-DD`) in the
 * time zone stored with their profile; values arrive converted to their unit system.
 */
export const DASHBOARD_LIMITS = {
  /** Spec §5: "you can't add more than 8 parameters to the table". */
  tableMaxParameters: 8,
  /** Charts on the "My graphs" tab. */
  maxCharts: 40,
  /** Spec §9: the date picker opens on the last 30 days… */
  initialRangeDays: 30,
  /** …and goes back to the last 7 days on logout. */
  resetRangeDays: 7,
  /** Spec §8 "No data for the last 12 days". */
  noDataDays: 12,
  /** Buckets per chart-data chunk (spec §4 "fetched when the last chunk arrives"). */
  chunkBuckets: 400,
  /** The longest range a chart may ask for, in days (20 years). */
  maxRangeDays: 7305,
  /** Intraday series: the longest range, in days, and the most points answered. */
  intradayMaxDays: 7,
  intradayMaxPoints: 2000,
  tablePageSize: 10,
  tableMaxPageSize: 100,
  /** Manual entries: how far in the future a time may lie (clock skew), ms. */
  maxFutureMs: 24 * 3_600_000,
} as const;

/** Spec §9 "Periods: days, weeks, months". */
export const ChartPeriodSchema = z.enum(["day", "week", "month"]);
export type ChartPeriod = z.infer<typeof ChartPeriodSchema>;

export const MetricKeySchema = z.enum(METRIC_KEYS as [MetricKey, ...MetricKey[]]);
export const ChartItemKeySchema = z.enum(CHART_ITEM_KEYS as [ChartItemKey, ...ChartItemKey[]]);
export const DisplayUnitSchema = z.enum(Object.keys(DISPLAY_UNITS) as [DisplayUnit, ...DisplayUnit[]]);

/** A data source as the charts name it; the web reads its numeric id as the second number of `url`. */
export const ChartSourceSchema = z.object({
  key: z.string(),
  name: LocalizedTextSchema,
  url: z.string(),
});
export type ChartSource = z.infer<typeof ChartSourceSchema>;

/** GET charts/sources/{id}/: one source of this person's (or the demo's) charts and what it supplies. */
export const ChartSourceDetailSchema = ChartSourceSchema.extend({
  id: z.number().int(),
  items: z.array(ChartItemKeySchema),
  last_data_day: IsoDateSchema.nullable(),
});
export type ChartSourceDetail = z.infer<typeof ChartSourceDetailSchema>;

export const ChartCategorySchema = z.object({
  id: z.string(),
  title: LocalizedTextSchema,
  order_category: z.number().int(),
});

/** One chart a person can add (spec "chart flow item"). */
export const ChartItemSchema = z.object({
  id: ChartItemKeySchema,
  title: LocalizedTextSchema,
  description: LocalizedTextSchema,
  label: LocalizedTextSchema,
  unit: z.object({ metric_label: LocalizedTextSchema, imperial_label: LocalizedTextSchema }),
  series: z.array(
    z.object({
      metric: MetricKeySchema,
      label: LocalizedTextSchema,
      unit: DisplayUnitSchema,
      decimals: z.number(),
    }),
  ),
  aggregate: z.enum(["sum", "mean", "last"]),
  categories: z.array(
    z.object({
      id: z.string(),
      title: LocalizedTextSchema,
      order_item: z.number().int(),
      order_category: z.number().int(),
    }),
  ),
  sources: z.array(z.object({ source: ChartSourceSchema })),
  /** Spec "flow-has-data flags": the person (or the demo) has at least one value for this chart. */
  has_data: z.boolean(),
  /** From HRV measurements: on the "My health data" tab, filterable by tags. */
  health_data: z.boolean(),
  /** The person may type values in (weight, water, sleep…). */
  manual: z.boolean(),
});
export type ChartItem = z.infer<typeof ChartItemSchema>;

/** GET charts/flows/: everything the dashboard can show, and what this person has. */
export const ChartFlowsSchema = z.object({
  /** True when the caller is not a customer: every answer of the dashboard is the demo's. */
  demo: z.boolean(),
  units: z.enum(["metric", "imperial"]),
  /** kcal or kJ: the unit energy values arrive in. */
  energy_unit: z.enum(ENERGY_UNITS),
  time_zone: z.string(),
  categories: z.array(ChartCategorySchema),
  /** Spec "chart_flows each with a source": the items each source supplies. */
  chart_flows: z.array(
    z.object({ id: z.string(), source: ChartSourceSchema, items: z.array(ChartItemKeySchema) }),
  ),
  items: z.array(ChartItemSchema),
  /** The local day of the newest value, or null when there is none ("No data for the last 12 days"). */
  last_data_day: IsoDateSchema.nullable(),
  /** The local day of the oldest value, or null when there is none (the date picker's "all time"). */
  first_data_day: IsoDateSchema.nullable(),
  /** Tags of the person's measurements (for the My health data filter), most used first. */
  tags: z.array(z.object({ tag: z.string(), count: z.number().int() })),
  /** The label of every display unit in both languages (entry units such as kJ or ml included). */
  unit_labels: z.record(DisplayUnitSchema, LocalizedTextSchema),
});
export type ChartFlows = z.infer<typeof ChartFlowsSchema>;

/** Tags from the query: comma-separated, measurements must carry all of them. */
const TagsQuerySchema = z.string().max(1000).optional();

const RangeQuery = {
  from: IsoDateSchema,
  to: IsoDateSchema,
  period: ChartPeriodSchema,
  /** First day of the week as in `Date#getDay()`: 1 (Monday) in Russian, 0 (Sunday) otherwise. */
  week_start: z.coerce.number().int().min(0).max(1).default(0),
  tags: TagsQuerySchema,
};

export const ChartDataQuerySchema = z.object({
  item: ChartItemKeySchema,
  ...RangeQuery,
  chunk: z.coerce.number().int().min(0).max(10_000).default(0),
});
export type ChartDataQuery = z.infer<typeof ChartDataQuerySchema>;

/**
 * One bucket of a series: `t` is the bucket's first local day. `value` is the period's value: the mean
 * per day for summed metrics (with the period's `total`), the mean of the samples for averaged ones,
 * the last value for last-value metrics. `min`/`max` are the lowest and highest sample for averaged
 * metrics and the lowest and highest daily value otherwise; `days` counts the days with data.
 */
export const ChartPointSchema = z.object({
  t: IsoDateSchema,
  value: z.number(),
  min: z.number(),
  max: z.number(),
  total: z.number().nullable(),
  days: z.number().int(),
});
export type ChartPoint = z.infer<typeof ChartPointSchema>;

export const ChartDataSchema = z.object({
  item: ChartItemKeySchema,
  period: ChartPeriodSchema,
  from: IsoDateSchema,
  to: IsoDateSchema,
  chunk: z.number().int(),
  chunks: z.number().int(),
  demo: z.boolean(),
  series: z.array(
    z.object({
      metric: MetricKeySchema,
      unit: DisplayUnitSchema,
      points: z.array(ChartPointSchema),
    }),
  ),
});
export type ChartData = z.infer<typeof ChartDataSchema>;

export const IntradayQuerySchema = z.object({
  metric: MetricKeySchema,
  from: IsoDateSchema,
  to: IsoDateSchema,
  points: z.coerce.number().int().min(10).max(DASHBOARD_LIMITS.intradayMaxPoints).default(800),
});
export type IntradayQuery = z.infer<typeof IntradayQuerySchema>;

/** Downsampled raw samples: each bucket keeps its first, lowest, highest and last sample, so peaks stay. */
export const IntradaySchema = z.object({
  metric: MetricKeySchema,
  unit: DisplayUnitSchema,
  demo: z.boolean(),
  /** Samples in the range before downsampling. */
  samples: z.number().int(),
  points: z.array(z.object({ at: z.string(), value: z.number() })),
});
export type Intraday = z.infer<typeof IntradaySchema>;

export const DashboardChartSchema = z.object({
  id: z.string(),
  item: ChartItemKeySchema,
  position: z.number().int(),
});
export type DashboardChart = z.infer<typeof DashboardChartSchema>;

/** The person's dashboard: charts of "My graphs" in order, the table's parameters, source priorities. */
export const DashboardLayoutSchema = z.object({
  demo: z.boolean(),
  charts: z.array(DashboardChartSchema),
  table_parameters: z.array(MetricKeySchema),
  /** Per metric, the person's preferred sources first; metrics not listed use the default order. */
  source_priority: z.record(z.string(), z.array(z.string())),
});
export type DashboardLayout = z.infer<typeof DashboardLayoutSchema>;

export const AddChartSchema = z.strictObject({ item: ChartItemKeySchema });
export const MoveChartSchema = z.strictObject({ direction: z.enum(["up", "down"]) });

/**
 * The table's parameters. More than 8 is refused with code `table_limit` (spec §5); the schema takes
 * up to the limit plus one so the refusal carries that code rather than a generic validation failure.
 */
export const TableParametersSchema = z.strictObject({
  parameters: z.array(MetricKeySchema).max(DASHBOARD_LIMITS.tableMaxParameters * 4),
});

const SOURCE_KEY_RE = /^[a-z][a-z0-9_.-]{0,63}$/;
export const SourcePrioritySchema = z.strictObject({
  metric: MetricKeySchema,
  /** Most preferred first; an empty list restores the default order. */
  sources: z.array(z.string().regex(SOURCE_KEY_RE)).max(50),
});

export const StatsTableQuerySchema = z.object({
  ...RangeQuery,
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce
    .number()
    .int()
    .min(1)
    .max(DASHBOARD_LIMITS.tableMaxPageSize)
    .default(DASHBOARD_LIMITS.tablePageSize),
});
export type StatsTableQuery = z.infer<typeof StatsTableQuerySchema>;

export const StatsExportQuerySchema = z.object({ ...RangeQuery, lang: z.enum(["en", "ru"]).default("en") });
export type StatsExportQuery = z.infer<typeof StatsExportQuerySchema>;

/** Spec §3 "Stats table: tableData with results, page": newest period first. */
export const StatsTableSchema = z.object({
  demo: z.boolean(),
  parameters: z.array(z.object({ metric: MetricKeySchema, unit: DisplayUnitSchema, decimals: z.number() })),
  results: z.array(z.object({ t: IsoDateSchema, values: z.record(z.string(), z.number().nullable()) })),
  page: z.number().int(),
  pages: z.number().int(),
  count: z.number().int(),
});
export type StatsTable = z.infer<typeof StatsTableSchema>;

/** A value typed in by the person, in one of the metric's entry units (converted to storage on the server). */
export const ManualValueCreateSchema = z.strictObject({
  client_id: z.uuid(),
  metric: MetricKeySchema,
  at: InstantSchema,
  value: z.number().finite(),
  unit: DisplayUnitSchema,
});
export type ManualValueCreate = z.infer<typeof ManualValueCreateSchema>;

export const ManualValueSchema = z.object({
  id: z.string(),
  client_id: z.string(),
  metric: MetricKeySchema,
  at: z.string(),
  /** In the person's display unit. */
  value: z.number(),
  unit: DisplayUnitSchema,
});
export type ManualValue = z.infer<typeof ManualValueSchema>;

export const ManualValueListQuerySchema = z.object({
  metric: MetricKeySchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const ManualValueListSchema = z.object({
  results: z.array(ManualValueSchema),
  count: z.number().int(),
});
export type ManualValueList = z.infer<typeof ManualValueListSchema>;
