import type { RrFileIssue } from "./types.ts";

// Strict decimal syntax: Number() would also accept "", "0x1F", "Infinity" and " 1 ".
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Parses one numeric token (surrounding quotes allowed); undefined when it is not a plain decimal number. */
export function parseNumber(token: string): number | undefined {
  const t = token
    .trim()
    .replace(/^"(.*)"$/, "$1")
    .trim();
  if (!DECIMAL.test(t)) return undefined;
  return Number(t);
}

export function clip(text: string): string {
  const t = text.trim();
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}

/** Splits text into lines (LF, CRLF or CR) after removing a byte-order mark. */
export function splitLines(text: string): string[] {
  return text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
}

/** The field separator of a delimited line: tab, semicolon or comma, whichever occurs. */
export function detectDelimiter(line: string): string {
  if (line.includes("\t")) return "\t";
  if (line.includes(";")) return ";";
  return ",";
}

export function splitCells(line: string, delimiter: string): string[] {
  return line.split(delimiter).map((c) =>
    c
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .trim(),
  );
}

/** Adds an issue, keeping at most `limit` listed and counting the rest in a final `more_issues`. */
export function pushIssue(issues: RrFileIssue[], issue: RrFileIssue, limit = 100): void {
  const last = issues[issues.length - 1];
  if (issues.length < limit) {
    issues.push(issue);
    return;
  }
  if (last?.code === "more_issues") last.count = (last.count ?? 0) + 1;
  else issues.push({ code: "more_issues", count: 1 });
}
