// Metrics and units of CSV columns: a header such as `Weight (kg)`, `Heart rate variability (ms)` or
// `Energy burned (cal)` names both; the unit converts the value to the metric's storage unit.
import type { Unit } from "../types.ts";

/** A metric's storage unit and the source units accepted for it, with their factors. */
type MetricDef = { unit: Unit; from: Record<string, number>; defaultFrom: string };

const TIME = { ms: 0.001, s: 1, sec: 1, min: 60, h: 3600, hr: 3600 };
const MASS = { kg: 1, g: 0.001, lb: 0.45359237, lbs: 0.45359237, st: 6.35029318 };
// Fitness apps write "cal" and "Cal" for kilocalories; nobody logs food or workouts in small calories.
const ENERGY = { kcal: 4184, cal: 4184, kj: 1000, j: 1 };
const LENGTH = { m: 1, km: 1000, mi: 1609.344, ft: 0.3048, cm: 0.01 };

/** Metrics a CSV column can be mapped to. */
export const CSV_METRICS: Record<string, MetricDef> = {
  heart_rate: { unit: "bpm", from: { bpm: 1 }, defaultFrom: "bpm" },
  resting_heart_rate: { unit: "bpm", from: { bpm: 1 }, defaultFrom: "bpm" },
  rmssd: { unit: "s", from: TIME, defaultFrom: "ms" },
  sdnn: { unit: "s", from: TIME, defaultFrom: "ms" },
  rr: { unit: "ms", from: { ms: 1, s: 1000 }, defaultFrom: "ms" },
  steps: { unit: "count", from: { count: 1, steps: 1 }, defaultFrom: "count" },
  distance: { unit: "m", from: LENGTH, defaultFrom: "m" },
  active_energy: { unit: "J", from: ENERGY, defaultFrom: "kcal" },
  weight: { unit: "kg", from: MASS, defaultFrom: "kg" },
  muscle_mass: { unit: "kg", from: MASS, defaultFrom: "kg" },
  bone_mass: { unit: "kg", from: MASS, defaultFrom: "kg" },
  fat_mass: { unit: "kg", from: MASS, defaultFrom: "kg" },
  body_fat: { unit: "%", from: { "%": 1 }, defaultFrom: "%" },
  height: { unit: "m", from: LENGTH, defaultFrom: "m" },
  spo2: { unit: "%", from: { "%": 1 }, defaultFrom: "%" },
  respiratory_rate: {
    unit: "1/min",
    from: { rpm: 1, "1/min": 1, "br/min": 1, "breaths/min": 1 },
    defaultFrom: "rpm",
  },
  sleep: { unit: "s", from: TIME, defaultFrom: "s" },
  skin_temperature: { unit: "degC", from: { celsius: 1, c: 1, "°c": 1, degc: 1 }, defaultFrom: "celsius" },
  bp_systolic: { unit: "mmHg", from: { mmhg: 1 }, defaultFrom: "mmhg" },
  bp_diastolic: { unit: "mmHg", from: { mmhg: 1 }, defaultFrom: "mmhg" },
};

/** The unit written in a header's parentheses or after its last space-free token: `Weight (kg)` → `kg`. */
export function unitInHeader(header: string): string | undefined {
  const m = /\(([^)]+)\)\s*$/.exec(header) ?? /\[([^\]]+)\]\s*$/.exec(header);
  if (m) return (m[1] as string).trim().toLowerCase();
  if (/%\s*$/.test(header)) return "%";
  return undefined;
}

/** Words in a header that suggest a metric, most specific first. */
const HEADER_HINTS: [RegExp, string][] = [
  [/resting.*(heart|hr)|(heart|hr).*rest/i, "resting_heart_rate"],
  [/rmssd|heart rate variability|\bhrv\b/i, "rmssd"],
  [/sdnn/i, "sdnn"],
  [/systolic/i, "bp_systolic"],
  [/diastolic/i, "bp_diastolic"],
  [/heart.?rate|\bpulse\b|\bbpm\b|\bhr\b/i, "heart_rate"],
  [/\bsteps?\b/i, "steps"],
  [/distance/i, "distance"],
  [/energy|calor/i, "active_energy"],
  [/muscle/i, "muscle_mass"],
  [/bone/i, "bone_mass"],
  [/fat mass/i, "fat_mass"],
  [/fat/i, "body_fat"],
  [/weight|body mass/i, "weight"],
  [/height/i, "height"],
  [/spo2|oxygen/i, "spo2"],
  [/respirat/i, "respiratory_rate"],
  [/sleep|asleep/i, "sleep"],
  [/temp/i, "skin_temperature"],
];

/** The metric a header most likely holds, or undefined. */
export function metricForHeader(header: string): string | undefined {
  return HEADER_HINTS.find(([re]) => re.test(header))?.[1];
}

/**
 * Converts `value` written in `fromUnit` (a header unit; the metric's usual unit when absent) to the
 * metric's storage unit; undefined for an unknown metric or a unit it does not accept.
 */
export function convertCsvValue(metric: string, value: number, fromUnit?: string): number | undefined {
  const def = CSV_METRICS[metric];
  if (!def) return undefined;
  const factor =
    def.from[(fromUnit ?? def.defaultFrom).toLowerCase()] ?? def.from[fromUnit ?? def.defaultFrom];
  return factor === undefined ? undefined : value * factor;
}

/** The storage unit of `metric`. */
export function storageUnit(metric: string): Unit | undefined {
  return CSV_METRICS[metric]?.unit;
}
