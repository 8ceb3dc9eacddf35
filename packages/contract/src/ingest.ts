import { z } from "zod";
import { BP_LIMITS, BpArmSchema, BpNoteSchema, InstantSchema } from "./bp.ts";
import { TimeZoneSchema } from "./common.ts";
import { type DisplayUnit, METRICS, type MetricKey } from "./dashboard-metrics.ts";
import { ErrorCodeSchema } from "./errors.ts";
import { MeasurementUploadSchema } from "./measurements.ts";
import { SCHEMA_MESSAGES } from "./messages.ts";

/**
 * The ingest API (issue 7): the mobile companion and other clients send batches of records with
 * `Authorization: Token tok_…` and an `Idempotency-Key` per batch. Each record carries the client's own
 * UUID (`client_id`), so a batch may be sent again and again (at least once from the client) and every
 * record is stored exactly once. A batch is accepted record by record: valid records are stored, each
 * bad one is answered with its index and an error code. See docs/ingest.md.
 */

/** A sample metric: its storage unit and the plausible range of one sample's value (inclusive). */
export type IngestMetric = { unit: string; min: number; max: number };

/** Storage unit of each display unit's family, as docs/ingest.md names them. */
const STORAGE_UNITS: Record<DisplayUnit, string> = {
  none: "index",
  score: "score",
  percent: "%",
  bpm: "bpm",
  ms: "s",
  ms2: "s²",
  beats: "count",
  steps: "count",
  km: "m",
  mi: "m",
  m: "m",
  kcal: "J",
  kj: "J",
  h: "s",
  min: "s",
  l: "L",
  ml: "L",
  fl_oz: "L",
  g: "kg",
  oz: "kg",
  kg: "kg",
  lb: "kg",
  cm: "m",
  ft: "m",
  in: "m",
  mmhg: "mmHg",
  per_min: "1/min",
  celsius: "degC",
  fahrenheit: "degC",
};

/**
 * The dashboard metrics a client may send as samples (`METRICS` in dashboard-metrics.ts is the one
 * catalogue). Values computed by Tonus from RR intervals or blood-pressure readings are not among them:
 * send the RR measurement or the reading instead. Cumulative metrics (steps, distance, energy, water,
 * carbohydrates, sleep) hold the amount of one sample, dated at its start; the dashboard sums them per
 * day.
 */
const SAMPLE_METRICS = [
  "heart_rate",
  "resting_heart_rate",
  "walking_heart_rate",
  "steps",
  "distance",
  "distance_cycling",
  "active_energy",
  "basal_energy",
  "workout_duration",
  "workout_distance",
  "workout_energy",
  "sleep",
  "sleep_deep",
  "sleep_rem",
  "sleep_awake",
  "sleep_in_bed",
  "weight",
  "height",
  "body_fat",
  "body_water",
  "muscle_mass",
  "bone_mass",
  "fat_mass",
  "water",
  "carbohydrates",
  "spo2",
  "respiratory_rate",
  "skin_temperature",
  "rmssd",
  "sdnn",
  "stress",
  "energy",
  "productivity",
] as const satisfies readonly MetricKey[];

/** Each sample metric's storage unit and plausible range of one sample (inclusive). */
export const INGEST_METRICS = Object.fromEntries(
  SAMPLE_METRICS.map((key) => {
    const def = METRICS[key];
    return [key, { unit: STORAGE_UNITS[def.units.metric], min: def.range[0], max: def.range[1] }];
  }),
) as Record<(typeof SAMPLE_METRICS)[number], IngestMetric>;
export type IngestMetricKey = keyof typeof INGEST_METRICS;
export const IngestMetricKeySchema = z.enum(
  Object.keys(INGEST_METRICS) as [IngestMetricKey, ...IngestMetricKey[]],
);

export const INGEST_LIMITS = {
  /** Records in one batch. */
  maxRecords: 500,
  /** RR measurements in one batch (each is analysed on arrival). */
  maxMeasurements: 20,
  /** A record's time may lie at most this far in the future (clock skew), ms. */
  maxFutureMs: 24 * 3_600_000,
  /** Earliest time a record may carry. */
  earliest: "2000-01-01T00:00:00Z",
} as const;

/** Where a sample came from (`apple_health`, `health_connect`, `polar`, …); `measurement` is Tonus's own. */
export const IngestSourceSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_.-]{0,63}$/, SCHEMA_MESSAGES.ingest_source)
  .refine((source) => source !== "measurement", SCHEMA_MESSAGES.ingest_source_reserved);

/** The source of samples that name none. */
export const INGEST_DEFAULT_SOURCE = "api";

/**
 * One dated value of one metric, in the metric's storage unit (`INGEST_METRICS`). Idempotent by
 * (source, client_id): sending it again stores nothing new; a different value under the same id replaces
 * the stored one (a correction).
 */
export const IngestSampleSchema = z
  .strictObject({
    type: z.literal("sample"),
    client_id: z.uuid(),
    metric: IngestMetricKeySchema,
    at: InstantSchema,
    value: z.number(),
    source: IngestSourceSchema.optional(),
  })
  .superRefine((sample, ctx) => {
    const { min, max, unit } = INGEST_METRICS[sample.metric];
    if (!(sample.value >= min && sample.value <= max))
      ctx.addIssue({ code: "custom", path: ["value"], message: `Outside ${min}–${max} ${unit}` });
  });
export type IngestSample = z.infer<typeof IngestSampleSchema>;

/**
 * A beat-to-beat (RR) measurement, exactly as the measurement upload takes it (`MeasurementUploadSchema`):
 * the server computes every value from the RR series; idempotent by client_id.
 */
export const IngestRrMeasurementSchema = MeasurementUploadSchema.extend({
  type: z.literal("rr_measurement"),
});
export type IngestRrMeasurement = z.infer<typeof IngestRrMeasurementSchema>;

const systolic = z.number().int().min(BP_LIMITS.systolic.min).max(BP_LIMITS.systolic.max);
const diastolic = z.number().int().min(BP_LIMITS.diastolic.min).max(BP_LIMITS.diastolic.max);

/** A blood-pressure reading as the bp log takes it (mmHg, pulse in bpm), with a required client_id. */
export const IngestBpReadingSchema = z
  .strictObject({
    type: z.literal("bp_reading"),
    client_id: z.uuid(),
    systolic,
    diastolic,
    pulse: z.number().int().min(BP_LIMITS.pulse.min).max(BP_LIMITS.pulse.max).nullable().optional(),
    measured_at: InstantSchema,
    time_zone: TimeZoneSchema,
    arm: BpArmSchema.nullable().optional(),
    note: BpNoteSchema.optional(),
  })
  .refine((r) => r.systolic > r.diastolic, {
    message: SCHEMA_MESSAGES.systolic_above_diastolic,
    path: ["systolic"],
  });
export type IngestBpReading = z.infer<typeof IngestBpReadingSchema>;

/** One record of a batch; `type` says which. */
export const IngestRecordSchema = z.discriminatedUnion("type", [
  IngestSampleSchema,
  IngestRrMeasurementSchema,
  IngestBpReadingSchema,
]);
export type IngestRecord = z.infer<typeof IngestRecordSchema>;

/**
 * A batch: the envelope is checked as a whole (400 when it is not an object with 1–500 records, or has
 * more than 20 RR measurements); each record is then checked on its own against `IngestRecordSchema`.
 */
export const IngestBatchSchema = z.object({
  records: z
    .array(z.unknown())
    .min(1)
    .max(INGEST_LIMITS.maxRecords)
    .refine(
      (records) =>
        records.filter((r) => (r as { type?: unknown } | null)?.type === "rr_measurement").length <=
        INGEST_LIMITS.maxMeasurements,
      `At most ${INGEST_LIMITS.maxMeasurements} RR measurements in one batch`,
    ),
});
export type IngestBatch = z.infer<typeof IngestBatchSchema>;

/**
 * What became of one record:
 * - `stored`: a sample written (or written again: a sample is an upsert by its id);
 * - `created`: a new measurement or reading, with the server's `id`;
 * - `duplicate`: a measurement or reading already stored under this client_id, with its `id`;
 * - `rejected`: not stored; `code` (`validation_failed`, `conflict`), `error` and field `issues` say why.
 *   A rejected record is rejected again when resent unchanged: drop or fix it, do not retry it.
 */
export const IngestRecordResultSchema = z.object({
  index: z.number().int(),
  client_id: z.string().nullable(),
  status: z.enum(["stored", "created", "duplicate", "rejected"]),
  id: z.string().optional(),
  code: ErrorCodeSchema.optional(),
  error: z.string().optional(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type IngestRecordResult = z.infer<typeof IngestRecordResultSchema>;

/** The answer to a batch (200 once the batch is committed, whatever became of its records). */
export const IngestResponseSchema = z.object({
  /** Records stored now or earlier (`stored` + `created` + `duplicate`): the client may forget them. */
  accepted: z.number().int(),
  rejected: z.number().int(),
  /** One result per record, in the batch's order. */
  results: z.array(IngestRecordResultSchema),
});
export type IngestResponse = z.infer<typeof IngestResponseSchema>;
