// A look at the first rows of a CSV before importing it: delimiter, header, sample rows, how dates are
// written, and a suggested column mapping (metric and unit per header) for the user to confirm.
import type { CsvMapping, CsvPreview } from "./csv-import.ts";
import { slashOrder } from "./dates.ts";
import { readCsvRows } from "./rows.ts";
import { decodeText, type TextOptions } from "./text.ts";
import { convertCsvValue, metricForHeader, unitInHeader } from "./units.ts";

const PREVIEW_ROWS = 20;
// English and Russian names of a date or time column.
const TIME_HEADER =
  /^(date|time|timestamp|datetime|day|start|start.?time|cycle start time|datetime \(utc\)|дата|время|дата и время|дата\/время|день|начало|время начала|дата начала)$/iu;

/**
 * Reads up to 20 data rows of a CSV (the input is abandoned after them) and describes it. Throws
 * nothing for bad text: a file that is not valid in its encoding yields an empty header and a warning.
 */
export async function previewCsv(
  input: AsyncIterable<Uint8Array>,
  options: TextOptions & { skipLines?: number } = {},
): Promise<CsvPreview> {
  const rows: string[][] = [];
  let header: string[] = [];
  const warnings: string[] = [];
  const detected = { delimiter: "," };
  try {
    const text = decodeText(input, options);
    for await (const row of readCsvRows(text, { skipLines: options.skipLines, detected })) {
      if (header.length === 0) header = row.fields.map((h) => h.trim());
      else if (row.fields.some((f) => f.trim() !== "")) rows.push(row.fields);
      if (rows.length >= PREVIEW_ROWS) break;
    }
  } catch (e) {
    warnings.push(e instanceof Error ? e.message : String(e));
  }
  const delimiter = detected.delimiter;
  const timeIndex = timeColumn(header, rows);
  const dateOrder = orderOf(rows.map((r) => r[timeIndex] ?? ""));
  let suggested: CsvMapping | undefined;
  if (timeIndex >= 0) {
    const columns = header.flatMap((h, i) => {
      if (i === timeIndex) return [];
      const metric = metricForHeader(h);
      if (!metric || !rows.some((r) => (r[i] ?? "").trim() !== "")) return [];
      const unit = unitInHeader(h);
      // A unit the measure cannot be in ("Жиры, г" is food, not body fat): no suggestion, the person chooses.
      if (unit && convertCsvValue(metric, 1, unit) === undefined) return [];
      return [unit ? { column: h, metric, unit } : { column: h, metric }];
    });
    suggested = { time: header[timeIndex] as string, columns };
    if (dateOrder === "mdy" || dateOrder === "dmy" || dateOrder === "iso") suggested.timeFormat = dateOrder;
  } else if (header.length > 0) warnings.push("no date or time column recognised");
  if (dateOrder === "ambiguous") warnings.push("dates fit both day/month and month/day: choose one");
  const preview: CsvPreview = { delimiter, header, rows, dateOrder, warnings };
  if (suggested) preview.suggested = suggested;
  return preview;
}

/** A value written as a date: ISO, or day and month with a year (`01.03.2024`, `3/1/24`). */
const looksLikeDate = (v: string) => /^\d{4}-\d{2}-\d{2}/.test(v.trim()) || slashOrder(v) !== undefined;

/** The date column: the one its header names, else the first whose values are all dates (`when`). */
function timeColumn(header: string[], rows: string[][]): number {
  const named = header.findIndex((h) => TIME_HEADER.test(h));
  if (named >= 0) return named;
  const filled = (r: string[], i: number) => (r[i] ?? "").trim() !== "";
  return header.findIndex(
    (_, i) =>
      rows.some((r) => filled(r, i)) && rows.every((r) => !filled(r, i) || looksLikeDate(r[i] as string)),
  );
}

function orderOf(values: string[]): CsvPreview["dateOrder"] {
  let sawEither = false;
  for (const v of values) {
    if (/^\d{4}-\d{2}-\d{2}/.test(v.trim())) return "iso";
    const o = slashOrder(v);
    if (o === "mdy" || o === "dmy") return o;
    if (o === "either") sawEither = true;
  }
  return sawEither ? "ambiguous" : "unknown";
}
