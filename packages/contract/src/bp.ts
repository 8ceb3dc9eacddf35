import { z } from "zod";
import { IsoDateSchema, isStorable, NOT_STORABLE, TimeZoneSchema } from "./common.ts";
import { SCHEMA_MESSAGES } from "./messages.ts";

/**
 * Blood-pressure readings (spec §3 "Blood pressure entry": systolic, diastolic; issue 5 adds pulse,
 * time, arm and note). Pressures in mmHg, pulse in beats per minute. `client_id` (a UUID the client
 * chooses) makes a create idempotent: a retry with the same id answers the stored reading.
 */
export const BP_LIMITS = {
  systolic: { min: 60, max: 300 },
  diastolic: { min: 30, max: 200 },
  pulse: { min: 25, max: 250 },
  noteMax: 500,
} as const;

export const BpArmSchema = z.enum(["left", "right"]);
export type BpArm = z.infer<typeof BpArmSchema>;

/** 2018 ESC/ESH office category (packages/hrv `bpCategory`); the web maps each to a colour and text. */
export const BpCategorySchema = z.enum([
  "optimal",
  "normal",
  "high_normal",
  "grade_1",
  "grade_2",
  "grade_3",
  "isolated_systolic_1",
  "isolated_systolic_2",
  "isolated_systolic_3",
]);
export type BpCategory = z.infer<typeof BpCategorySchema>;

/** An instant with an offset, e.g. `2026-11-23T08:15:00+03:00` or `…Z`. */
export const InstantSchema = z.iso.datetime({ offset: true });

/**
 * A bound of a list's period: an instant in the years 1900–9999 (further out, a year such as 0000 is
 * not a date every database takes).
 */
export const PeriodBoundSchema = InstantSchema.refine((t) => {
  const ms = Date.parse(t);
  return ms >= Date.UTC(1900, 0, 1) && ms < Date.UTC(10000, 0, 1);
}, SCHEMA_MESSAGES.period_range);

const systolic = z.number().int().min(BP_LIMITS.systolic.min).max(BP_LIMITS.systolic.max);
const diastolic = z.number().int().min(BP_LIMITS.diastolic.min).max(BP_LIMITS.diastolic.max);
const pulse = z.number().int().min(BP_LIMITS.pulse.min).max(BP_LIMITS.pulse.max);
/** A reading's note: text PostgreSQL can store, so no NUL character (refused with a 400, not a 500). */
export const BpNoteSchema = z.string().trim().max(BP_LIMITS.noteMax).refine(isStorable, NOT_STORABLE);
const note = BpNoteSchema;

const systolicAboveDiastolic = (v: { systolic?: number; diastolic?: number }) =>
  v.systolic === undefined || v.diastolic === undefined || v.systolic > v.diastolic;
const SYS_DIA_MESSAGE = { message: SCHEMA_MESSAGES.systolic_above_diastolic, path: ["systolic"] };

export const BpReadingCreateSchema = z
  .strictObject({
    client_id: z.uuid().optional(),
    systolic,
    diastolic,
    pulse: pulse.nullable().optional(),
    measured_at: InstantSchema,
    time_zone: TimeZoneSchema,
    arm: BpArmSchema.nullable().optional(),
    note: note.optional(),
  })
  .refine(systolicAboveDiastolic, SYS_DIA_MESSAGE);
export type BpReadingCreate = z.infer<typeof BpReadingCreateSchema>;

/** PATCH: any subset; the stored reading after the change must still have systolic above diastolic. */
export const BpReadingUpdateSchema = z
  .strictObject({
    systolic: systolic.optional(),
    diastolic: diastolic.optional(),
    pulse: pulse.nullable().optional(),
    measured_at: InstantSchema.optional(),
    time_zone: TimeZoneSchema.optional(),
    arm: BpArmSchema.nullable().optional(),
    note: note.optional(),
  })
  .refine(systolicAboveDiastolic, SYS_DIA_MESSAGE);
export type BpReadingUpdate = z.infer<typeof BpReadingUpdateSchema>;

export const BpReadingSchema = z.object({
  id: z.string(),
  client_id: z.string().nullable(),
  systolic: z.number(),
  diastolic: z.number(),
  pulse: z.number().nullable(),
  measured_at: z.string(),
  time_zone: z.string(),
  arm: BpArmSchema.nullable(),
  note: z.string(),
  category: BpCategorySchema,
  /** Server receive time. */
  created: z.string(),
});
export type BpReading = z.infer<typeof BpReadingSchema>;

/** `from`/`to` bound `measured_at` (from inclusive, to exclusive); newest first. */
export const BpReadingListQuerySchema = z.object({
  from: PeriodBoundSchema.optional(),
  to: PeriodBoundSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type BpReadingListQuery = z.infer<typeof BpReadingListQuerySchema>;

export const BpReadingListSchema = z.object({
  results: z.array(BpReadingSchema),
  count: z.number(),
  limit: z.number(),
  offset: z.number(),
});
export type BpReadingList = z.infer<typeof BpReadingListSchema>;

/** The `target_id` of a `bp_log` share link: the owner's whole log (one log per person). */
export const BP_LOG_SHARE_TARGET = "log";

/**
 * What a `bp_log` share link shows (`Authorization: Token tsh_…`): the readings, read-only, and nothing
 * else of the account. Same paging as the owner's list.
 */
export const SharedBpLogSchema = BpReadingListSchema;
export type SharedBpLog = z.infer<typeof SharedBpLogSchema>;

/** Averages by period: days, weeks (starting on `week_start`: 1 Monday, 0 Sunday) or months. */
export const BpPeriodSchema = z.enum(["day", "week", "month"]);
export type BpPeriod = z.infer<typeof BpPeriodSchema>;

/** The longest range the averages may cover, in days (20 years, as the dashboard's charts). */
export const BP_AVERAGES_MAX_DAYS = 7305;

/**
 * `from`/`to`: local calendar days, both included. A reading counts on its own local day, in the time
 * zone it was taken in (`time_zone`), so a morning reading abroad stays a morning reading.
 */
export const BpAveragesQuerySchema = z.object({
  from: IsoDateSchema,
  to: IsoDateSchema,
  period: BpPeriodSchema.default("day"),
  week_start: z.coerce.number().int().min(0).max(1).default(0),
});
export type BpAveragesQuery = z.infer<typeof BpAveragesQuerySchema>;

/** Mean, lowest and highest of one quantity over the readings of a period (mean to one decimal). */
export const BpStatSchema = z.object({ mean: z.number(), min: z.number(), max: z.number() });

/**
 * The average of the readings of a period, and the ESC/ESH 2018 category of that average (the
 * rounded mean systolic and diastolic pressure). `pulse` is over the readings with a pulse only.
 */
export const BpAverageSchema = z.object({
  count: z.number().int(),
  systolic: BpStatSchema,
  diastolic: BpStatSchema,
  pulse: BpStatSchema.nullable(),
  pulse_count: z.number().int(),
  category: BpCategorySchema,
});
export type BpAverage = z.infer<typeof BpAverageSchema>;

/**
 * GET bp/averages/ (and the shared log's): one bucket per period with readings (`t` its first day),
 * oldest first; the whole range; and the 7 and 30 days that end on `to`.
 */
export const BpAveragesSchema = z.object({
  from: IsoDateSchema,
  to: IsoDateSchema,
  period: BpPeriodSchema,
  buckets: z.array(BpAverageSchema.extend({ t: IsoDateSchema })),
  overall: BpAverageSchema.nullable(),
  last_7_days: BpAverageSchema.nullable(),
  last_30_days: BpAverageSchema.nullable(),
});
export type BpAverages = z.infer<typeof BpAveragesSchema>;
