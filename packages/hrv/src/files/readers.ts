import { clip, detectDelimiter, parseNumber, pushIssue, splitCells } from "./tokens.ts";
import type { RawValue, ReadValues, RrFileIssue } from "./types.ts";

const RR_NAMES = new Set([
  "rr",
  "rri",
  "rrinterval",
  "rrintervals",
  "ibi",
  "interbeatinterval",
  "nn",
  "nni",
  "nninterval",
  "nnintervals",
]);

/** Unit named in a header cell: "(ms)", "[s]", "_ms", " sec" …; undefined when none. */
export function unitOfHeader(cell: string): "ms" | "s" | undefined {
  const c = cell.toLowerCase();
  if (/(\(|\[|_|\s|^)(ms|msec|milliseconds?)(\)|\]|$)/.test(c)) return "ms";
  if (/(\(|\[|_|\s|^)(s|sec|seconds?)(\)|\]|$)/.test(c)) return "s";
  return undefined;
}

/** True when a header cell names an RR-interval column, with or without a unit. */
export function isRrHeader(cell: string): boolean {
  const base = cell
    .toLowerCase()
    .replace(/\(.*?\)|\[.*?\]/g, "")
    .replace(/[_\s-]+(ms|msec|s|sec)$/, "")
    .replace(/[^a-z]/g, "");
  return RR_NAMES.has(base);
}

export interface HeaderInfo {
  line: number;
  delimiter: string;
  column: number;
  cells: string[];
}

/** Finds the first line (from `from`, 0-based) whose cells name an RR column. */
export function findHeader(lines: string[], from = 0, to = lines.length): HeaderInfo | undefined {
  for (let i = from; i < Math.min(to, lines.length); i++) {
    const text = lines[i] ?? "";
    if (!/[a-z]/i.test(text)) continue;
    const delimiter = detectDelimiter(text);
    const cells = splitCells(text, delimiter);
    const column = cells.findIndex(isRrHeader);
    if (column >= 0) return { line: i, delimiter, column, cells };
  }
  return undefined;
}

/**
 * Reads the RR column under a header. In `stopAtEnd` mode (Kubios reports, where other sections follow
 * the table) the first blank or non-numeric cell ends the table.
 */
export function readColumn(lines: string[], header: HeaderInfo, stopAtEnd: boolean): ReadValues {
  const issues: RrFileIssue[] = [];
  const values: RawValue[] = [];
  const unit = unitOfHeader(header.cells[header.column] ?? "");
  for (let i = header.line + 1; i < lines.length; i++) {
    const text = lines[i] ?? "";
    const cell = text.trim() === "" ? "" : (splitCells(text, header.delimiter)[header.column] ?? "");
    const value = cell === "" ? undefined : parseNumber(cell);
    if (value !== undefined) {
      values.push({ value, line: i + 1, text: cell });
      continue;
    }
    // A report's table starts right under its header; anything else means this header was not it.
    if (stopAtEnd) break;
    if (cell === "") continue;
    pushIssue(issues, { code: "invalid_value", line: i + 1, text: clip(cell) });
  }
  return { values, unit, issues };
}

/** One value per line; leading lines with letters are a header (which may name the unit). */
export function readOnePerLine(lines: string[], decimalComma: boolean): ReadValues {
  const issues: RrFileIssue[] = [];
  const values: RawValue[] = [];
  let unit: "ms" | "s" | undefined;
  for (let i = 0; i < lines.length; i++) {
    // Spreadsheet exports often end every line with a stray separator ("812,").
    const raw = (lines[i] ?? "").trim().replace(/[,;\t]+$/, "");
    if (raw === "") continue;
    const token = decimalComma ? raw.replace(",", ".") : raw;
    const value = parseNumber(token);
    if (value !== undefined) {
      values.push({ value, line: i + 1, text: raw });
      continue;
    }
    if (values.length === 0 && /[a-z]/i.test(raw)) {
      unit ??= unitOfHeader(raw);
      continue;
    }
    pushIssue(issues, { code: "invalid_value", line: i + 1, text: clip(raw) });
  }
  return { values, unit, issues };
}

/** Many values per line separated by commas, semicolons or whitespace, brackets and quotes ignored. */
export function readList(lines: string[]): ReadValues {
  const issues: RrFileIssue[] = [];
  const values: RawValue[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] ?? "").replace(/[[\]"']/g, " ");
    for (const token of raw.split(/[,;\s]+/)) {
      if (token === "") continue;
      const value = parseNumber(token);
      if (value === undefined) pushIssue(issues, { code: "invalid_value", line: i + 1, text: clip(token) });
      else values.push({ value, line: i + 1, text: token });
    }
  }
  return { values, issues };
}
