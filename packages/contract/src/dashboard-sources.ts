import { CHART_ITEM_KEYS, CHART_ITEMS, type MetricCategory, type MetricKey } from "./dashboard-metrics.ts";

/**
 * Which source wins when two report the same metric on one day (a watch and the phone's health app
 * both count steps): the person's own order for that metric first, then the metric's default order
 * below, then any other source by name. A source key may carry a sub-source after a dot
 * (`apple_health.watch`): a pattern for its base key covers it, and sub-sources one pattern covers alike
 * rank among themselves by the default order. A FIT file's records come under their maker's brand
 * (`garmin`, `polar`, …; `fit` for others) and Google Health's under `fitbit.google_health`.
 */

/**
 * Aggregators copy other apps' data, so they come after the devices that measured it. Apple Health's
 * samples are kept by device: where the Watch and the iPhone both counted (steps, distance, energy), the
 * Watch's day wins, as Apple Health itself prefers it; then the iPhone's; then other apps' in Health.
 */
const AGGREGATORS = [
  "samsung_health",
  "google_fit",
  "health_connect",
  "apple_health.watch",
  "apple_health.phone",
  "apple_health",
] as const;
/** Files the person uploaded: a device's own export, before the aggregators. */
const FILES = ["fit", "csv"] as const;
const WATCHES = ["garmin", "polar", "suunto", "coros", "wahoo", "fitbit", "withings"] as const;
const RINGS_AND_BANDS = ["oura", "whoop"] as const;
/** What the person typed and Tonus's own apps and automations. */
const OWN = ["manual", "companion", "ifttt"] as const;

/**
 * The default order per category of metric. HRV comes from Tonus's own measurements before anything
 * else; blood pressure from the log, then a connected monitor; sleep and recovery from the ring or band
 * made for it; body composition from the smart scale; activity from the watch that counted it.
 */
const CATEGORY_ORDER: Record<MetricCategory, readonly string[]> = {
  scores: ["measurement", ...OWN, ...WATCHES, ...RINGS_AND_BANDS, ...FILES, ...AGGREGATORS],
  hrv: ["measurement", ...OWN, "polar", ...WATCHES, ...RINGS_AND_BANDS, ...FILES, ...AGGREGATORS],
  spectrum: ["measurement", ...OWN, ...WATCHES, ...RINGS_AND_BANDS, ...FILES, ...AGGREGATORS],
  blood_pressure: ["bp_log", "measurement", ...OWN, "withings", ...WATCHES, ...FILES, ...AGGREGATORS],
  activity: [...OWN, ...WATCHES, ...RINGS_AND_BANDS, ...FILES, ...AGGREGATORS, "measurement"],
  sleep: [...OWN, ...RINGS_AND_BANDS, ...WATCHES, ...FILES, ...AGGREGATORS, "measurement"],
  body: [...OWN, "withings", ...WATCHES, ...RINGS_AND_BANDS, ...FILES, ...AGGREGATORS, "measurement"],
  nutrition: [...OWN, ...FILES, ...AGGREGATORS, ...WATCHES, ...RINGS_AND_BANDS, "measurement"],
  vitals: [...OWN, "measurement", ...RINGS_AND_BANDS, ...WATCHES, ...FILES, ...AGGREGATORS],
};

/** Heart rate through the day is best from the chest strap or watch that recorded it. */
const METRIC_ORDER: Partial<Record<MetricKey, readonly string[]>> = {
  heart_rate: [
    "measurement",
    "manual",
    "polar",
    "garmin",
    "suunto",
    "coros",
    "wahoo",
    "fitbit",
    "withings",
    ...RINGS_AND_BANDS,
    "companion",
    "ifttt",
    ...FILES,
    ...AGGREGATORS,
  ],
};

function categoryOf(metric: MetricKey): MetricCategory {
  const item = CHART_ITEM_KEYS.find((k) => (CHART_ITEMS[k].series as readonly string[]).includes(metric));
  return item ? (CHART_ITEMS[item].categories[0] as MetricCategory) : "vitals";
}

const cache = new Map<MetricKey, readonly string[]>();

/** The default source order of one metric, most trusted first (without duplicates). */
export function defaultSourceOrder(metric: MetricKey): readonly string[] {
  let order = cache.get(metric);
  if (!order) {
    order = [...new Set(METRIC_ORDER[metric] ?? CATEGORY_ORDER[categoryOf(metric)])];
    cache.set(metric, order);
  }
  return order;
}

/**
 * A source's rank for one metric (lower wins): its place in the person's order, else after those in
 * the default order, else last. Equal ranks are broken by source key by the caller.
 */
export function sourceRank(
  source: string,
  preferred: readonly string[],
  defaults: readonly string[],
): number {
  const find = (list: readonly string[]) => list.findIndex((p) => source === p || source.startsWith(`${p}.`));
  const own = find(preferred);
  const known = find(defaults);
  const byDefault = known >= 0 ? known : defaults.length;
  // Sub-sources the person's own pattern covers alike (`apple_health` for the Watch and the iPhone) keep
  // the default order among themselves.
  if (own >= 0) return own + byDefault / (defaults.length + 1);
  return preferred.length + byDefault;
}

/** The sources of one metric in the order they win: the person's order, then the default, then by key. */
export function orderSources(
  metric: MetricKey,
  sources: readonly string[],
  preferred: readonly string[] = [],
): string[] {
  const defaults = defaultSourceOrder(metric);
  return [...sources].sort(
    (a, b) =>
      sourceRank(a, preferred, defaults) - sourceRank(b, preferred, defaults) || (a < b ? -1 : a > b ? 1 : 0),
  );
}
