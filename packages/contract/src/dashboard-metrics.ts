/**
 * The dashboard's metrics and display units (spec §3 Charts, Metric labels, Units). Every value is
 * stored in its metric's storage unit — SI where there is one: seconds, metres, kilograms, joules,
 * litres; heart rate in bpm, pressures in mmHg, proportions in %, scores 0–100 — and converted to the
 * person's unit system (profile `units`: metric or imperial) only for display and entry. The server,
 * the web app and the importers share these keys.
 */

/** How one day's samples of a metric become the day's value. */
export type MetricAggregate =
  /** Summed over the day (steps, energy, sleep, water): a week or month shows the mean per day. */
  | "sum"
  /** The mean of the day's samples (heart rate, HRV, scores). */
  | "mean"
  /** The day's last sample (body weight, height). */
  | "last";

/** Display units. `factor` and `offset` turn the storage value into this unit: `v * factor + offset`. */
export const DISPLAY_UNITS = {
  none: { factor: 1, offset: 0 },
  score: { factor: 1, offset: 0 },
  percent: { factor: 1, offset: 0 },
  bpm: { factor: 1, offset: 0 },
  ms: { factor: 1000, offset: 0 },
  ms2: { factor: 1e6, offset: 0 },
  beats: { factor: 1, offset: 0 },
  steps: { factor: 1, offset: 0 },
  km: { factor: 0.001, offset: 0 },
  mi: { factor: 1 / 1609.344, offset: 0 },
  m: { factor: 1, offset: 0 },
  kcal: { factor: 1 / 4184, offset: 0 },
  kj: { factor: 0.001, offset: 0 },
  h: { factor: 1 / 3600, offset: 0 },
  min: { factor: 1 / 60, offset: 0 },
  l: { factor: 1, offset: 0 },
  ml: { factor: 1000, offset: 0 },
  fl_oz: { factor: 1 / 0.0295735295625, offset: 0 },
  g: { factor: 1000, offset: 0 },
  oz: { factor: 1 / 0.028349523125, offset: 0 },
  kg: { factor: 1, offset: 0 },
  lb: { factor: 1 / 0.45359237, offset: 0 },
  cm: { factor: 100, offset: 0 },
  ft: { factor: 1 / 0.3048, offset: 0 },
  in: { factor: 1 / 0.0254, offset: 0 },
  mmhg: { factor: 1, offset: 0 },
  per_min: { factor: 1, offset: 0 },
  celsius: { factor: 1, offset: 0 },
  fahrenheit: { factor: 9 / 5, offset: 32 },
} as const satisfies Record<string, { factor: number; offset: number }>;
export type DisplayUnit = keyof typeof DISPLAY_UNITS;

/** Chart categories in display order (`order_category`). */
export const METRIC_CATEGORIES = [
  "scores",
  "hrv",
  "spectrum",
  "blood_pressure",
  "activity",
  "sleep",
  "body",
  "nutrition",
  "vitals",
] as const;
export type MetricCategory = (typeof METRIC_CATEGORIES)[number];

export type MetricDef = {
  aggregate: MetricAggregate;
  /** Display units in the metric and imperial systems. */
  units: { metric: DisplayUnit; imperial: DisplayUnit };
  /** Decimals shown in the display unit. */
  decimals: number;
  /** Plausible range in the storage unit: values outside are refused at entry and import. */
  range: readonly [number, number];
  /** Written by HRV measurements: the "My health data" tab, filterable by measurement tags. */
  health?: boolean;
  /** A person may type it in on the dashboard (weight, water, sleep…). */
  manual?: boolean;
  /** Arrives as an intraday series (a watch's heart rate every few seconds). */
  intraday?: boolean;
  /** Further units a value may be typed in besides the metric and imperial ones (kJ, ml, feet…). */
  entry?: readonly DisplayUnit[];
};

const score = { aggregate: "mean", units: { metric: "score", imperial: "score" }, decimals: 0 } as const;
const hrvMs = { aggregate: "mean", units: { metric: "ms", imperial: "ms" }, decimals: 1 } as const;
const hrvMs2 = { aggregate: "mean", units: { metric: "ms2", imperial: "ms2" }, decimals: 0 } as const;
const index = (decimals: number) =>
  ({ aggregate: "mean", units: { metric: "none", imperial: "none" }, decimals }) as const;
const percent = (aggregate: MetricAggregate, decimals = 1) =>
  ({ aggregate, units: { metric: "percent", imperial: "percent" }, decimals }) as const;
const bpm = { aggregate: "mean", units: { metric: "bpm", imperial: "bpm" }, decimals: 0 } as const;
const energy = {
  aggregate: "sum",
  units: { metric: "kcal", imperial: "kcal" },
  decimals: 0,
  entry: ["kj"],
} as const;
const mass = { aggregate: "last", units: { metric: "kg", imperial: "lb" }, decimals: 1 } as const;
const distance = {
  aggregate: "sum",
  units: { metric: "km", imperial: "mi" },
  decimals: 2,
  entry: ["m"],
} as const;
const sleepStage = { aggregate: "sum", units: { metric: "h", imperial: "h" }, decimals: 1 } as const;
const mmhg = { aggregate: "mean", units: { metric: "mmhg", imperial: "mmhg" }, decimals: 0 } as const;

/** Every metric the dashboard knows, keyed as stored (`dashboard_values.metric`). */
export const METRICS = {
  // Scores of an HRV measurement (Tonus's documented formulas, 0–100).
  stress: { ...score, range: [0, 100], health: true },
  energy: { ...score, range: [0, 100], health: true },
  productivity: { ...score, range: [0, 100], health: true },
  // Time domain and Baevsky's indices of a measurement.
  heart_rate: { ...bpm, range: [20, 250], health: true, manual: true, intraday: true },
  meanrr: { ...hrvMs, range: [0.2, 3], health: true },
  stdrr: { ...hrvMs, range: [0, 1], health: true },
  rmssd: { ...hrvMs, range: [0, 1], health: true },
  pnn50: { ...percent("mean"), range: [0, 100], health: true },
  mxdmn: { ...hrvMs, decimals: 0, range: [0, 3], health: true },
  amo: { ...percent("mean"), range: [0, 100], health: true },
  psi: { ...index(0), range: [0, 100_000], health: true },
  pvi: { ...index(0), range: [0, 100_000], health: true },
  total_beats: {
    aggregate: "mean",
    units: { metric: "beats", imperial: "beats" },
    decimals: 0,
    range: [0, 20_000],
    health: true,
  },
  // Frequency domain (more than 280 beats).
  power: { ...hrvMs2, range: [0, 1], health: true },
  vlf: { ...hrvMs2, range: [0, 1], health: true },
  lf: { ...hrvMs2, range: [0, 1], health: true },
  hf: { ...hrvMs2, range: [0, 1], health: true },
  lfhf: { ...index(2), range: [0, 1000], health: true },
  // Blood pressure: readings from the log, indices of the measurement near a reading.
  bp_systolic: { ...mmhg, range: [60, 300] },
  bp_diastolic: { ...mmhg, range: [30, 200] },
  /** The pulse written with a blood-pressure reading (the log's), apart from measured heart rate. */
  bp_pulse: { ...bpm, range: [25, 250] },
  kerdo: { ...index(0), range: [-1000, 100], health: true },
  robinson: { ...index(0), range: [0, 1000], health: true },
  functional_changes: { ...index(2), range: [0, 10], health: true },
  kek: { ...index(0), range: [0, 100_000], health: true },
  kvas: { ...index(1), range: [0, 1000], health: true },
  phys_state: { ...index(2), range: [-10, 10], health: true },
  // Activity.
  steps: {
    aggregate: "sum",
    units: { metric: "steps", imperial: "steps" },
    decimals: 0,
    range: [0, 200_000],
    manual: true,
  },
  distance: { ...distance, range: [0, 500_000], manual: true },
  distance_cycling: { ...distance, range: [0, 1_000_000] },
  active_energy: { ...energy, range: [0, 50_000_000], manual: true },
  basal_energy: { ...energy, range: [0, 50_000_000] },
  // Workouts, at their start: duration, distance and energy.
  workout_duration: {
    aggregate: "sum",
    units: { metric: "min", imperial: "min" },
    decimals: 0,
    range: [0, 86_400],
  },
  workout_distance: { ...distance, range: [0, 1_000_000] },
  workout_energy: { ...energy, range: [0, 50_000_000] },
  // Sleep, in seconds per session.
  sleep: {
    aggregate: "sum",
    units: { metric: "h", imperial: "h" },
    decimals: 1,
    range: [0, 86_400],
    manual: true,
  },
  sleep_deep: { ...sleepStage, range: [0, 86_400] },
  sleep_rem: { ...sleepStage, range: [0, 86_400] },
  sleep_awake: { ...sleepStage, range: [0, 86_400] },
  sleep_in_bed: { ...sleepStage, range: [0, 86_400] },
  // Body.
  weight: { ...mass, range: [1, 700], manual: true },
  height: {
    aggregate: "last",
    units: { metric: "cm", imperial: "in" },
    decimals: 1,
    range: [0.3, 2.8],
    manual: true,
    entry: ["ft"],
  },
  body_fat: { ...percent("last"), range: [1, 80], manual: true },
  body_water: { ...percent("last"), range: [10, 90] },
  muscle_mass: { ...mass, range: [1, 300] },
  bone_mass: { ...mass, range: [0.1, 20] },
  fat_mass: { ...mass, range: [0.1, 500] },
  // Nutrition.
  water: {
    aggregate: "sum",
    units: { metric: "l", imperial: "fl_oz" },
    decimals: 2,
    range: [0, 20],
    manual: true,
    entry: ["ml"],
  },
  carbohydrates: {
    aggregate: "sum",
    units: { metric: "g", imperial: "oz" },
    decimals: 0,
    range: [0, 3],
    manual: true,
  },
  // Vitals from watches and rings.
  resting_heart_rate: { ...bpm, range: [20, 200], manual: true },
  walking_heart_rate: { ...bpm, range: [20, 250] },
  sdnn: { ...hrvMs, range: [0, 1] },
  spo2: { ...percent("mean"), range: [50, 100], manual: true },
  respiratory_rate: {
    aggregate: "mean",
    units: { metric: "per_min", imperial: "per_min" },
    decimals: 1,
    range: [1, 80],
  },
  skin_temperature: {
    aggregate: "mean",
    units: { metric: "celsius", imperial: "fahrenheit" },
    decimals: 1,
    range: [20, 45],
    manual: true,
  },
} as const satisfies Record<string, MetricDef>;

export type MetricKey = keyof typeof METRICS;
export const METRIC_KEYS = Object.keys(METRICS) as MetricKey[];

export function isMetricKey(key: string): key is MetricKey {
  return Object.hasOwn(METRICS, key);
}

/** A chart (spec "chart flow item"): one or more series of metrics under one title. */
export type ChartItemDef = { series: readonly MetricKey[]; categories: readonly MetricCategory[] };

/**
 * The charts a person can add, in display order within each category (`order_item`). Single-metric
 * charts use the metric's key; two combine series: blood pressure (systolic and diastolic) and
 * calories (active and basal energy burned).
 */
export const CHART_ITEMS = {
  stress: { series: ["stress"], categories: ["scores"] },
  energy: { series: ["energy"], categories: ["scores"] },
  productivity: { series: ["productivity"], categories: ["scores"] },
  heart_rate: { series: ["heart_rate"], categories: ["hrv", "vitals"] },
  rmssd: { series: ["rmssd"], categories: ["hrv"] },
  stdrr: { series: ["stdrr"], categories: ["hrv"] },
  meanrr: { series: ["meanrr"], categories: ["hrv"] },
  pnn50: { series: ["pnn50"], categories: ["hrv"] },
  mxdmn: { series: ["mxdmn"], categories: ["hrv"] },
  amo: { series: ["amo"], categories: ["hrv"] },
  psi: { series: ["psi"], categories: ["hrv"] },
  pvi: { series: ["pvi"], categories: ["hrv"] },
  total_beats: { series: ["total_beats"], categories: ["hrv"] },
  power: { series: ["power"], categories: ["spectrum"] },
  vlf: { series: ["vlf"], categories: ["spectrum"] },
  lf: { series: ["lf"], categories: ["spectrum"] },
  hf: { series: ["hf"], categories: ["spectrum"] },
  lfhf: { series: ["lfhf"], categories: ["spectrum"] },
  blood_pressure: { series: ["bp_systolic", "bp_diastolic"], categories: ["blood_pressure"] },
  bp_pulse: { series: ["bp_pulse"], categories: ["blood_pressure"] },
  kerdo: { series: ["kerdo"], categories: ["blood_pressure"] },
  robinson: { series: ["robinson"], categories: ["blood_pressure"] },
  functional_changes: { series: ["functional_changes"], categories: ["blood_pressure"] },
  kek: { series: ["kek"], categories: ["blood_pressure"] },
  kvas: { series: ["kvas"], categories: ["blood_pressure"] },
  phys_state: { series: ["phys_state"], categories: ["blood_pressure"] },
  steps: { series: ["steps"], categories: ["activity"] },
  distance: { series: ["distance"], categories: ["activity"] },
  distance_cycling: { series: ["distance_cycling"], categories: ["activity"] },
  calories: { series: ["active_energy", "basal_energy"], categories: ["activity"] },
  workouts: { series: ["workout_duration"], categories: ["activity"] },
  workout_distance: { series: ["workout_distance"], categories: ["activity"] },
  workout_energy: { series: ["workout_energy"], categories: ["activity"] },
  sleep: { series: ["sleep", "sleep_deep", "sleep_rem"], categories: ["sleep"] },
  sleep_in_bed: { series: ["sleep_in_bed"], categories: ["sleep"] },
  sleep_awake: { series: ["sleep_awake"], categories: ["sleep"] },
  weight: { series: ["weight"], categories: ["body"] },
  height: { series: ["height"], categories: ["body"] },
  body_fat: { series: ["body_fat"], categories: ["body"] },
  body_water: { series: ["body_water"], categories: ["body"] },
  muscle_mass: { series: ["muscle_mass"], categories: ["body"] },
  bone_mass: { series: ["bone_mass"], categories: ["body"] },
  fat_mass: { series: ["fat_mass"], categories: ["body"] },
  water: { series: ["water"], categories: ["nutrition"] },
  carbohydrates: { series: ["carbohydrates"], categories: ["nutrition"] },
  resting_heart_rate: { series: ["resting_heart_rate"], categories: ["vitals"] },
  walking_heart_rate: { series: ["walking_heart_rate"], categories: ["vitals"] },
  sdnn: { series: ["sdnn"], categories: ["vitals"] },
  spo2: { series: ["spo2"], categories: ["vitals"] },
  respiratory_rate: { series: ["respiratory_rate"], categories: ["vitals"] },
  skin_temperature: { series: ["skin_temperature"], categories: ["vitals"] },
} as const satisfies Record<string, ChartItemDef>;

export type ChartItemKey = keyof typeof CHART_ITEMS;
export const CHART_ITEM_KEYS = Object.keys(CHART_ITEMS) as ChartItemKey[];

export function isChartItemKey(key: string): key is ChartItemKey {
  return Object.hasOwn(CHART_ITEMS, key);
}

export type UnitSystem = "metric" | "imperial";

/** Spec §3 Units "kcal variants": energy is shown in kilocalories or kilojoules, as the person chooses. */
export const ENERGY_UNITS = ["kcal", "kj"] as const;
export type EnergyUnit = (typeof ENERGY_UNITS)[number];

/** The display unit of `metric` in a unit system (energy metrics in the person's energy unit). */
export function displayUnitOf(
  metric: MetricKey,
  system: UnitSystem,
  energy: EnergyUnit = "kcal",
): DisplayUnit {
  const unit: DisplayUnit = METRICS[metric].units[system];
  return unit === "kcal" ? energy : unit;
}

/** A storage value in a display unit (not rounded). */
export function toDisplayUnit(value: number, unit: DisplayUnit): number {
  const u = DISPLAY_UNITS[unit];
  return value * u.factor + u.offset;
}

/** A value typed in a display unit, back in the storage unit. */
export function fromDisplayUnit(value: number, unit: DisplayUnit): number {
  const u = DISPLAY_UNITS[unit];
  return (value - u.offset) / u.factor;
}

/** The display units a manual entry of `metric` may be typed in: its metric and imperial units, then the others. */
export function entryUnitsOf(metric: MetricKey): DisplayUnit[] {
  const def: MetricDef = METRICS[metric];
  return [...new Set<DisplayUnit>([def.units.metric, def.units.imperial, ...(def.entry ?? [])])];
}
