/** The RR-file layouts `parseRrFile` recognises. */
export type RrFileFormat =
  /**
   * One interval per line, optional one-line header (`RR`, `rr_ms`, `RR (s)` …); milliseconds or
   * seconds, detected. Elite HRV, Polar Flow / Polar Sensor Logger "RR" text exports and Kubios's
   * own input format ("type 1" text) look like this.
   */
  | "one_per_line"
  /** Many intervals per line separated by commas, semicolons or spaces, optionally in brackets: Welltory `rr_data`, Polar strings. */
  | "list"
  /** HRV Logger RR export: CSV with header `date,rr,since start` (rr in ms). */
  | "hrv_logger"
  /** Kubios HRV result export (.txt/.csv report): the RR column of its "RR interval data" table. */
  | "kubios"
  /** Any other delimited table whose header names an RR column (`rr`, `rr_ms`, `RR interval (s)`, `ibi`, `nn` …). */
  | "table";

/** Stable codes of what went wrong while reading an RR file; the UI catalogues hold the text (en/ru). */
export type RrFileIssueCode =
  /** The text has no data lines at all. */
  | "empty_file"
  /** No known layout fits the text; nothing was read. */
  | "unrecognised_format"
  /** A header was found but no column of it holds RR intervals (`line` = the header line). */
  | "missing_rr_column"
  /** A value is not a number (`line`, `text`); it was skipped. */
  | "invalid_value"
  /** A value is zero, negative or longer than 30 s after unit conversion (`line`, `text`); it was skipped. */
  | "out_of_range"
  /** The values are neither clearly seconds (median ≤ 5) nor milliseconds (median ≥ 150); nothing was read. */
  | "ambiguous_unit"
  /** More problems than are listed; `count` says how many were left out. */
  | "more_issues";

export interface RrFileIssue {
  code: RrFileIssueCode;
  /** 1-based line number in the text, when the problem has a place. */
  line?: number;
  /** The offending token (at most 40 characters). */
  text?: string;
  /** For `more_issues`: how many issues were not listed. */
  count?: number;
}

export interface ParsedRrFile {
  /** The layout that was read; absent when none fitted. */
  format?: RrFileFormat;
  /** The unit the values were written in (from the header or detected). */
  unit?: "ms" | "s";
  /** RR intervals in milliseconds, in file order, skipped values left out. */
  rrMs: number[];
  /** For each entry of `rrMs`, the 1-based line it came from. */
  lines: number[];
  /** Problems, in file order; `rrMs` is empty when a fatal one (empty_file, unrecognised_format, missing_rr_column, ambiguous_unit) is present. */
  issues: RrFileIssue[];
}

export interface ParseRrFileOptions {
  /** Skip detection and read this layout. */
  format?: RrFileFormat;
  /** Skip unit detection (for headerless files whose unit the caller knows). */
  unit?: "ms" | "s";
}

/** A value read from the text before unit conversion. */
export interface RawValue {
  value: number;
  line: number;
  text: string;
}

/** What a layout reader returns before units are settled. */
export interface ReadValues {
  values: RawValue[];
  /** Unit named by a header, if any. */
  unit?: "ms" | "s";
  issues: RrFileIssue[];
}
