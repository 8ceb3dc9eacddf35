import { findHeader, readColumn, readList, readOnePerLine } from "./readers.ts";
import { parseNumber, pushIssue, splitLines } from "./tokens.ts";
import type { ParsedRrFile, ParseRrFileOptions, ReadValues, RrFileFormat } from "./types.ts";

/** Longest interval kept, ms: a 30 s pause is not a heartbeat interval but a gap in the recording. */
const MAX_RR_MS = 30_000;
/** Median of headerless values at or below this is read as seconds (no heart beats 200 times a second). */
const SECONDS_MAX_MEDIAN = 5;
/** Median at or above this is read as milliseconds (an interval of 150 ms is 400 bpm). */
const MS_MIN_MEDIAN = 150;

const DECIMAL_COMMA_LINE = /^\s*\d{1,2},\d+\s*$/;

function numericTokenCount(line: string): number {
  return line
    .replace(/[,;\t]+\s*$/, "")
    .replace(/[[\]"']/g, " ")
    .split(/[,;\s]+/)
    .filter((t) => t !== "" && parseNumber(t) !== undefined).length;
}

/** Guesses the layout from the text; undefined when nothing numeric is in it. */
export function detectRrFileFormat(text: string): RrFileFormat | undefined {
  const lines = splitLines(text);
  const head = lines.slice(0, 60);
  if (head.some((l) => /kubios/i.test(l))) return "kubios";
  const first = lines.find((l) => l.trim() !== "") ?? "";
  const header = findHeader([first]);
  if (header) {
    const names = header.cells.map((c) => c.toLowerCase());
    if (names.includes("since start") || names.includes("date")) return "hrv_logger";
    return header.cells.length > 1 ? "table" : "one_per_line";
  }
  const data = lines.filter((l) => l.trim() !== "" && numericTokenCount(l) > 0).slice(0, 50);
  if (data.length === 0) return undefined;
  if (data.every((l) => DECIMAL_COMMA_LINE.test(l))) return "one_per_line";
  return data.some((l) => numericTokenCount(l) > 1) ? "list" : "one_per_line";
}

function read(lines: string[], format: RrFileFormat): ReadValues | undefined {
  if (format === "list") return readList(lines);
  if (format === "one_per_line") {
    const data = lines.filter((l) => l.trim() !== "" && /\d/.test(l));
    const decimalComma = data.length > 0 && data.every((l) => DECIMAL_COMMA_LINE.test(l));
    return readOnePerLine(lines, decimalComma);
  }
  let header = findHeader(lines);
  if (!header) return undefined;
  let result = readColumn(lines, header, format === "kubios");
  // A Kubios report names RR in its summary lines too; the table is the first RR header with numbers under it.
  while (format === "kubios" && result.values.length === 0) {
    const next = findHeader(lines, header.line + 1);
    if (!next) break;
    header = next;
    result = readColumn(lines, header, true);
  }
  // HRV Logger writes rr in ms without naming the unit.
  if (format === "hrv_logger") result.unit ??= "ms";
  return result;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

function detectUnit(values: number[]): "ms" | "s" | undefined {
  const positive = values.filter((v) => v > 0);
  if (positive.length === 0) return "ms";
  const m = median(positive);
  if (m <= SECONDS_MAX_MEDIAN) return "s";
  if (m >= MS_MIN_MEDIAN) return "ms";
  return undefined;
}

/**
 * Reads RR intervals from the text of a file people export from HRV apps and devices:
 * one interval per line (Elite HRV, Polar, plain text; ms or s), comma/space lists (Welltory
 * `rr_data`, Polar strings, `[812, 790, …]`), HRV Logger's RR CSV, Kubios HRV result exports, and
 * any delimited table with an RR-named column.
 *
 * Output: intervals in **milliseconds** in file order, with the source line of each. The layout is
 * detected (`detectRrFileFormat`) unless `options.format` is given; the unit comes from the header
 * (`RR (s)`, `rr_ms`) or, without one, from the median value (≤ 5 → seconds, ≥ 150 → milliseconds,
 * otherwise `ambiguous_unit`). Decimal commas are accepted in one-per-line files of seconds (`0,812`).
 *
 * Dirty input never throws: a non-numeric value is skipped with `invalid_value` and its 1-based line;
 * zero, negative or > 30 s intervals are skipped with `out_of_range`; an empty, unrecognised or
 * unit-ambiguous file returns no intervals and the matching issue. At most 100 issues are listed, the
 * rest counted in `more_issues`. No artifact correction is done here; that belongs to the RR analysis.
 *
 * References: HRV Logger export (Altini, hrv.tools FAQ), Kubios HRV user's guide (input and export
 * formats), Welltory hrv-covid19 dataset `rr_data` column.
 */
export function parseRrFile(text: string, options: ParseRrFileOptions = {}): ParsedRrFile {
  const lines = splitLines(text);
  if (lines.every((l) => l.trim() === "")) return { rrMs: [], lines: [], issues: [{ code: "empty_file" }] };
  const format = options.format ?? detectRrFileFormat(text);
  if (!format) return { rrMs: [], lines: [], issues: [{ code: "unrecognised_format" }] };
  const read_ = read(lines, format);
  if (!read_) return { format, rrMs: [], lines: [], issues: [{ code: "missing_rr_column" }] };
  const { values, issues } = read_;
  if (values.length === 0) {
    const code = issues.length > 0 ? "unrecognised_format" : "empty_file";
    return { format, rrMs: [], lines: [], issues: [{ code }, ...issues] };
  }
  const unit = options.unit ?? read_.unit ?? detectUnit(values.map((v) => v.value));
  if (!unit) return { format, rrMs: [], lines: [], issues: [{ code: "ambiguous_unit" }, ...issues] };
  const scale = unit === "s" ? 1000 : 1;
  const rrMs: number[] = [];
  const sourceLines: number[] = [];
  for (const v of values) {
    // Rounded to 1e-6 ms so that 0.813 s reads as 813, not 813.0000000000001.
    const ms = Math.round(v.value * scale * 1e6) / 1e6;
    if (!(ms > 0 && ms <= MAX_RR_MS)) {
      pushIssue(issues, { code: "out_of_range", line: v.line, text: v.text });
      continue;
    }
    rrMs.push(ms);
    sourceLines.push(v.line);
  }
  issues.sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER));
  return { format, unit, rrMs, lines: sourceLines, issues };
}
