// Fixture loaders shared by the RR tests (test-only: uses node:fs, reads nothing outside this package).
import fs from "node:fs";
import path from "node:path";

export const FIXTURES = path.join(import.meta.dirname, "fixtures");

/** One row of an RR fixture: the interval and, for annotated files, its bounding beat symbols. */
export interface RrRow {
  rr: number;
  startBeat?: string;
  endBeat?: string;
}

/** Reads `fixtures/rr/[synthetic/]<name>_rr.csv` (header `rr_ms[,start_beat,end_beat]`). */
export function readRrRows(name: string): RrRow[] {
  const dir = name.startsWith("syn") ? path.join(FIXTURES, "rr", "synthetic") : path.join(FIXTURES, "rr");
  const text = fs.readFileSync(path.join(dir, `${name}_rr.csv`), "utf8");
  return text
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => {
      const [rr, startBeat, endBeat] = line.split(",");
      return { rr: Number(rr), startBeat, endBeat };
    });
}

export function readRr(name: string): number[] {
  return readRrRows(name).map((r) => r.rr);
}

/** Parses RFC 4180 CSV (quoted fields may hold commas) into rows of strings. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else if (c !== "\r") field += c;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** The Welltory measurements as records keyed by the CSV header. */
export function readWelltory(): Record<string, string>[] {
  const [header, ...rows] = parseCsv(fs.readFileSync(path.join(FIXTURES, "hrv_measurements.csv"), "utf8"));
  if (!header) return [];
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ""])));
}

/** `expected-public.json`, loosely typed (tests pick the fields they compare). */
// biome-ignore lint/suspicious/noExplicitAny: reference JSON with a deep, heterogeneous shape
export type Json = any;
export function readExpected(): Json {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected-public.json"), "utf8"));
}
