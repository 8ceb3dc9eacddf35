// Metrics and units of CSV columns: a header such as `Weight (kg)`, `Heart rate variability (ms)` or
// `Energy burned (cal)` names both; the unit converts the value to the metric's storage unit.
import type { Unit } from "../types.ts";

/** A metric's storage unit and the source units accepted for it, with their factors. */
type MetricDef = { unit: Unit; from: Record<string, number>; defaultFrom: string };

// Russian spellings sit beside the Latin ones: Russian Excel files write `Вес (кг)`, `Сон (ч)`.
const TIME = {
  ms: 0.001,
  s: 1,
  sec: 1,
  secs: 1,
  seconds: 1,
  min: 60,
  mins: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  мс: 0.001,
  с: 1,
  сек: 1,
  секунды: 1,
  секунд: 1,
  мин: 60,
  минуты: 60,
  минут: 60,
  ч: 3600,
  час: 3600,
  часа: 3600,
  часы: 3600,
  часов: 3600,
};
const POUND = 0.45359237;
const MASS = {
  kg: 1,
  g: 0.001,
  lb: POUND,
  lbs: POUND,
  st: 6.35029318,
  кг: 1,
  г: 0.001,
  фунт: POUND,
  фунты: POUND,
  фунтов: POUND,
};
// Fitness apps write "cal" and "Cal" for kilocalories; nobody logs food or workouts in small calories.
const ENERGY = { kcal: 4184, cal: 4184, kj: 1000, j: 1, ккал: 4184, кал: 4184, кдж: 1000 };
const MILE = 1609.344;
const LENGTH = {
  m: 1,
  km: 1000,
  mi: MILE,
  miles: MILE,
  ft: 0.3048,
  in: 0.0254,
  cm: 0.01,
  м: 1,
  км: 1000,
  см: 0.01,
  мили: MILE,
  миль: MILE,
  дюймы: 0.0254,
  дюймов: 0.0254,
};
const PULSE = { bpm: 1, "уд/мин": 1 };
const MMHG = { mmhg: 1, "мм рт. ст.": 1, "мм рт.ст.": 1 };

/** Metrics a CSV column can be mapped to. */
export const CSV_METRICS: Record<string, MetricDef> = {
  heart_rate: { unit: "bpm", from: PULSE, defaultFrom: "bpm" },
  resting_heart_rate: { unit: "bpm", from: PULSE, defaultFrom: "bpm" },
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
  // "°с" with a Cyrillic "с", as Russian keyboards type it.
  skin_temperature: {
    unit: "degC",
    from: { celsius: 1, c: 1, "°c": 1, degc: 1, "°с": 1 },
    defaultFrom: "celsius",
  },
  bp_systolic: { unit: "mmHg", from: MMHG, defaultFrom: "mmhg" },
  bp_diastolic: { unit: "mmHg", from: MMHG, defaultFrom: "mmhg" },
};

/** Every unit some metric accepts, lower-case. */
const KNOWN_UNITS = new Set(Object.values(CSV_METRICS).flatMap((d) => Object.keys(d.from)));

/**
 * The unit a header names: in parentheses or brackets at its end (`Weight (kg)` → `kg`), a trailing `%`,
 * or after its last comma when that is a known unit, as Russian spreadsheets write it (`Вес, кг`,
 * `Height, cm`).
 */
export function unitInHeader(header: string): string | undefined {
  const m = /\(([^)]+)\)\s*$/.exec(header) ?? /\[([^\]]+)\]\s*$/.exec(header);
  if (m) return (m[1] as string).trim().toLowerCase();
  if (/%\s*$/.test(header)) return "%";
  const afterComma = /,\s*([^,]+?)\s*$/.exec(header)?.[1]?.toLowerCase();
  return afterComma !== undefined && KNOWN_UNITS.has(afterComma) ? afterComma : undefined;
}

/**
 * Words in a header that suggest a metric, English and Russian, most specific first: variability before
 * resting ("ВСР в покое", "Resting HRV"), resting before any heart rate, body parts' masses before body
 * fat and weight. `\b` does not see Cyrillic letters (they are not `\w`): a Russian word that must stand
 * alone ("вес", not in "весь"; "рост", not in "скорость") is fenced by `(?<!\p{L})` and `(?!\p{L})`.
 */
const HEADER_HINTS: [RegExp, string][] = [
  [/rmssd|heart rate variability|\bhrv\b|(?<!\p{L})вср(?!\p{L})|вариабельн/iu, "rmssd"],
  [/resting.*(heart|hr)|(heart|hr).*rest|в покое|(пульс|чсс).*покоя/iu, "resting_heart_rate"],
  [/sdnn/i, "sdnn"],
  [/systolic|систолич|(?<!\p{L})верхнее(?!\p{L})/iu, "bp_systolic"],
  [/diastolic|диастолич|(?<!\p{L})нижнее(?!\p{L})/iu, "bp_diastolic"],
  [/heart.?rate|\bpulse\b|\bbpm\b|\bhr\b|пульс|чсс|сердечн/iu, "heart_rate"],
  [/\bsteps?\b|(?<!\p{L})шаг(и|ов)?(?!\p{L})/iu, "steps"],
  [/distance|расстояни|дистанци/iu, "distance"],
  [/energy|calor|калори|энерги|(?<!\p{L})ккал(?!\p{L})/iu, "active_energy"],
  [/muscle|мышечная масса/iu, "muscle_mass"],
  [/bone|костная масса/iu, "bone_mass"],
  [/fat mass|жировая масса/iu, "fat_mass"],
  [/fat|жир/iu, "body_fat"],
  [/weight|body mass|(?<!\p{L})вес(?!\p{L})|масса тела/iu, "weight"],
  [/height|(?<!\p{L})рост(?!\p{L})/iu, "height"],
  [/spo2|oxygen|кислород|сатурац/iu, "spo2"],
  [/respirat|дыхани/iu, "respiratory_rate"],
  [/sleep|asleep|(?<!\p{L})(сон|сна)(?!\p{L})/iu, "sleep"],
  [/temp|температур/iu, "skin_temperature"],
];

/**
 * The unit to read a column of `metric` in, from its header: the header's unit, unless it is one of
 * another measure (a "Distance (km)" column chosen as energy), which the metric's usual unit replaces.
 * A unit no measure knows stays, so the import refuses it rather than guess.
 */
export function headerUnitFor(metric: string, header: string): string | undefined {
  const unit = unitInHeader(header);
  if (unit === undefined || convertCsvValue(metric, 1, unit) !== undefined) return unit;
  return KNOWN_UNITS.has(unit) ? undefined : unit;
}

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
