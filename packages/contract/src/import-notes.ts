import type { ImportProblem } from "./imports.ts";

/**
 * What an import left out, from its report's warnings, grouped for a person to read: the data types
 * Tonus does not keep, the measure columns a known export's reader skipped, the files in an archive it
 * did not open, and one-off notes (beat intervals out of range, developer fields, entities declared).
 * The importers' `detail` texts are English for logs; only the file's own names are shown from them.
 * packages/importers' tests hold each warning an importer writes to this reading (none is `other`).
 */
export type LeftOut = {
  /** Data types of the file (Apple Health identifiers without their `HK…Identifier` prefix). */
  types: string[];
  /** Measure columns a known export's reader does not read (`column <header>`). */
  columns: string[];
  /** Files in an archive Tonus does not read, nested archives included. */
  files: string[];
  /** CSV files in an archive whose columns no known export has. */
  csvs: string[];
  /** Beat intervals outside 200–3000 ms left out of RR series. */
  rrOutside: number;
  developerFields: boolean;
  undatedMessages: boolean;
  entitiesDeclared: boolean;
  /** Any other warning, shown with its reason. */
  other: ImportProblem[];
};

const HK_PREFIX = /^HK(?:(?:Quantity|Category|Correlation)TypeIdentifier|DataType|WorkoutActivityType)/;

const pushOnce = (list: string[], name: string) => {
  if (name && !list.includes(name)) list.push(name);
};

export function leftOutOf(warnings: readonly ImportProblem[]): LeftOut {
  const out: LeftOut = {
    types: [],
    columns: [],
    files: [],
    csvs: [],
    rrOutside: 0,
    developerFields: false,
    undatedMessages: false,
    entitiesDeclared: false,
    other: [],
  };
  for (const w of warnings) {
    const detail = w.detail ?? "";
    const nested = /^nested archive (.+) not expanded$/.exec(detail);
    const rr = /^(\d+) beat intervals outside/.exec(detail);
    if (w.reason === "unsupported_type" && detail === "developer fields skipped") out.developerFields = true;
    else if (w.reason === "unsupported_type" && nested) pushOnce(out.files, nested[1] ?? "");
    else if (w.reason === "unsupported_type" && detail.startsWith("column "))
      pushOnce(out.columns, detail.slice(7));
    else if (w.reason === "unsupported_type" && detail) pushOnce(out.types, detail.replace(HK_PREFIX, ""));
    else if (w.reason === "unsupported_type" && w.entry) pushOnce(out.files, w.entry);
    else if (w.reason === "missing_field" && w.entry && !detail) pushOnce(out.csvs, w.entry);
    else if (w.reason === "out_of_range" && rr) out.rrOutside += Number(rr[1]);
    else if (w.reason === "invalid_date" && /^message \d+ without a date$/.test(detail))
      out.undatedMessages = true;
    else if (w.reason === "xml_entity_declared") out.entitiesDeclared = true;
    else out.other.push(w);
  }
  return out;
}

/** Whether {@link leftOutOf} found anything to say. */
export function hasLeftOut(l: LeftOut): boolean {
  return (
    l.types.length + l.columns.length + l.files.length + l.csvs.length + l.rrOutside + l.other.length > 0 ||
    l.developerFields ||
    l.undatedMessages ||
    l.entitiesDeclared
  );
}
