// One batch of records → writes. RR series go through the measurements service and blood-pressure
// readings through the bp service (each idempotent by a client UUID derived from the record); samples
// and workouts become dashboard values, returned to the job, which writes them with the batch's
// checkpoint in one transaction.
import {
  BpReadingCreateSchema,
  type ImportProblem,
  MEASUREMENT_LIMITS,
  type MeasurementSource,
  MeasurementUploadSchema,
} from "@tonus/contract";
import type { BloodPressureRecord, ImportRecord, RrSeriesRecord } from "@tonus/importers";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { createReading } from "../bp/bp.service.ts";
import { type DashboardValue, existingClientIds } from "../dashboard-values/dashboard-values.service.ts";
import { createMeasurement } from "../measurements/measurements.service.ts";
import { KEPT_PROBLEMS } from "./imports.reader.ts";
import { importUuid, valuesOfSample, valuesOfWorkout } from "./imports.values.ts";

type Ctx = Pick<AppContext, "config" | "database" | "services">;

/**
 * Lets timers and requests run. PGlite executes on this thread and a chain of queries resolves in
 * microtasks only, so without this an import would hold the event loop for a whole batch (RELIABILITY R3).
 */
/**
 * Time spent per kind of write since the process started (read by the bench; cheap counters): RR
 * series through the measurements service, readings through the bp service, values through the
 * dashboard's `recordValues` with the batch's checkpoint.
 */
export const IMPORT_TIMINGS = { rrMs: 0, rrCount: 0, bpMs: 0, bpCount: 0, valuesMs: 0, valuesCount: 0 };

export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export type BatchOutcome = {
  values: DashboardValue[];
  imported: number;
  duplicates: number;
  rejected: number;
  /** Records with nothing to store (an unmeasurable sleep level). */
  ignored: number;
  measurements: number;
  bpReadings: number;
  rejections: ImportProblem[];
};

const emptyOutcome = (): BatchOutcome => ({
  values: [],
  imported: 0,
  duplicates: 0,
  rejected: 0,
  ignored: 0,
  measurements: 0,
  bpReadings: 0,
  rejections: [],
});

function refuse(out: BatchOutcome, reason: "rr_refused" | "bp_refused", detail: string) {
  out.rejected++;
  if (out.rejections.length < KEPT_PROBLEMS) out.rejections.push({ reason, detail: detail.slice(0, 200) });
}

/** Where a measurement of this source was taken: devices for device files, a file for RR text. */
function measurementSource(source: string): MeasurementSource {
  return source === "rr_file" ? "file" : "watch";
}

/**
 * Splits a long RR series into measurements the measurements service accepts (at most one hour and
 * 5,000 intervals each); intervals outside its range are dropped (they are not beats).
 */
export function splitRrSeries(r: RrSeriesRecord): { startedAt: number; rrMs: number[] }[] {
  const valid = r.rrMs.filter((v) => v >= MEASUREMENT_LIMITS.rrMinMs && v <= MEASUREMENT_LIMITS.rrMaxMs);
  const parts: { startedAt: number; rrMs: number[] }[] = [];
  let current: number[] = [];
  let start = r.startedAt;
  let elapsed = 0;
  let sum = 0;
  for (const v of valid) {
    if (current.length >= MEASUREMENT_LIMITS.maxIntervals || sum + v > MEASUREMENT_LIMITS.maxDurationMs) {
      parts.push({ startedAt: start, rrMs: current });
      start = r.startedAt + elapsed;
      current = [];
      sum = 0;
    }
    current.push(v);
    sum += v;
    elapsed += v;
  }
  if (current.length > 0) parts.push({ startedAt: start, rrMs: current });
  return parts;
}

/** The key a slow record is remembered by between a write and its batch's commit. */
export const slowKey = (r: { source: string; clientId: string }) => `${r.source}|${r.clientId}`;

type WriteOptions = {
  timeZone: string;
  /** Slow records a run that died had written before its batch committed: found again, they count as new. */
  writtenBefore: ReadonlySet<string>;
};

async function writeRr(ctx: Ctx, userId: string, r: RrSeriesRecord, o: WriteOptions, out: BatchOutcome) {
  const timeZone = o.timeZone;
  const ours = o.writtenBefore.has(slowKey(r));
  const parts = splitRrSeries(r);
  let created = 0;
  let existing = 0;
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
    if (!upload.success) {
      refuse(out, "rr_refused", upload.error.issues[0]?.message ?? "invalid RR series");
      return;
    }
    try {
      const result = await createMeasurement(ctx, userId, upload.data);
      if (result.created || ours) created++;
      else existing++;
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      refuse(out, "rr_refused", e.message);
      return;
    }
  }
  if (created > 0) {
    out.imported++;
    out.measurements += created;
  } else if (existing > 0) out.duplicates++;
  else refuse(out, "rr_refused", "no valid intervals");
}

async function writeBp(ctx: Ctx, userId: string, r: BloodPressureRecord, o: WriteOptions, out: BatchOutcome) {
  const timeZone = o.timeZone;
  const input = BpReadingCreateSchema.safeParse({
    client_id: importUuid(r.source, r.clientId),
    systolic: Math.round(r.systolicMmHg),
    diastolic: Math.round(r.diastolicMmHg),
    ...(r.pulseBpm !== undefined ? { pulse: Math.round(r.pulseBpm) } : {}),
    measured_at: new Date(r.at).toISOString(),
    time_zone: timeZone,
  });
  if (!input.success) {
    refuse(out, "bp_refused", input.error.issues[0]?.message ?? "invalid reading");
    return;
  }
  const result = await createReading(ctx, userId, input.data);
  if (result.created || o.writtenBefore.has(slowKey(r))) {
    out.imported++;
    out.bpReadings++;
  } else out.duplicates++;
}

/**
 * Writes a batch's RR series and readings, and works out its dashboard values: repeated ids within the
 * batch are kept once (the last), and values already stored count as duplicates (by their record's own
 * value). `tx` is only read from here; the caller writes `values` in the batch's transaction.
 */
export async function prepareBatch(
  ctx: Ctx,
  db: Db,
  userId: string,
  records: readonly ImportRecord[],
  options: {
    timeZone: string;
    renewLease?: () => Promise<unknown>;
    writtenBefore?: ReadonlySet<string>;
  },
): Promise<BatchOutcome> {
  const o: WriteOptions = { timeZone: options.timeZone, writtenBefore: options.writtenBefore ?? new Set() };
  const renewLease = options.renewLease ?? (async () => {});
  const out = emptyOutcome();
  let slow = 0;
  // The record's own value decides new or duplicate; the values it brings along follow it.
  const byKey = new Map<string, { primary: boolean; value: DashboardValue }>();
  for (const r of records) {
    if (r.kind === "rr" || r.kind === "bp") {
      const t0 = performance.now();
      if (r.kind === "rr") await writeRr(ctx, userId, r, o, out);
      else await writeBp(ctx, userId, r, o, out);
      const ms = performance.now() - t0;
      if (r.kind === "rr") {
        IMPORT_TIMINGS.rrMs += ms;
        IMPORT_TIMINGS.rrCount++;
      } else {
        IMPORT_TIMINGS.bpMs += ms;
        IMPORT_TIMINGS.bpCount++;
      }
      // Each goes through a service with its own transaction: a long run of them keeps the lease alive.
      if (++slow % 20 === 0) await renewLease();
      await yieldToEventLoop();
    } else {
      const values = r.kind === "sample" ? valuesOfSample(r) : valuesOfWorkout(r);
      if (values.length === 0) {
        out.ignored++;
        continue;
      }
      values.forEach((value, i) => {
        const key = `${value.source}\u0000${value.clientId}`;
        if (i === 0 && byKey.has(key)) out.duplicates++;
        byKey.set(key, { primary: i === 0 || byKey.get(key)?.primary === true, value });
      });
    }
  }
  const bySource = new Map<string, string[]>();
  for (const { primary, value } of byKey.values()) {
    if (!primary) continue;
    const list = bySource.get(value.source) ?? [];
    list.push(value.clientId);
    bySource.set(value.source, list);
  }
  for (const [source, ids] of bySource) {
    const existing = await existingClientIds(db, userId, source, ids);
    await yieldToEventLoop();
    out.duplicates += existing.size;
    out.imported += ids.length - existing.size;
  }
  out.values = [...byKey.values()].map((v) => v.value);
  return out;
}
