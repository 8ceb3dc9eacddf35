// Streaming CSV rows (RFC 4180: quoted fields with doubled quotes and line breaks inside), with the
// delimiter found from the first line: comma, semicolon or tab, whichever appears most outside quotes.
import { ImportInputError } from "../errors.ts";

/** One row with its 1-based line number (of the row's first line). */
export type CsvRow = { line: number; fields: string[] };

/** Longest row kept while waiting for its end: a file without line breaks is not a CSV. */
export const MAX_ROW_CHARS = 1 << 20;

/**
 * The delimiter that appears most often outside quotes in `line` (comma when none does). A tie between
 * semicolons and commas goes to the semicolon: a spreadsheet that separates with semicolons writes
 * commas inside its names ("Дата;Вес, кг;Рост, см").
 */
export function detectDelimiter(line: string): "," | ";" | "\t" {
  const counts = { ",": 0, ";": 0, "\t": 0 };
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === "," || ch === ";" || ch === "\t")) counts[ch]++;
  }
  if (counts[";"] > 0 && counts[";"] >= counts[","] && counts[";"] >= counts["\t"]) return ";";
  if (counts["\t"] > counts[","]) return "\t";
  return ",";
}

/**
 * Splits text chunks into rows. `delimiter` defaults to detection on the first row that is not a
 * metadata line (pass `skipLines` for those: Samsung Health writes one before its header). Throws
 * {@link ImportInputError} `malformed_line` for a row past {@link MAX_ROW_CHARS} (an unclosed quote).
 */
export async function* readCsvRows(
  text: AsyncIterable<string>,
  options: { delimiter?: string; skipLines?: number; detected?: { delimiter: string } } = {},
): AsyncGenerator<CsvRow, void, undefined> {
  let delimiter = options.delimiter;
  if (delimiter && options.detected) options.detected.delimiter = delimiter;
  let pending = "";
  let line = 1;
  let skip = options.skipLines ?? 0;
  let fields: string[] = [];
  let field = "";
  let quoted = false;
  let rowLine = 1;
  for await (const chunk of withFinalNewline(text)) {
    pending += chunk;
    let i = 0;
    const n = pending.length;
    while (i < n) {
      if (skip > 0) {
        const nl = pending.indexOf("\n", i);
        if (nl < 0) break;
        skip--;
        line++;
        i = nl + 1;
        rowLine = line;
        continue;
      }
      if (!delimiter) {
        const nl = pending.indexOf("\n", i);
        if (nl < 0) break;
        delimiter = detectDelimiter(pending.slice(i, nl));
        if (options.detected) options.detected.delimiter = delimiter;
      }
      const ch = pending[i] as string;
      const delimiterCode = delimiter.charCodeAt(0);
      if (quoted) {
        if (ch === '"') {
          if (i + 1 >= n) break; // need the next character to tell "" from the closing quote
          if (pending[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          quoted = false;
        } else {
          if (ch === "\n") line++;
          field += ch;
        }
        i++;
        continue;
      }
      if (ch === '"' && field.length === 0) quoted = true;
      else if (ch === delimiter) {
        fields.push(field);
        field = "";
      } else if (ch === "\n") {
        fields.push(field.endsWith("\r") ? field.slice(0, -1) : field);
        yield { line: rowLine, fields };
        fields = [];
        field = "";
        line++;
        rowLine = line;
      } else {
        // A plain run up to the next delimiter, quote or line break is taken in one slice.
        let j = i + 1;
        while (j < n) {
          const c = pending.charCodeAt(j);
          if (c === 10 || c === 34 || c === delimiterCode) break;
          j++;
        }
        field += pending.slice(i, j);
        i = j;
        continue;
      }
      i++;
    }
    pending = pending.slice(i);
    if (pending.length + field.length > MAX_ROW_CHARS) {
      throw new ImportInputError({
        reason: "malformed_line",
        line: rowLine,
        detail: "row too long (unclosed quote?)",
      });
    }
  }
  if (field.length > 0 || fields.length > 0) {
    fields.push(field);
    yield { line: rowLine, fields };
  }
}

/** Passes text through and ends it with a line break if it lacks one, so the last row completes. */
async function* withFinalNewline(text: AsyncIterable<string>): AsyncGenerator<string> {
  let last = "";
  for await (const chunk of text) {
    if (chunk.length > 0) last = chunk;
    yield chunk;
  }
  if (last.length > 0 && !last.endsWith("\n")) yield "\n";
}
