import { z } from "zod";
import { BpCategorySchema, InstantSchema, PeriodBoundSchema } from "./bp.ts";
import { isStorable, NOT_STORABLE, TimeZoneSchema } from "./common.ts";
import { SCHEMA_MESSAGES } from "./messages.ts";

/**
 * HRV measurements (spec §3 Measurement, §5, §6). The client uploads only the raw RR series and what
 * the person said; the server computes every value from the RR with packages/hrv and ignores any
 * value the client sends. Durations in ms, powers in ms², heart rate in bpm, scores 0–100.
 */
export const MEASUREMENT_LIMITS = {
  /** Fewest RR intervals accepted (packages/hrv's minimum for any metric). */
  minIntervals: 20,
  /** Most RR intervals accepted in one measurement. */
  maxIntervals: 5000,
  /** Each RR interval must lie in this range, ms (1200 … 12 bpm; artifacts inside it are corrected); anything else is not an RR series. */
  rrMinMs: 50,
  rrMaxMs: 5000,
  /** Total duration of the series, ms (1 hour). */
  maxDurationMs: 3_600_000,
  maxTags: 20,
  maxLabels: 20,
  tagMaxLength: 40,
  deviceMaxLength: 100,
  /** `started_at` may lie at most this far in the future (clock skew), ms. */
  maxFutureMs: 24 * 3_600_000,
} as const;

export const MeasurementSourceSchema = z.enum(["camera", "strap", "watch", "file", "app"]);
export type MeasurementSource = z.infer<typeof MeasurementSourceSchema>;

/** How the person feels and their mood, 1 (worst) … 5 (best). */
export const FeelingSchema = z.number().int().min(1).max(5);

/** A tag or label: no commas (the list filter takes comma-separated tags). */
const TagSchema = z
  .string()
  .trim()
  .min(1)
  .max(MEASUREMENT_LIMITS.tagMaxLength)
  .regex(/^[^,\p{Cc}]+$/u, SCHEMA_MESSAGES.tag_characters);
export const TagsSchema = z.array(TagSchema).max(MEASUREMENT_LIMITS.maxTags);
export const LabelsSchema = z.array(TagSchema).max(MEASUREMENT_LIMITS.maxLabels);

/**
 * An upload. Unknown keys (for example values the client computed itself) are accepted and ignored.
 * `client_id` is the client's own id for this measurement: a retry with the same id answers the stored
 * measurement (200) instead of creating a second one; a new one answers 201.
 */
export const MeasurementUploadSchema = z.object({
  client_id: z.uuid(),
  rr_ms: z
    .array(z.number().min(MEASUREMENT_LIMITS.rrMinMs).max(MEASUREMENT_LIMITS.rrMaxMs))
    .min(MEASUREMENT_LIMITS.minIntervals)
    .max(MEASUREMENT_LIMITS.maxIntervals)
    .refine((rr) => rr.reduce((a, b) => a + b, 0) <= MEASUREMENT_LIMITS.maxDurationMs, {
      message: SCHEMA_MESSAGES.rr_too_long,
    }),
  /**
   * Indices into `rr_ms` of intervals that do not follow the one before them: the beats between were
   * not timed (camera frames lost, a finger lifted), so the series is a chain of runs and no successive
   * difference (RMSSD, pNN50) is taken across a break. Increasing, each in 1…length−1 (the server
   * refuses one past the series).
   */
  rr_breaks: z
    .array(
      z
        .int()
        .min(1)
        .max(MEASUREMENT_LIMITS.maxIntervals - 1),
    )
    .max(MEASUREMENT_LIMITS.maxIntervals)
    .refine((b) => b.every((v, i) => i === 0 || v > (b[i - 1] ?? 0)), {
      message: SCHEMA_MESSAGES.rr_breaks_order,
    })
    .optional(),
  source: MeasurementSourceSchema,
  device: z
    .string()
    .trim()
    .max(MEASUREMENT_LIMITS.deviceMaxLength)
    .refine(isStorable, NOT_STORABLE)
    .nullable()
    .optional(),
  started_at: InstantSchema,
  time_zone: TimeZoneSchema,
  feel: FeelingSchema.nullable().optional(),
  mood: FeelingSchema.nullable().optional(),
  tags: TagsSchema.optional(),
  labels: LabelsSchema.optional(),
});
export type MeasurementUpload = z.infer<typeof MeasurementUploadSchema>;

/** PATCH: what the person may change after saving. */
export const MeasurementUpdateSchema = z.strictObject({
  feel: FeelingSchema.nullable().optional(),
  mood: FeelingSchema.nullable().optional(),
  tags: TagsSchema.optional(),
  labels: LabelsSchema.optional(),
});
export type MeasurementUpdate = z.infer<typeof MeasurementUpdateSchema>;

/**
 * Overall state of a measurement's data, for the spec §8 texts:
 * - `bad_data`: "Something is wrong with this measurement's data, no detailed decoding" (too many
 *   corrected beats, or a flat series);
 * - `not_enough_data`: "Not enough data for full analysis, take another measurement" (280 beats or
 *   fewer: no frequency domain);
 * - `ok`: complete.
 */
export const MeasurementQualitySchema = z.enum(["ok", "not_enough_data", "bad_data"]);
export type MeasurementQuality = z.infer<typeof MeasurementQualitySchema>;

/**
 * One issue of the analysis, with packages/hrv's stable codes (`invalid_values`, `too_short`,
 * `corrected_too_short`, `too_many_artifacts`, `too_short_for_frequency`, `zero_range`,
 * `no_spectral_power`) and score codes (`no_baseline`, `partial_baseline`, `missing_stress_index`),
 * plus `bp_missing_anthropometry` (age, height or weight unknown: some BP indices absent).
 */
export const MeasurementIssueSchema = z.object({ code: z.string() }).catchall(z.unknown());

const num = z.number().nullable();

/**
 * The spec's §3 values, flat. `null` when it cannot be computed (see `issues`).
 * HRV values are of the corrected NN series when the artifact correction changed something, else of
 * the series as recorded (`series` says which). `psi` is Baevsky's stress index SI, `pvi` his
 * vegetative balance index IVR, `power` the total power VLF+LF+HF.
 */
export const MeasurementValuesSchema = z.object({
  heart_rate: num,
  meanrr: num,
  stdrr: num,
  rmssd: num,
  pnn50: num,
  mxdmn: num,
  amo: num,
  psi: num,
  pvi: num,
  power: num,
  vlf: num,
  lf: num,
  hf: num,
  lfhf: num,
  total_beats: num,
});
export type MeasurementValues = z.infer<typeof MeasurementValuesSchema>;

/** Indices from the blood-pressure reading nearest in time (within 30 minutes) and the profile. */
export const MeasurementBpSchema = z.object({
  reading_id: z.string(),
  systolic: z.number(),
  diastolic: z.number(),
  pulse: z.number().nullable(),
  measured_at: z.string(),
  category: BpCategorySchema,
});

export const MeasurementSchema = MeasurementValuesSchema.extend({
  id: z.string(),
  client_id: z.string(),
  source: MeasurementSourceSchema,
  device: z.string().nullable(),
  started_at: z.string(),
  time_zone: z.string(),
  /** Server receive time. */
  created: z.string(),
  algorithm_version: z.string(),
  series: z.enum(["raw", "corrected"]),
  energy: num,
  stress: num,
  performance: num,
  feel: z.number().nullable(),
  mood: z.number().nullable(),
  kerdo: num,
  robinson: num,
  /** Baevsky's adaptation potential (points). */
  functional_changes: num,
  functional_changes_level: z.enum(["satisfactory", "tension", "unsatisfactory", "failure"]).nullable(),
  kek: num,
  kvas: num,
  phys_state: num,
  phys_state_level: z.enum(["low", "below_average", "average", "above_average", "high"]).nullable(),
  bp: MeasurementBpSchema.nullable(),
  tags: z.array(z.string()),
  labels: z.array(z.string()),
  quality: MeasurementQualitySchema,
  issues: z.array(MeasurementIssueSchema),
});
export type Measurement = z.infer<typeof MeasurementSchema>;

export const MeasurementListQuerySchema = z.object({
  /** `started_at` bounds: from inclusive, to exclusive. */
  from: PeriodBoundSchema.optional(),
  to: PeriodBoundSchema.optional(),
  /** Comma-separated tags; a measurement must carry all of them. No control characters (tags have none). */
  tags: z
    .string()
    .max(1000)
    .regex(/^\P{Cc}*$/u, SCHEMA_MESSAGES.tag_filter_characters)
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type MeasurementListQuery = z.infer<typeof MeasurementListQuerySchema>;

/** Newest first. */
export const MeasurementListSchema = z.object({
  results: z.array(MeasurementSchema),
  count: z.number(),
  limit: z.number(),
  offset: z.number(),
});
export type MeasurementList = z.infer<typeof MeasurementListSchema>;

/** Where a value lies against the reference range (`norm`) or the person's own 60-day baseline. */
export const ZoneSchema = z.enum(["below", "within", "above"]);

/**
 * PRO decoding of one parameter. Texts (what it is, what a zone means) live in the web catalogues under
 * `measure.decoding.<parameter>`; the server gives the numbers.
 */
export const ParameterDecodingSchema = z.object({
  parameter: z.string(),
  value: z.number(),
  norm: z.object({ low: z.number(), high: z.number() }).nullable(),
  norm_zone: ZoneSchema.nullable(),
  /** Mean and SD over the person's measurements of the 60 days before this one (null below 3). */
  baseline: z.object({ mean: z.number(), sd: z.number(), count: z.number() }).nullable(),
  baseline_zone: ZoneSchema.nullable(),
});
export type ParameterDecoding = z.infer<typeof ParameterDecodingSchema>;

/** The detail: the measurement plus the raw data for the charts and the (PRO) decoding. */
export const MeasurementDetailSchema = MeasurementSchema.extend({
  /** The RR series as uploaded, ms. */
  rr_ms: z.array(z.number()),
  /** Its breaks as uploaded (indices into `rr_ms` of intervals that do not follow the one before). */
  rr_breaks: z.array(z.number()),
  /** Indices into `rr_ms` of the beats the artifact correction changed, and the type of each. */
  corrected_beats: z.array(z.object({ index: z.number(), type: z.string() })),
  /** Values of the series as recorded and (when correction changed something) of the corrected series. */
  raw: MeasurementValuesSchema.nullable(),
  corrected: MeasurementValuesSchema.nullable(),
  /** Welch PSD for the spectrum chart; null with 280 beats or fewer. */
  spectrum: z.object({ frequency_hz: z.array(z.number()), psd_ms2_per_hz: z.array(z.number()) }).nullable(),
  /**
   * True when the decoding is PRO-only and this viewer is not a customer (spec §6): `decoding` is then
   * null and the web shows the upgrade prompt. Never a 403.
   */
  decoding_locked: z.boolean(),
  /** Null when locked, or when `quality` is `bad_data` (no detailed decoding). */
  decoding: z.array(ParameterDecodingSchema).nullable(),
});
export type MeasurementDetail = z.infer<typeof MeasurementDetailSchema>;
