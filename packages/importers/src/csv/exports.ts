// The CSV exports people have, recognised from their first lines: Samsung Health, Oura, Whoop, Withings,
// Fitbit (Google Takeout CSVs) and Google Fit daily metrics. Each is a column mapping over the CSV engine;
// Fitbit's JSON files go to the JSON reader.
import { peek } from "../chunks.ts";
import { createReport, createSession, fail } from "../report.ts";
import type { ImportOptions, ImportRecord, ImportReport, ImportSession } from "../types.ts";
import { type CsvImportOptions, type CsvMapping, runCsv } from "./csv-import.ts";
import { runFitbitJson } from "./fitbit-json.ts";
import type { TextOptions } from "./text.ts";

/** Export formats {@link importHealthExport} knows. */
export type CsvExportFormat =
  | "samsung_health"
  | "oura"
  | "whoop"
  | "withings"
  | "fitbit"
  | "google_fit"
  | "fitbit_json";

type Profile = Omit<CsvImportOptions, "mapping" | "source" | "signal" | "encoding"> & { mapping: CsvMapping };

/** Samsung Health: a metadata line (`com.samsung.health.heart_rate,6313011,12`), then prefixed headers. */
function samsungProfile(dataType: string): Profile | undefined {
  const base = {
    format: "csv.samsung_health",
    skipLines: 1,
    // `com.samsung.health.heart_rate.start_time` → `start_time`
    normalizeHeader: (h: string) => h.slice(h.lastIndexOf(".") + 1),
  };
  // Samsung Health keeps start_time in UTC and the local offset apart (time_offset): no shift applied.
  const time = { time: "start_time", endTime: "end_time" };
  if (/heart_rate/.test(dataType))
    return { ...base, mapping: { ...time, columns: [{ column: "heart_rate", metric: "heart_rate" }] } };
  if (/step_count|pedometer/.test(dataType)) {
    return {
      ...base,
      mapping: {
        ...time,
        columns: [
          { column: "count", metric: "steps" },
          { column: "distance", metric: "distance", unit: "m" },
          { column: "calorie", metric: "active_energy", unit: "kcal" },
        ],
      },
    };
  }
  if (/weight/.test(dataType)) {
    return {
      ...base,
      mapping: {
        ...time,
        columns: [
          { column: "weight", metric: "weight", unit: "kg" },
          { column: "body_fat", metric: "body_fat", unit: "%" },
          { column: "skeletal_muscle_mass", metric: "muscle_mass", unit: "kg" },
        ],
      },
    };
  }
  if (/oxygen_saturation/.test(dataType))
    return { ...base, mapping: { ...time, columns: [{ column: "spo2", metric: "spo2" }] } };
  if (/blood_pressure/.test(dataType)) {
    return {
      ...base,
      mapping: { ...time, columns: [], bp: { systolic: "systolic", diastolic: "diastolic", pulse: "pulse" } },
    };
  }
  return undefined;
}

const PROFILES: Record<Exclude<CsvExportFormat, "samsung_health" | "fitbit_json">, Profile> = {
  // Oura's trends export: one row per day.
  oura: {
    format: "csv.oura",
    mapping: {
      time: "date",
      columns: [
        { column: "Average Resting Heart Rate", metric: "resting_heart_rate" },
        { column: "Average HRV", metric: "rmssd", unit: "ms" },
        { column: "Total Sleep Duration", metric: "sleep", unit: "s" },
        { column: "Steps", metric: "steps" },
        { column: "Respiratory Rate", metric: "respiratory_rate" },
      ],
    },
  },
  // Whoop's physiological_cycles.csv: local times with the cycle's zone beside them.
  whoop: {
    format: "csv.whoop",
    mapping: {
      time: "Cycle start time",
      endTime: "Cycle end time",
      offsetColumn: "Cycle timezone",
      columns: [
        { column: "Resting heart rate (bpm)", metric: "resting_heart_rate" },
        { column: "Heart rate variability (ms)", metric: "rmssd" },
        { column: "Blood oxygen %", metric: "spo2" },
        { column: "Skin temp (celsius)", metric: "skin_temperature" },
        { column: "Respiratory rate (rpm)", metric: "respiratory_rate" },
        { column: "Asleep duration (min)", metric: "sleep" },
        { column: "Energy burned (cal)", metric: "active_energy" },
      ],
    },
  },
  // Withings weight.csv and bp.csv: local times without a zone (pass timezoneOffsetMin).
  withings: {
    format: "csv.withings",
    mapping: {
      time: "Date",
      columns: [
        { column: "Weight (kg)", metric: "weight" },
        { column: "Weight (lb)", metric: "weight" },
        { column: "Fat mass (kg)", metric: "fat_mass" },
        { column: "Bone mass (kg)", metric: "bone_mass" },
        { column: "Muscle mass (kg)", metric: "muscle_mass" },
      ],
      bp: { systolic: "Systolic", diastolic: "Diastolic", pulse: "Heart rate" },
    },
  },
  // Fitbit's Google Takeout CSVs (HRV summaries, sleep scores, heart rate): ISO timestamps.
  fitbit: {
    format: "csv.fitbit",
    mapping: {
      time: "timestamp",
      columns: [
        { column: "rmssd", metric: "rmssd", unit: "ms" },
        { column: "resting_heart_rate", metric: "resting_heart_rate" },
        { column: "beats per minute", metric: "heart_rate" },
        { column: "steps", metric: "steps" },
      ],
    },
  },
  // Google Fit's "Daily activity metrics.csv".
  google_fit: {
    format: "csv.google_fit",
    mapping: {
      time: "Date",
      timeFormat: "iso",
      columns: [
        { column: "Step count", metric: "steps" },
        { column: "Distance (m)", metric: "distance" },
        { column: "Calories (kcal)", metric: "active_energy" },
        { column: "Average weight (kg)", metric: "weight" },
      ],
    },
  },
};

/** Recognises an export from its first lines (BOM already stripped). */
export function detectExportFormat(head: string): { format: CsvExportFormat; dataType?: string } | undefined {
  const lines = head.split(/\r?\n/, 3);
  const first = lines[0] ?? "";
  if (/^\s*\[/.test(head)) return { format: "fitbit_json" };
  if (first.startsWith("com.samsung."))
    return { format: "samsung_health", dataType: first.split(",")[0] ?? "" };
  const h = first.toLowerCase();
  if (h.includes("cycle start time")) return { format: "whoop" };
  if (/^"?date"?[,;]/.test(h) && (h.includes("readiness score") || h.includes("sleep score")))
    return { format: "oura" };
  // Google Fit's daily metrics also hold "Average weight (kg)": told apart by its step count first, and
  // Withings only by a column that is the weight itself.
  if (/^"?date"?[,;]/.test(h) && h.includes("step count")) return { format: "google_fit" };
  if (/^"?date"?[,;]/.test(h) && (/[,;]"?weight \((kg|lb)\)/.test(h) || h.includes("systolic")))
    return { format: "withings" };
  if (/^"?timestamp"?[,;]/.test(h)) return { format: "fitbit" };
  return undefined;
}

/** Options of {@link importHealthExport}. */
export type HealthExportOptions = ImportOptions &
  TextOptions & {
    /** Skip detection. */
    format?: CsvExportFormat;
    /** File name, which tells Fitbit JSON files apart (`steps-2023-01-01.json`). */
    fileName?: string;
    /** Offset (minutes east of UTC) for exports that write local time without a zone (Withings). */
    timezoneOffsetMin?: number;
    /** Unit of Fitbit JSON weights (the account's unit: `kg` or `lb`). Default `kg`. */
    fitbitWeightUnit?: "kg" | "lb";
  };

/**
 * Imports one file of a known export (format detected from its first lines unless given). A file in
 * no known format ends with fatal `unknown_format`: the generic `importCsv` with a mapping from
 * `previewCsv` is the way for those.
 */
export function importHealthExport(
  input: AsyncIterable<Uint8Array>,
  options: HealthExportOptions = {},
): ImportSession {
  const report = createReport("csv");
  return createSession(report, run(input, options, report));
}

async function* run(
  input: AsyncIterable<Uint8Array>,
  options: HealthExportOptions,
  report: ImportReport,
): AsyncGenerator<ImportRecord[], void, undefined> {
  const { head, replay } = await peek(input, 4096);
  const text = new TextDecoder("utf-8").decode(head).replace(/^\uFEFF/, "");
  const found = options.format
    ? { format: options.format, dataType: text.split(/[,\r\n]/, 1)[0] }
    : detectExportFormat(text);
  if (!found) {
    report.done = true;
    fail(report, { reason: head.length === 0 ? "empty_file" : "unknown_format", line: 1 });
    return;
  }
  // Fitbit's JSON files are Fitbit's data like its CSVs: one source, so the same value is stored once.
  const source = options.source ?? (found.format === "fitbit_json" ? "fitbit" : found.format);
  if (found.format === "fitbit_json") {
    report.format = "json.fitbit";
    yield* runFitbitJson(replay, { ...options, source }, report);
    return;
  }
  const profile =
    found.format === "samsung_health" ? samsungProfile(found.dataType ?? "") : PROFILES[found.format];
  if (!profile) {
    report.done = true;
    fail(report, { reason: "unsupported_type", line: 1, detail: found.dataType ?? found.format });
    return;
  }
  report.format = profile.format ?? "csv";
  const mapping = { ...profile.mapping };
  if (options.timezoneOffsetMin !== undefined) mapping.timezoneOffsetMin = options.timezoneOffsetMin;
  const csvOptions: CsvImportOptions = { ...profile, mapping, source };
  if (options.encoding) csvOptions.encoding = options.encoding;
  if (options.signal) csvOptions.signal = options.signal;
  yield* runCsv(replay, csvOptions, report);
}
