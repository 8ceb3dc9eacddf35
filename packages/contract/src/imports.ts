import { z } from "zod";
import { isStorable, NOT_STORABLE, storableText, TimeZoneSchema } from "./common.ts";

/**
 * File imports (issue 7): an upload is streamed to disk, recognised by its content, then read by a
 * resumable background job through packages/importers; its progress and report are read here. Every
 * record keeps the id its importer gives it, so importing the same export again adds nothing.
 */
export const IMPORTS_API = {
  /** Upload (POST multipart: `file`, `source`, `time_zone`, optional `recorded_at`); list (GET). */
  imports: "/dashboard_api/v1/imports/",
  /** One import: progress while it runs, the report once it ends. */
  import: "/dashboard_api/v1/imports/:id/",
  /** A generic CSV waits here for its column mapping (POST), then starts. */
  mapping: "/dashboard_api/v1/imports/:id/mapping/",
  /** Stops an import; what it had already written stays. */
  cancel: "/dashboard_api/v1/imports/:id/cancel/",
} as const;

/** Limits that do not depend on the installation (sizes and quotas are in the server's config). */
export const IMPORT_LIMITS = {
  /** Imports a person may have unfinished at once (RELIABILITY U9). */
  maxActive: 2,
  fileNameMaxLength: 200,
  /** How many rejections and warnings a report keeps (the counts go on). */
  keptRejections: 100,
} as const;

/**
 * Why a file or a record was not imported. The importers' codes (packages/importers `RejectReason`)
 * plus the server's own: `rr_refused` (the measurements service refused an RR series), `bp_refused`
 * (a blood-pressure value out of the log's range), `internal_error` (the job failed every retry).
 */
export const ImportReasonSchema = z.enum([
  "empty_file",
  "unknown_format",
  "invalid_header",
  "unexpected_eof",
  "crc_mismatch",
  "invalid_record",
  "not_utf8",
  "too_large",
  "zip_invalid",
  "zip_unsafe_path",
  "zip_too_large",
  "zip_ratio_exceeded",
  "zip_too_many_entries",
  "zip_unsupported",
  "zip_entry_not_found",
  "xml_malformed",
  "xml_entity_declared",
  "aborted",
  "missing_field",
  "invalid_value",
  "invalid_date",
  "unknown_unit",
  "out_of_range",
  "unsupported_type",
  "malformed_line",
  "ambiguous_date",
  "rr_refused",
  "bp_refused",
  "internal_error",
]);
export type ImportReason = z.infer<typeof ImportReasonSchema>;

export const ImportProblemSchema = z.object({
  reason: ImportReasonSchema,
  line: z.number().optional(),
  offset: z.number().optional(),
  detail: z.string().optional(),
  /** The file inside a zip it concerns. */
  entry: z.string().optional(),
});
export type ImportProblem = z.infer<typeof ImportProblemSchema>;

export const ImportStatusSchema = z.enum([
  "needs_mapping",
  "queued",
  "running",
  "done",
  "failed",
  "cancelled",
]);
export type ImportStatus = z.infer<typeof ImportStatusSchema>;

/** What the file turned out to be. */
export const ImportKindSchema = z.enum([
  "apple_health_zip",
  "apple_health_xml",
  "fit",
  "zip",
  "health_export",
  "rr_text",
  "csv",
]);
export type ImportKind = z.infer<typeof ImportKindSchema>;

/**
 * The report: items read, records imported (new), skipped as duplicates (already stored from an
 * earlier import), rejected (with the first reasons), ignored (types Tonus does not store).
 */
export const ImportReportSchema = z.object({
  format: z.string(),
  read: z.number(),
  imported: z.number(),
  duplicates: z.number(),
  rejected: z.number(),
  ignored: z.number(),
  measurements: z.number(),
  bp_readings: z.number(),
  rejections: z.array(ImportProblemSchema),
  warnings: z.array(ImportProblemSchema),
  /** Set when the file could not be read to its end; what came before stays imported. */
  fatal: ImportProblemSchema.nullable(),
});
export type ImportReport = z.infer<typeof ImportReportSchema>;

export const CsvMetricSchema = z.enum([
  "heart_rate",
  "resting_heart_rate",
  "rmssd",
  "sdnn",
  "steps",
  "distance",
  "active_energy",
  "weight",
  "muscle_mass",
  "bone_mass",
  "fat_mass",
  "body_fat",
  "height",
  "spo2",
  "respiratory_rate",
  "sleep",
  "skin_temperature",
]);
export type CsvMetric = z.infer<typeof CsvMetricSchema>;

export const CsvDateOrderSchema = z.enum(["iso", "dmy", "mdy"]);

/** A generic CSV's column mapping, confirmed by the person after the preview. */
export const CsvMappingSchema = z.strictObject({
  time: z.string().min(1).max(200),
  time_format: CsvDateOrderSchema.optional(),
  columns: z
    .array(
      z.strictObject({
        column: z.string().min(1).max(200),
        metric: CsvMetricSchema,
        unit: z.string().max(20).optional(),
      }),
    )
    .min(1)
    .max(50),
});
export type CsvMapping = z.infer<typeof CsvMappingSchema>;

/** The first rows of a generic CSV and a suggested mapping (packages/importers `previewCsv`). */
export const CsvPreviewSchema = z.object({
  delimiter: z.string(),
  header: z.array(z.string()),
  rows: z.array(z.array(z.string())),
  date_order: z.enum(["iso", "dmy", "mdy", "ambiguous", "unknown"]),
  suggested: CsvMappingSchema.nullable(),
  warnings: z.array(z.string()),
});
export type CsvPreview = z.infer<typeof CsvPreviewSchema>;

export const ImportSchema = z.object({
  id: z.string(),
  source_slug: z.string(),
  file_name: z.string(),
  size_bytes: z.number(),
  kind: ImportKindSchema,
  status: ImportStatusSchema,
  cancel_requested: z.boolean(),
  created: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  progress: z.object({
    bytes_read: z.number(),
    bytes_total: z.number(),
    records_read: z.number(),
    imported: z.number(),
    duplicates: z.number(),
    rejected: z.number(),
  }),
  report: ImportReportSchema.nullable(),
  preview: CsvPreviewSchema.nullable(),
});
export type Import = z.infer<typeof ImportSchema>;

export const ImportListQuerySchema = z.object({
  source: storableText(80).optional(),
  limit: z.coerce.number().int().min(1).max(50).default(20),
});
export type ImportListQuery = z.infer<typeof ImportListQuerySchema>;

export const ImportListSchema = z.object({ results: z.array(ImportSchema) });
export type ImportList = z.infer<typeof ImportListSchema>;

export const ImportIdParamsSchema = z.object({ id: z.string().max(100) });

/** The non-file fields of an upload (multipart form fields). */
export const ImportUploadFieldsSchema = z.object({
  source: z.string().trim().min(1).max(80).refine(isStorable, NOT_STORABLE),
  time_zone: TimeZoneSchema.default("UTC"),
  /** When an RR text file was recorded (such files carry no date); the upload time otherwise. */
  recorded_at: z.iso.datetime({ offset: true }).optional(),
});
export type ImportUploadFields = z.infer<typeof ImportUploadFieldsSchema>;
