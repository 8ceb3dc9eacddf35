// The CSV engine under every CSV importer: text decoding, rows, a column mapping (time column, value
// columns with metric and unit, optional blood-pressure columns), dates, decimal commas. Each bad line
// is rejected with its number; the file goes on.
import { dailyClientId, localDate } from "../daily.ts";
import { ImportInputError } from "../errors.ts";
import { createReport, createSession, fail, reject, warn } from "../report.ts";
import type { ImportOptions, ImportRecord, ImportReport, ImportSession, SampleRecord } from "../types.ts";
import { type DateFormat, isDateOnly, parseDateTime, parseOffsetMinutes, slashOrder } from "./dates.ts";
import { readCsvRows } from "./rows.ts";
import { decodeText, type TextOptions } from "./text.ts";
import { convertCsvValue, headerUnitFor, metricForHeader, storageUnit } from "./units.ts";

/** One value column: which metric it holds and in which unit (default: the header's, else the metric's usual). */
export type CsvColumn = { column: string; metric: string; unit?: string };

/** How to read a CSV's columns. Column names are matched after `normalizeHeader`, trimmed. */
export type CsvMapping = {
  /** Column with the date and time (or the date alone) of each row. */
  time: string;
  timeFormat?: DateFormat;
  /** Column with the end of the row's interval, if any. */
  endTime?: string;
  /** Column with each row's UTC offset (`UTC+0300`, `+01:00`) for zone-less times. */
  offsetColumn?: string;
  /** Offset (minutes east of UTC) for zone-less times without an offset column. Default 0 (UTC). */
  timezoneOffsetMin?: number;
  columns: CsvColumn[];
  /** Columns of a blood-pressure reading (→ `bp` records). */
  bp?: { systolic: string; diastolic: string; pulse?: string };
};

/** Options of {@link importCsv}. */
export type CsvImportOptions = ImportOptions &
  TextOptions & {
    mapping: CsvMapping;
    delimiter?: string;
    /** Lines before the header (Samsung Health's metadata line). */
    skipLines?: number;
    /** Maps a header to the name the mapping uses (Samsung's `com.samsung.health.x.` prefixes). */
    normalizeHeader?: (header: string) => string;
    /** Report format name (default `csv`). */
    format?: string;
    /** Value columns missing from the file are an error (generic CSV) or skipped (known exports). */
    requireColumns?: boolean;
  };

const BATCH = 1000;

/** Parses a number written with a dot or a decimal comma (`72,5`); NaN when it is not one. */
export function parseCsvNumber(raw: string): number {
  const t = raw.trim();
  if (t === "") return Number.NaN;
  if (/^[+-]?\d+,\d+$/.test(t)) return Number(t.replace(",", "."));
  return Number(t);
}

/**
 * Imports a CSV with `options.mapping`. Rows yield samples (one per mapped value column with a value)
 * and, with `mapping.bp`, blood-pressure records; `clientId` is `metric:time` (plus the source), so a
 * re-import repeats it — or, for a row dated by a day alone, the day's (`dailyClientId`). A row with a bad date is rejected (`invalid_date`; `ambiguous_date` when
 * `d/m/y` and `m/d/y` both fit and no earlier row decided the order), a bad value `invalid_value`,
 * each with its line. Text not valid in its encoding ends with fatal `not_utf8`.
 */
export function importCsv(input: AsyncIterable<Uint8Array>, options: CsvImportOptions): ImportSession {
  const report = createReport(options.format ?? "csv");
  return createSession(report, runCsv(input, options, report));
}

type Resolved = {
  time: number;
  end: number;
  offset: number;
  columns: { index: number; metric: string; unit: string | undefined; header: string }[];
  bp?: { systolic: number; diastolic: number; pulse: number };
};

function resolve(header: string[], options: CsvImportOptions, report: ImportReport): Resolved | undefined {
  const norm = options.normalizeHeader ?? ((h: string) => h);
  const names = header.map((h) => norm(h.trim()).trim());
  const find = (name: string | undefined) => (name === undefined ? -1 : names.indexOf(name));
  const m = options.mapping;
  const time = find(m.time);
  if (time < 0) {
    fail(report, {
      reason: "missing_field",
      line: 1 + (options.skipLines ?? 0),
      detail: `time column ${m.time}`,
    });
    return undefined;
  }
  const columns: Resolved["columns"] = [];
  for (const c of m.columns) {
    const index = find(c.column);
    if (index < 0) {
      if (options.requireColumns) {
        fail(report, {
          reason: "missing_field",
          line: 1 + (options.skipLines ?? 0),
          detail: `column ${c.column}`,
        });
        return undefined;
      }
      continue;
    }
    if (!storageUnit(c.metric)) {
      fail(report, { reason: "unsupported_type", detail: `metric ${c.metric}` });
      return undefined;
    }
    const unit = c.unit ?? headerUnitFor(c.metric, names[index] as string);
    if (convertCsvValue(c.metric, 1, unit) === undefined) {
      fail(report, { reason: "unknown_unit", detail: `${c.column}: ${unit}` });
      return undefined;
    }
    columns.push({ index, metric: c.metric, unit, header: c.column });
  }
  const resolved: Resolved = { time, end: find(m.endTime), offset: find(m.offsetColumn), columns };
  if (m.bp) {
    const bp = { systolic: find(m.bp.systolic), diastolic: find(m.bp.diastolic), pulse: find(m.bp.pulse) };
    if (bp.systolic >= 0 && bp.diastolic >= 0) resolved.bp = bp;
  }
  if (resolved.columns.length === 0 && !resolved.bp) {
    fail(report, { reason: "missing_field", detail: "no mapped value column in the header" });
    return undefined;
  }
  if (!options.requireColumns) warnSkippedMeasures(names, m, resolved, report);
  return resolved;
}

/** Headers of a vendor's own scores and derived figures, not the measure their words name. */
const DERIVED_HEADER =
  /score|deviation|debt|need|balance|strain|efficiency|consistency|performance|onset|оценк|отклонени|баланс/iu;

/**
 * A known export's reader keeps only the columns its profile names. A column of a measure the profile
 * reads nowhere (a Withings weight file's heart-rate column) is left out, and the report says so:
 * `unsupported_type` with detail `column <header>`. Not reported: other columns of a measure the
 * profile reads (Whoop's sleep stages beside its sleep), the vendor's scores and deviations, and
 * anything in the generic CSV, which reads the columns its person chose.
 */
function warnSkippedMeasures(names: string[], mapping: CsvMapping, resolved: Resolved, report: ImportReport) {
  const read = new Set(mapping.columns.map((c) => c.metric));
  if (resolved.bp) for (const m of ["bp_systolic", "bp_diastolic", "heart_rate"]) read.add(m);
  names.forEach((name, i) => {
    const metric = metricForHeader(name);
    if (i === resolved.time || i === resolved.end || !metric || read.has(metric) || DERIVED_HEADER.test(name))
      return;
    warn(report, { reason: "unsupported_type", detail: `column ${name}` });
  });
}

/** The row loop, shared by the export profiles. */
export async function* runCsv(
  input: AsyncIterable<Uint8Array>,
  options: CsvImportOptions,
  report: ImportReport,
): AsyncGenerator<ImportRecord[], void, undefined> {
  const source = options.source ?? "csv";
  const progress = { bytes: 0 };
  let order: DateFormat = options.mapping.timeFormat ?? "auto";
  let resolved: Resolved | undefined;
  let batch: ImportRecord[] = [];
  try {
    try {
      const text = decodeText(counted(input, report), options, progress);
      for await (const row of readCsvRows(text, {
        delimiter: options.delimiter,
        skipLines: options.skipLines,
      })) {
        if (options.signal?.aborted) {
          fail(report, { reason: "aborted", line: row.line });
          break;
        }
        if (!resolved) {
          resolved = resolve(row.fields, options, report);
          if (!resolved) break;
          continue;
        }
        if (row.fields.every((f) => f.trim() === "")) continue;
        report.read++;
        const rawTime = row.fields[resolved.time] ?? "";
        if (order === "auto") {
          const o = slashOrder(rawTime);
          if (o === "mdy" || o === "dmy") order = o;
          else if (o === "either") {
            reject(report, { reason: "ambiguous_date", line: row.line, detail: rawTime.slice(0, 40) });
            continue;
          }
        }
        const offsetRaw = resolved.offset >= 0 ? (row.fields[resolved.offset] ?? "") : "";
        const offset = offsetRaw ? parseOffsetMinutes(offsetRaw) : (options.mapping.timezoneOffsetMin ?? 0);
        const at = parseDateTime(rawTime, order, offset ?? 0);
        if (Number.isNaN(at) || offset === undefined) {
          reject(report, { reason: "invalid_date", line: row.line, detail: rawTime.slice(0, 40) });
          continue;
        }
        const endAt =
          resolved.end >= 0 ? parseDateTime(row.fields[resolved.end] ?? "", order, offset) : Number.NaN;
        // A row dated by a day alone (Oura's and Google Fit's daily exports) holds that day's totals: their
        // ids are the day's, as the vendor's cloud API names the same totals.
        const day = isDateOnly(rawTime) ? localDate(at, offset ?? 0) : null;
        const before = batch.length;
        let bad = false;
        for (const c of resolved.columns) {
          const raw = row.fields[c.index] ?? "";
          if (raw.trim() === "") continue;
          const value = convertCsvValue(c.metric, parseCsvNumber(raw), c.unit);
          if (value === undefined || !Number.isFinite(value)) {
            reject(report, {
              reason: "invalid_value",
              line: row.line,
              detail: `${c.header}: ${raw.slice(0, 40)}`,
            });
            bad = true;
            continue;
          }
          const rec: SampleRecord = {
            kind: "sample",
            metric: c.metric,
            at,
            value,
            unit: storageUnit(c.metric) ?? "count",
            source,
            clientId: day ? dailyClientId(day, c.metric) : `${c.metric}:${at}`,
            line: row.line,
          };
          if (endAt > at) rec.endAt = endAt;
          batch.push(rec);
        }
        if (resolved.bp)
          bad = addBp(resolved.bp, row.fields, { at, line: row.line, source, batch, report }) || bad;
        if (batch.length === before && !bad) report.ignored++;
        if (batch.length >= BATCH) {
          report.emitted += batch.length;
          yield batch;
          batch = [];
        }
      }
    } catch (e) {
      if (!(e instanceof ImportInputError)) throw e;
      fail(report, e.rejection);
    }
    if (batch.length > 0) {
      report.emitted += batch.length;
      yield batch;
    }
    if (!resolved && !report.fatal) fail(report, { reason: "empty_file", detail: "no header row" });
  } finally {
    report.done = true;
  }
}

function addBp(
  cols: NonNullable<Resolved["bp"]>,
  fields: string[],
  ctx: { at: number; line: number; source: string; batch: ImportRecord[]; report: ImportReport },
): boolean {
  const sys = parseCsvNumber(fields[cols.systolic] ?? "");
  const dia = parseCsvNumber(fields[cols.diastolic] ?? "");
  if (Number.isNaN(sys) && Number.isNaN(dia)) return false;
  if (!(sys > 40 && sys < 300 && dia > 20 && dia < sys)) {
    reject(ctx.report, { reason: "out_of_range", line: ctx.line, detail: `${sys}/${dia}` });
    return true;
  }
  const pulse = cols.pulse >= 0 ? parseCsvNumber(fields[cols.pulse] ?? "") : Number.NaN;
  ctx.batch.push({
    kind: "bp",
    at: ctx.at,
    systolicMmHg: sys,
    diastolicMmHg: dia,
    ...(pulse > 0 ? { pulseBpm: pulse } : {}),
    source: ctx.source,
    clientId: `bp:${ctx.at}`,
  });
  return false;
}

async function* counted(input: AsyncIterable<Uint8Array>, report: ImportReport): AsyncGenerator<Uint8Array> {
  for await (const chunk of input) {
    report.bytesRead += chunk.length;
    yield chunk;
  }
}

/** What {@link previewCsv} saw in the first rows of a file. */
export type CsvPreview = {
  delimiter: string;
  header: string[];
  /** Up to 20 data rows as text. */
  rows: string[][];
  /** How the time column's dates are written, as far as the first rows tell. */
  dateOrder: "iso" | "mdy" | "dmy" | "ambiguous" | "unknown";
  /** A mapping guessed from the headers (time column, metrics, units) for the user to confirm. */
  suggested?: CsvMapping;
  warnings: string[];
};
