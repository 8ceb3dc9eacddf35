// One batch's RR series and blood-pressure readings → writes through their modules, in the batch's
// transaction: readings first (so a measurement in the same batch finds the reading taken beside it),
// then the measurements, each module storing the whole batch with a few statements. Each is keyed by a
// UUID derived from the record's own id, so a re-import or a resumed batch stores nothing twice.
import {
  BpReadingCreateSchema,
  type ImportProblem,
  MEASUREMENT_LIMITS,
  type MeasurementSource,
  type MeasurementUpload,
  MeasurementUploadSchema,
} from "@tonus/contract";
import type { RrAnalysis } from "@tonus/hrv";
import type { BloodPressureRecord } from "@tonus/importers";
import type { Db } from "../../db/client.ts";
import type { AppContext } from "../../lib/context.ts";
import type { NewDomainEvent } from "../../lib/events.ts";
import { storeReadings } from "../bp/bp.service.ts";
import { storeMeasurements } from "../measurements/measurements.import.ts";
import { KEPT_PROBLEMS } from "./imports.reader.ts";
import { importUuid, type SplitRrSeries } from "./imports.values.ts";

type Ctx = Pick<AppContext, "services">;

/**
 * Time spent per kind of write since the process started (read by the bench; cheap counters): RR
 * series and readings through their modules, values through the dashboard's bulk paths, and the whole
 * batch transaction with its checkpoint; each as wall time and as the writing thread's own CPU time
 * (`…CpuMs`: what it computed, not what it waited for the database).
 */
export const IMPORT_TIMINGS = {
  slowMs: 0,
  slowCpuMs: 0,
  rrCount: 0,
  bpCount: 0,
  valuesMs: 0,
  valuesCpuMs: 0,
  valuesCount: 0,
  batchMs: 0,
  batchCpuMs: 0,
  batches: 0,
  /** The writer thread's CPU until it could write (starting, loading its code, connecting). */
  writerStartCpuMs: 0,
};

/** The calling thread's CPU time so far, in ms. */
export function threadCpuMs(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Lets timers and requests run. PGlite executes on this thread and a chain of queries resolves in
 * microtasks only, so without this an import would hold the event loop for a whole batch (RELIABILITY R3).
 */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export type SlowOutcome = {
  imported: number;
  duplicates: number;
  rejected: number;
  measurements: number;
  bpReadings: number;
  rejections: ImportProblem[];
};

function refuse(out: SlowOutcome, reason: "rr_refused" | "bp_refused", detail: string) {
  out.rejected++;
  if (out.rejections.length < KEPT_PROBLEMS) out.rejections.push({ reason, detail: detail.slice(0, 200) });
}

/** Where a measurement of this source was taken: devices for device files, a file for RR text. */
function measurementSource(source: string): MeasurementSource {
  return source === "rr_file" ? "file" : "watch";
}

/** The uploads of one RR series record, with the analysis of each, or why it cannot be stored. */
function uploadsOf(
  r: SplitRrSeries,
  timeZone: string,
): { upload: MeasurementUpload; analysis: RrAnalysis }[] | string {
  const parts = r.parts;
  if (parts.length === 0) return "no valid intervals";
  const uploads: { upload: MeasurementUpload; analysis: RrAnalysis }[] = [];
  for (const [i, part] of parts.entries()) {
    const upload = MeasurementUploadSchema.safeParse({
      client_id: importUuid(r.source, parts.length === 1 ? r.clientId : `${r.clientId}#${i}`),
      rr_ms: part.rrMs,
      source: measurementSource(r.source),
      device:
        typeof r.meta?.device === "string"
          ? r.meta.device.slice(0, MEASUREMENT_LIMITS.deviceMaxLength)
          : null,
      started_at: new Date(part.startedAt).toISOString(),
      time_zone: timeZone,
    });
    if (!upload.success) return upload.error.issues[0]?.message ?? "invalid RR series";
    uploads.push({ upload: upload.data, analysis: part.analysis });
  }
  return uploads;
}

async function writeReadings(
  ctx: Ctx,
  tx: Db,
  userId: string,
  records: readonly BloodPressureRecord[],
  timeZone: string,
  out: SlowOutcome,
) {
  const inputs = [];
  for (const r of records) {
    const input = BpReadingCreateSchema.safeParse({
      client_id: importUuid(r.source, r.clientId),
      systolic: Math.round(r.systolicMmHg),
      diastolic: Math.round(r.diastolicMmHg),
      ...(r.pulseBpm !== undefined ? { pulse: Math.round(r.pulseBpm) } : {}),
      measured_at: new Date(r.at).toISOString(),
      time_zone: timeZone,
    });
    if (!input.success) refuse(out, "bp_refused", input.error.issues[0]?.message ?? "invalid reading");
    else inputs.push({ ...input.data, client_id: input.data.client_id ?? importUuid(r.source, r.clientId) });
  }
  const created = await storeReadings(ctx, tx, userId, inputs);
  for (const isNew of created) {
    if (isNew) {
      out.imported++;
      out.bpReadings++;
    } else out.duplicates++;
  }
}

async function writeSeries(
  ctx: Ctx,
  tx: Db,
  userId: string,
  records: readonly SplitRrSeries[],
  timeZone: string,
  out: SlowOutcome,
) {
  const perRecord: { from: number; to: number }[] = [];
  const uploads: MeasurementUpload[] = [];
  const analyses: RrAnalysis[] = [];
  for (const r of records) {
    const own = uploadsOf(r, timeZone);
    if (typeof own === "string") {
      refuse(out, "rr_refused", own);
      continue;
    }
    perRecord.push({ from: uploads.length, to: uploads.length + own.length });
    for (const o of own) {
      uploads.push(o.upload);
      analyses.push(o.analysis);
    }
  }
  const outcomes = await storeMeasurements(ctx, tx, userId, uploads, { analyses });
  for (const { from, to } of perRecord) {
    const mine = outcomes.slice(from, to);
    const created = mine.filter((o) => o.status === "created").length;
    const refused = mine.find((o) => o.status === "refused");
    out.measurements += created;
    if (refused) refuse(out, "rr_refused", refused.reason);
    else if (created > 0) out.imported++;
    else out.duplicates++;
  }
}

/**
 * `ctx` with an event bus that gathers what the modules emit into `events`, for the batch to emit at
 * once: each emit is a statement (on PGlite a dispatch job too) whatever it holds.
 */
function gatheringEvents(ctx: Ctx, events: NewDomainEvent[]): Ctx {
  const emitEvents = async (_tx: Db, list: readonly NewDomainEvent[]) => {
    events.push(...list);
  };
  return { ...ctx, services: { ...ctx.services, events: { ...ctx.services.events, emitEvents } } };
}

/** Writes a batch's RR series and readings in the batch's transaction `tx`. */
export async function writeSlowRecords(
  ctx: Ctx,
  tx: Db,
  userId: string,
  records: readonly (SplitRrSeries | BloodPressureRecord)[],
  timeZone: string,
): Promise<SlowOutcome> {
  const out: SlowOutcome = {
    imported: 0,
    duplicates: 0,
    rejected: 0,
    measurements: 0,
    bpReadings: 0,
    rejections: [],
  };
  if (records.length === 0) return out;
  const t0 = performance.now();
  const c0 = threadCpuMs();
  const readings = records.filter((r): r is BloodPressureRecord => r.kind === "bp");
  const series = records.filter((r): r is SplitRrSeries => r.kind === "rr");
  const events: NewDomainEvent[] = [];
  const gathering = gatheringEvents(ctx, events);
  if (readings.length > 0) await writeReadings(gathering, tx, userId, readings, timeZone, out);
  if (series.length > 0) await writeSeries(gathering, tx, userId, series, timeZone, out);
  await ctx.services.events.emitEvents(tx, events);
  IMPORT_TIMINGS.slowMs += performance.now() - t0;
  IMPORT_TIMINGS.slowCpuMs += threadCpuMs() - c0;
  IMPORT_TIMINGS.rrCount += series.length;
  IMPORT_TIMINGS.bpCount += readings.length;
  return out;
}
