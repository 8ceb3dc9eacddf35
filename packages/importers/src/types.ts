/**
 * What every importer yields: normalized records in storage units, and a running report. The server's
 * import job writes samples through the dashboard's `recordValues` (metric, at, value, source, clientId)
 * and RR series through the measurements module; `clientId` is stable across re-imports of the same
 * file so a second import adds nothing.
 */

/**
 * A metric's storage unit: SI where there is one (s, m, kg, J, L), heart rate in beats per minute,
 * proportions in percent, counts as `count`, blood pressure in mmHg (as the bp module stores it).
 */
export type Unit = "bpm" | "ms" | "s" | "m" | "kg" | "J" | "L" | "%" | "count" | "mmHg" | "1/min" | "degC";

/** One dated value of one metric. */
export type SampleRecord = {
  kind: "sample";
  /** Metric key as the dashboard names it (`heart_rate`, `steps`, `weight`, …): /^[a-z][a-z0-9_]*$/. */
  metric: string;
  /** Start of the value, ms since the Unix epoch (UTC). */
  at: number;
  /** End of the value for interval metrics (steps over a span, a sleep stage), ms UTC. */
  endAt?: number;
  /** The value in `unit`. Always finite. */
  value: number;
  unit: Unit;
  /** Where it came from (`apple_health`, `fit`, `oura`, …): /^[a-z][a-z0-9_.-]*$/. */
  source: string;
  /** Stable id of this value within `source`: the same reading in a re-import gets the same id. */
  clientId: string;
  /** Source details worth keeping (device name, sleep stage). May be shared between records: read-only. */
  meta?: Record<string, string | number | boolean>;
  /** The file's line it was read from, where the format has lines (CSV): where a later refusal points. */
  line?: number;
};

/** A series of beat-to-beat intervals (from FIT `hrv` messages or Apple Health per-beat lists). */
export type RrSeriesRecord = {
  kind: "rr";
  /** Time of the first beat's start, ms UTC (the best the source tells: see each importer). */
  startedAt: number;
  /** Intervals in milliseconds, in order, as the source gave them (invalid slots dropped). */
  rrMs: number[];
  source: string;
  clientId: string;
  meta?: Record<string, string | number | boolean>;
};

/** A blood-pressure reading (Apple Health correlation, Withings, …). */
export type BloodPressureRecord = {
  kind: "bp";
  at: number;
  systolicMmHg: number;
  diastolicMmHg: number;
  pulseBpm?: number;
  source: string;
  clientId: string;
  meta?: Record<string, string | number | boolean>;
};

/** A workout or activity session. */
export type WorkoutRecord = {
  kind: "workout";
  startedAt: number;
  endedAt: number;
  /** Activity name as the source spells it, lower snake case (`running`, `cycling`, `other`). */
  activity: string;
  durationS?: number;
  distanceM?: number;
  energyJ?: number;
  source: string;
  clientId: string;
  meta?: Record<string, string | number | boolean>;
};

/** Everything an importer can yield. */
export type ImportRecord = SampleRecord | RrSeriesRecord | BloodPressureRecord | WorkoutRecord;

/**
 * Why an item (or the whole file) was not imported. Stable snake_case codes, translated by the web
 * catalogues, as `packages/hrv` issues are.
 */
export type RejectReason =
  // whole-file problems (report.fatal)
  | "empty_file"
  | "unknown_format"
  | "invalid_header"
  | "unexpected_eof"
  | "crc_mismatch"
  | "invalid_record"
  | "not_utf8"
  | "too_large"
  | "zip_invalid"
  | "zip_unsafe_path"
  | "zip_too_large"
  | "zip_ratio_exceeded"
  | "zip_too_many_entries"
  | "zip_unsupported"
  | "zip_entry_not_found"
  | "xml_malformed"
  | "xml_entity_declared"
  | "aborted"
  // per-item problems (report.rejected)
  | "missing_field"
  | "invalid_value"
  | "invalid_date"
  | "unknown_unit"
  | "out_of_range"
  | "unsupported_type"
  | "malformed_line"
  | "ambiguous_date";

/** One rejected item or a whole-file problem, with where it happened. */
export type Rejection = {
  reason: RejectReason;
  /** 1-based line number (text formats). */
  line?: number;
  /** Byte offset in the input where the problem was found. */
  offset?: number;
  /** A short technical detail (field name, bad value), never user-facing prose. */
  detail?: string;
};

/**
 * The running report of one import. Importers mutate it while they run, so a caller can read progress
 * (`bytesRead`) at any time; it is final once the record iterator has finished.
 */
export type ImportReport = {
  /** Which reader produced it (`fit`, `apple_health_xml`, `csv.oura`, …). */
  format: string;
  /** Input bytes consumed so far (compressed bytes for a zip). */
  bytesRead: number;
  /** Source items looked at: FIT messages, XML elements of interest, CSV data lines. */
  read: number;
  /** Records yielded. */
  emitted: number;
  /** Items read that Tonus does not store (an unsupported HealthKit type); not errors. */
  ignored: number;
  /** How many items were rejected (the list below keeps only the first `MAX_KEPT_REJECTIONS`). */
  rejectedCount: number;
  rejected: Rejection[];
  /** Notes that do not reject anything (an ignored DTD entity, an unknown message type count). */
  warnings: Rejection[];
  /** Set when the file could not be read to its end; records yielded before it stay valid. */
  fatal?: Rejection;
  /**
   * Apple Health only: where a restarted import continues so that it yields exactly what this one had
   * not yet yielded (pass it as `resumeFrom`). Updated before each batch is handed out.
   */
  resumeOffset?: number;
  /** True once the iterator has finished, whether or not `fatal` is set. */
  done: boolean;
};

/**
 * A running import. Iterate either `records` or `batches` (not both: they share one reader), once;
 * `report` fills in as it goes. A batch holds what one input chunk completed, for bulk writes.
 */
export type ImportSession = {
  records: AsyncGenerator<ImportRecord, void, undefined>;
  batches: AsyncGenerator<ImportRecord[], void, undefined>;
  report: ImportReport;
};

/** Options every importer takes. */
export type ImportOptions = {
  /** Overrides the default `source` of the yielded records. */
  source?: string;
  /** Stops the import between chunks; the report ends with fatal `aborted`. */
  signal?: AbortSignal;
};
