// Apple Health (HealthKit) type identifiers and units → Tonus metrics in storage units. HealthKit's unit
// strings are those of HKUnit (`count/min`, `kcal`, `mL`, `%` as a fraction 0–1, …).
import type { Unit } from "../types.ts";

/** How one HealthKit quantity type is stored. */
export type QuantityMapping = { metric: string; unit: Unit; family: UnitFamily };

type UnitFamily =
  | "rate"
  | "time"
  | "count"
  | "length"
  | "energy"
  | "mass"
  | "volume"
  | "fraction"
  | "pressure";

/** Factor from a HealthKit unit to the family's storage unit, by family. */
const UNIT_FACTORS: Record<UnitFamily, Record<string, number>> = {
  rate: { "count/min": 1, "count/s": 60 },
  time: { ms: 0.001, s: 1, min: 60, hr: 3600 },
  count: { count: 1 },
  length: { m: 1, km: 1000, cm: 0.01, mm: 0.001, mi: 1609.344, ft: 0.3048, in: 0.0254, yd: 0.9144 },
  energy: { J: 1, kJ: 1000, kcal: 4184, Cal: 4184, cal: 4.184 },
  mass: { kg: 1, g: 0.001, mg: 1e-6, lb: 0.45359237, oz: 0.028349523125, st: 6.35029318 },
  volume: {
    L: 1,
    mL: 0.001,
    dL: 0.1,
    fl_oz_us: 0.0295735295625,
    fl_oz_imp: 0.0284130625,
    cup_us: 0.2365882365,
  },
  // HealthKit stores percentages as fractions with unit "%": 0.97 means 97 %.
  fraction: { "%": 100 },
  pressure: { mmHg: 1, cmAq: 0.735559, kPa: 7.50062 },
};

/** Quantity types Tonus stores. */
export const QUANTITY_TYPES: Record<string, QuantityMapping> = {
  HKQuantityTypeIdentifierHeartRate: { metric: "heart_rate", unit: "bpm", family: "rate" },
  HKQuantityTypeIdentifierRestingHeartRate: { metric: "resting_heart_rate", unit: "bpm", family: "rate" },
  HKQuantityTypeIdentifierWalkingHeartRateAverage: {
    metric: "walking_heart_rate",
    unit: "bpm",
    family: "rate",
  },
  HKQuantityTypeIdentifierHeartRateVariabilitySDNN: { metric: "sdnn", unit: "s", family: "time" },
  HKQuantityTypeIdentifierStepCount: { metric: "steps", unit: "count", family: "count" },
  HKQuantityTypeIdentifierDistanceWalkingRunning: { metric: "distance", unit: "m", family: "length" },
  HKQuantityTypeIdentifierDistanceCycling: { metric: "distance_cycling", unit: "m", family: "length" },
  HKQuantityTypeIdentifierActiveEnergyBurned: { metric: "active_energy", unit: "J", family: "energy" },
  HKQuantityTypeIdentifierBasalEnergyBurned: { metric: "basal_energy", unit: "J", family: "energy" },
  HKQuantityTypeIdentifierBodyMass: { metric: "weight", unit: "kg", family: "mass" },
  HKQuantityTypeIdentifierHeight: { metric: "height", unit: "m", family: "length" },
  HKQuantityTypeIdentifierBodyFatPercentage: { metric: "body_fat", unit: "%", family: "fraction" },
  HKQuantityTypeIdentifierBloodPressureSystolic: { metric: "bp_systolic", unit: "mmHg", family: "pressure" },
  HKQuantityTypeIdentifierBloodPressureDiastolic: {
    metric: "bp_diastolic",
    unit: "mmHg",
    family: "pressure",
  },
  HKQuantityTypeIdentifierDietaryWater: { metric: "water", unit: "L", family: "volume" },
  HKQuantityTypeIdentifierDietaryCarbohydrates: { metric: "carbohydrates", unit: "kg", family: "mass" },
  HKQuantityTypeIdentifierOxygenSaturation: { metric: "spo2", unit: "%", family: "fraction" },
  HKQuantityTypeIdentifierRespiratoryRate: { metric: "respiratory_rate", unit: "1/min", family: "rate" },
};

/** The sleep category type and its stages (HKCategoryValueSleepAnalysis…). */
export const SLEEP_TYPE = "HKCategoryTypeIdentifierSleepAnalysis";
export const SLEEP_STAGES: Record<string, string> = {
  HKCategoryValueSleepAnalysisInBed: "in_bed",
  HKCategoryValueSleepAnalysisAsleep: "asleep",
  HKCategoryValueSleepAnalysisAsleepUnspecified: "asleep",
  HKCategoryValueSleepAnalysisAwake: "awake",
  HKCategoryValueSleepAnalysisAsleepCore: "core",
  HKCategoryValueSleepAnalysisAsleepDeep: "deep",
  HKCategoryValueSleepAnalysisAsleepREM: "rem",
};

export const BLOOD_PRESSURE_CORRELATION = "HKCorrelationTypeIdentifierBloodPressure";

/**
 * `table[key]` if `table` has it itself: the file names the key, and a plain object also answers
 * `toString` or `__proto__` from its prototype (which made a Record of type "toString" throw).
 */
export function lookUp<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** The factor from HealthKit `unit` to the mapping's storage unit; undefined for a foreign unit. */
export function unitFactor(mapping: QuantityMapping, unit: string): number | undefined {
  return lookUp(UNIT_FACTORS[mapping.family], unit);
}

/** Factor of a workout's duration, distance or energy unit to s, m or J. */
export function workoutFactor(
  family: "time" | "length" | "energy",
  unit: string | undefined,
): number | undefined {
  return unit === undefined ? undefined : lookUp(UNIT_FACTORS[family], unit);
}

/** `HKWorkoutActivityTypeTraditionalStrengthTraining` → `traditional_strength_training`. */
export function activityName(type: string | undefined): string {
  if (!type) return "other";
  const bare = type.replace(/^HKWorkoutActivityType/, "");
  return (
    bare
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .replace(/[^A-Za-z0-9_]/g, "")
      .toLowerCase() || "other"
  );
}

/**
 * Parses HealthKit's export date `2023-01-05 07:30:00 +0100` to ms UTC; NaN when it is not one.
 * Hand-written because `Date.parse` does not accept this form everywhere and is slow.
 */
export function parseHealthDate(s: string): number {
  if (s.length < 19) return Number.NaN;
  const d = (i: number) => {
    const c = s.charCodeAt(i) - 48;
    return c >= 0 && c <= 9 ? c : Number.NaN;
  };
  const year = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3);
  const month = d(5) * 10 + d(6);
  const day = d(8) * 10 + d(9);
  const hour = d(11) * 10 + d(12);
  const minute = d(14) * 10 + d(15);
  const second = d(17) * 10 + d(18);
  let offsetMin = 0;
  if (s.length >= 25) {
    const sign = s[20] === "-" ? -1 : s[20] === "+" ? 1 : 0;
    if (sign === 0) return Number.NaN;
    offsetMin = sign * ((d(21) * 10 + d(22)) * 60 + d(23) * 10 + d(24));
  }
  // A NaN digit makes the sum NaN: one check for all of them.
  if (Number.isNaN(year + month + day + hour + minute + second + offsetMin)) return Number.NaN;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23) {
    return Number.NaN;
  }
  if (minute > 59 || second > 60 || s[4] !== "-" || s[7] !== "-" || s[13] !== ":") return Number.NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second) - offsetMin * 60000;
}
