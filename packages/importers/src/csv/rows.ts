// Streaming CSV rows (RFC 4180: quoted fields with doubled quotes and line breaks inside), with the
// delimiter found from the header and the first data lines: comma, semicolon or tab.
import { ImportInputError } from "../errors.ts";

/** One row with its 1-based line number (of the row's first line). */
export type CsvRow = { line: number; fields: string[] };

/** Longest row kept while waiting for its end: a file without line breaks is not a CSV. */
export const MAX_ROW_CHARS = 1 << 20;

const DELIMITERS = [";", ",", "\t"] as const;
type Delimiter = (typeof DELIMITERS)[number];

/** How often each delimiter appears outside quotes in `line`. */
function delimiterCounts(line: string): Record<Delimiter, number> {
  const counts = { ",": 0, ";": 0, "\t": 0 };
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === "," || ch === ";" || ch === "\t")) counts[ch]++;
  }
  return counts;
}

/**
 * The delimiter of a CSV from its header and first data lines (`lines[0]` is the header). One that
 * appears on the header and the same number of times on every data line wins: a spreadsheet that
 * separates with semicolons writes commas in its names ("Дата;Давление, мм рт. ст., верхнее") and
 * decimal commas in its values, and neither keeps a constant count. Among those, or when none keeps
 * one, the most frequent on the header; a tie goes to the semicolon, then the comma. Comma when none.
 */
export function detectDelimiter(lines: readonly string[]): Delimiter {
  const [header = "", ...rows] = lines;
  const head = delimiterCounts(header);
  const rowCounts = rows.map(delimiterCounts);
  const steady = DELIMITERS.filter((d) => head[d] > 0 && rowCounts.every((c) => c[d] === head[d]));
  const candidates = steady.length > 0 ? steady : DELIMITERS.filter((d) => head[d] > 0);
  let best: Delimiter = ",";
  let bestCount = 0;
  for (const d of candidates) {
    if (head[d] > bestCount) {
      best = d;
      bestCount = head[d];
    }
  }
  return best;
}

/** Data lines after the header that {@link detectDelimiter} looks at, and the most text it waits for. */
const DETECT_LINES = 5;
const DETECT_CHARS = 64 * 1024;

/**
 * Passes `text` through once the delimiter is known: the first chunks are held until they hold the
 * header and {@link DETECT_LINES} data lines after `skipLines` (or {@link DETECT_CHARS}, or the end).
 */
async function* detectingDelimiter(
  text: AsyncIterable<string>,
  skipLines: number,
  found: (delimiter: Delimiter) => void,
): AsyncGenerator<string> {
  let head = "";
  let decided = false;
  const decide = () => {
    const lines = head.split("\n").slice(skipLines);
    // The last piece is a line cut by the chunk unless the text ended there.
    if (lines.length > 1) lines.pop();
    found(detectDelimiter(lines.filter((l, i) => i === 0 || l.trim() !== "")));
    decided = true;
  };
  for await (const chunk of text) {
    if (decided) {
      yield chunk;
      continue;
    }
    head += chunk;
    if (head.split("\n").length > skipLines + DETECT_LINES + 1 || head.length >= DETECT_CHARS) {
      decide();
      yield head;
    }
  }
  if (!decided) {
    decide();
    if (head.length > 0) yield head;
  }
}

/**
 * Splits text chunks into rows. `delimiter` defaults to detection on the first rows after the
 * metadata lines (pass `skipLines` for those: Samsung Health writes one before its header). Throws
 * {@link ImportInputError} `malformed_line` for a row past {@link MAX_ROW_CHARS} (an unclosed quote).
 */
export async function* readCsvRows(
  text: AsyncIterable<string>,
  options: { delimiter?: string; skipLines?: number; detected?: { delimiter: string } } = {},
): AsyncGenerator<CsvRow, void, undefined> {
  let delimiter = options.delimiter ?? "";
  if (delimiter && options.detected) options.detected.delimiter = delimiter;
  const source = delimiter
    ? text
    : detectingDelimiter(text, options.skipLines ?? 0, (found) => {
        delimiter = found;
        if (options.detected) options.detected.delimiter = found;
      });
  let pending = "";
  let line = 1;
  let skip = options.skipLines ?? 0;
  let fields: string[] = [];
  let field = "";
  let quoted = false;
  let rowLine = 1;
  for await (const chunk of withFinalNewline(source)) {
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
