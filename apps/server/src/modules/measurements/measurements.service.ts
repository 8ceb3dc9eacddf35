import type {
  Measurement,
  MeasurementDetail,
  MeasurementList,
  MeasurementListQuery,
  MeasurementUpdate,
  MeasurementUpload,
} from "@tonus/contract";
import { MEASUREMENT_LIMITS } from "@tonus/contract";
import { type BaselineEntry, computeBaseline } from "@tonus/hrv";
import type { FastifyRequest } from "fastify";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { idOrNone } from "../../lib/route-params.ts";
import { findReadingNear } from "../bp/bp.service.ts";
import {
  type DashboardValue,
  recordValues,
  removeValues,
} from "../dashboard-values/dashboard-values.service.ts";
import { getEntitlements } from "../entitlements/entitlements.service.ts";
import { removeShareLinksTo } from "../shares/shares.service.ts";
import {
  BP_WINDOW_MINUTES,
  computeMeasurement,
  dashboardMetricsOf,
  decode,
  EMPTY_VALUES,
  flatNumbers,
  MEASUREMENT_ALGORITHM_VERSION,
  type MeasurementResult,
} from "./measurements.compute.ts";
import {
  anthropometryOf,
  type BaselineRow,
  deleteMeasurementOf,
  earlierBaseline,
  earlierResults,
  findByClientId,
  findMeasurementOf,
  insertMeasurement,
  listMeasurementsOf,
  type MeasurementRow,
  resultOf,
  resultsInRange,
  tagCounts,
  updateMeasurementOf,
} from "./measurements.repo.ts";

export const MEASUREMENT_EVENTS = {
  created: "measurement.created",
  deleted: "measurement.deleted",
} as const;

/** The dashboard source name of measurement values; each value's client id is `<measurement id>:<metric>`. */
export const DASHBOARD_SOURCE = "measurement";
/** Days of earlier measurements that form the score baseline and the decoding's personal reference. */
export const BASELINE_DAYS = 60;

type Ctx = Pick<AppContext, "config" | "database" | "services">;
const asDb = (tx: unknown) => tx as Db;

export function toWire(row: MeasurementRow): Measurement {
  const r = resultOf(row);
  return {
    ...(r?.values ?? EMPTY_VALUES),
    id: row.id,
    client_id: row.clientId,
    source: row.source as Measurement["source"],
    device: row.device,
    started_at: row.startedAt.toISOString(),
    time_zone: row.timeZone,
    created: row.createdAt.toISOString(),
    algorithm_version: row.algorithmVersion,
    series: r?.series ?? "raw",
    energy: r?.scores.energy ?? null,
    stress: r?.scores.stress ?? null,
    performance: r?.scores.performance ?? null,
    feel: row.feel,
    mood: row.mood,
    kerdo: r?.bpIndices.kerdo ?? null,
    robinson: r?.bpIndices.robinson ?? null,
    functional_changes: r?.bpIndices.functional_changes ?? null,
    functional_changes_level: r?.bpIndices.functional_changes_level ?? null,
    kek: r?.bpIndices.kek ?? null,
    kvas: r?.bpIndices.kvas ?? null,
    phys_state: r?.bpIndices.phys_state ?? null,
    phys_state_level: r?.bpIndices.phys_state_level ?? null,
    bp: r?.bp ?? null,
    tags: row.tags,
    labels: row.labels,
    // A row without a result (imported, waiting for the recompute job) has nothing to decode yet.
    quality: r?.quality ?? "not_enough_data",
    issues: r?.issues ?? [{ code: "pending_recompute" }],
  };
}

/**
 * The detail. The decoding is PRO (spec §6): for a viewer who is not a customer it is withheld with
 * `decoding_locked: true` (a 200, never a 403); with bad data there is no detailed decoding at all.
 */
async function toDetail(ctx: Ctx, row: MeasurementRow, isCustomer: boolean): Promise<MeasurementDetail> {
  const r = resultOf(row);
  let decoding: MeasurementDetail["decoding"] = null;
  if (isCustomer && r && r.quality !== "bad_data") {
    const earlier = await earlierResults(ctx.database.db, {
      userId: row.userId,
      before: row.startedAt,
      days: BASELINE_DAYS,
      exceptId: row.id,
    });
    decoding = decode(
      r,
      earlier.map((e) => flatNumbers(e.result)),
    );
  }
  return {
    ...toWire(row),
    rr_ms: row.rrMs,
    rr_breaks: row.rrBreaks,
    corrected_beats: r?.correctedBeats ?? [],
    raw: r?.raw ?? null,
    corrected: r?.corrected ?? null,
    spectrum: r?.spectrum ?? null,
    decoding_locked: !isCustomer,
    decoding,
  };
}

/** What a measurement writes to the dashboard, one value per metric keyed by the measurement's id. */
export function dashboardValuesOf(
  row: Pick<MeasurementRow, "id" | "startedAt">,
  r: MeasurementResult | null,
): DashboardValue[] {
  return Object.entries(dashboardMetricsOf(r)).map(([metric, value]) => ({
    metric,
    at: row.startedAt,
    value: value ?? Number.NaN,
    source: DASHBOARD_SOURCE,
    clientId: `${row.id}:${metric}`,
  }));
}

/** Writes the measurement's values to the dashboard and removes those it no longer has. */
async function syncDashboard(tx: Db, row: MeasurementRow, r: MeasurementResult | null) {
  const values = dashboardValuesOf(row, r);
  await recordValues(tx, row.userId, values);
  const gone = values.filter((v) => !Number.isFinite(v.value)).map((v) => v.clientId);
  await removeValues(tx, row.userId, DASHBOARD_SOURCE, gone);
}

/** A score baseline's history from `earlierBaseline` (newest first), without the rows lacking rMSSD. */
export function baselineEntries(earlier: readonly BaselineRow[]): BaselineEntry[] {
  const out: BaselineEntry[] = [];
  for (const e of earlier) {
    if (e.rmssd === null) continue;
    out.push({
      timeMs: e.startedAt.getTime(),
      rmssdMs: e.rmssd,
      ...(e.psi !== null ? { stressIndex: e.psi } : {}),
      ...(e.heartRate !== null ? { hrBpm: e.heartRate } : {}),
    });
  }
  return out;
}

/** Computes a result for the user's RR series at `startedAt` from what the database holds now. */
async function computeFor(
  tx: Db,
  userId: string,
  series: { rrMs: readonly number[]; rrBreaks: readonly number[] },
  startedAt: Date,
  exceptId: string | null,
): Promise<MeasurementResult | null> {
  // One after another: a transaction is one connection.
  const earlier = await earlierBaseline(tx, { userId, before: startedAt, days: BASELINE_DAYS, exceptId });
  const reading = await findReadingNear(tx, userId, startedAt, BP_WINDOW_MINUTES);
  const profile = await anthropometryOf(tx, userId);
  return computeMeasurement({
    rrMs: series.rrMs,
    rrBreaks: series.rrBreaks,
    startedAt,
    baseline: computeBaseline(baselineEntries(earlier), startedAt.getTime()),
    reading: reading
      ? {
          id: reading.id,
          systolic: reading.systolic,
          diastolic: reading.diastolic,
          pulse: reading.pulse,
          measuredAt: reading.measuredAt,
        }
      : null,
    profile,
  });
}

const sameSeries = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/** The same context reading and writing through `db` (a transaction): on PGlite a read outside an open
 * transaction would wait for that transaction to end. */
const through = (ctx: Ctx, db: Db): Ctx => ({ ...ctx, database: { ...ctx.database, db } });

/**
 * Stores an upload in `db` (the database, or a caller's transaction: the ingest API stores a batch in
 * one), recomputing everything from the raw RR: client-computed values never reach this function (the
 * schema drops unknown keys). Idempotent by (user, client_id): a retry answers the stored row with
 * `created: false`; the same client id with a different RR series is a 409 `conflict`. Bad input (a
 * start in the future or before 2000, too few valid intervals) is a 400 and writes nothing.
 */
export async function storeMeasurement(
  ctx: Ctx,
  db: Db,
  userId: string,
  input: MeasurementUpload,
  now = new Date(),
): Promise<{ row: MeasurementRow; created: boolean }> {
  const breaks = input.rr_breaks ?? [];
  const replay = (row: MeasurementRow) => {
    if (!sameSeries(row.rrMs, input.rr_ms) || !sameSeries(row.rrBreaks, breaks))
      throw new AppError("conflict", "This client_id already names another measurement", {
        reason: "client_id_taken",
      });
    return { row, created: false };
  };
  const existing = await findByClientId(db, userId, input.client_id);
  if (existing) return replay(existing);

  const startedAt = new Date(input.started_at);
  if (startedAt.getTime() > now.getTime() + MEASUREMENT_LIMITS.maxFutureMs)
    throw new AppError("validation_failed", "The measurement's start lies in the future", {
      issues: [{ path: "started_at", message: "More than 24 hours in the future" }],
    });
  if (breaks.some((b) => b >= input.rr_ms.length))
    throw new AppError("validation_failed", "A break lies past the end of the RR series", {
      issues: [{ path: "rr_breaks", message: "Each break must be below the number of intervals" }],
    });
  if (startedAt.getTime() < Date.UTC(2000, 0, 1))
    throw new AppError("validation_failed", "The measurement's start is before the year 2000", {
      issues: [{ path: "started_at", message: "Before 2000-01-01" }],
    });

  const row = await db.transaction(async (t) => {
    const tx = asDb(t);
    const result = await computeFor(tx, userId, { rrMs: input.rr_ms, rrBreaks: breaks }, startedAt, null);
    if (!result)
      throw new AppError("validation_failed", "The RR series has too few valid intervals", {
        issues: [{ path: "rr_ms", message: "Too few valid RR intervals" }],
      });
    const inserted = await insertMeasurement(tx, {
      userId,
      clientId: input.client_id,
      source: input.source,
      device: input.device ?? null,
      startedAt,
      timeZone: input.time_zone,
      rrMs: input.rr_ms,
      rrBreaks: breaks,
      feel: input.feel ?? null,
      mood: input.mood ?? null,
      tags: dedupe(input.tags ?? []),
      labels: dedupe(input.labels ?? []),
      algorithmVersion: MEASUREMENT_ALGORITHM_VERSION,
      result,
      bpReadingId: result.bp?.reading_id ?? null,
    });
    if (!inserted) return null;
    await syncDashboard(tx, inserted, result);
    await ctx.services.events.emitEvent(tx, {
      type: MEASUREMENT_EVENTS.created,
      userId,
      payload: { measurement_id: inserted.id, started_at: startedAt.toISOString(), source: input.source },
    });
    return inserted;
  });
  if (row) return { row, created: true };
  // A concurrent request with the same client id committed first.
  const winner = await findByClientId(db, userId, input.client_id);
  if (!winner) throw new AppError("conflict", "The measurement could not be stored, try again");
  return replay(winner);
}

/**
 * An upload (see `storeMeasurement`) answered with the detail the person sees. `db` may be a caller's
 * transaction (an upload under an Idempotency-Key stores its answer in the same transaction).
 */
export async function createMeasurement(
  ctx: Ctx,
  userId: string,
  input: MeasurementUpload,
  now = new Date(),
  db: Db = ctx.database.db,
): Promise<{ measurement: MeasurementDetail; created: boolean }> {
  const inDb = through(ctx, db);
  const { row, created } = await storeMeasurement(inDb, db, userId, input, now);
  const isCustomer = (await getEntitlements(inDb, userId)).is_customer;
  return { measurement: await toDetail(inDb, row, isCustomer), created };
}

const dedupe = (list: readonly string[]) => [...new Set(list)];

export async function getMeasurement(ctx: Ctx, userId: string, id: string): Promise<MeasurementDetail> {
  const row = await findMeasurementOf(ctx.database.db, userId, idOrNone(id));
  if (!row) throw new AppError("not_found", "Not found");
  return toDetail(ctx, row, (await getEntitlements(ctx, userId)).is_customer);
}

/** The one measurement a share link opens: decoded as its owner would see it. */
export async function getSharedMeasurement(
  ctx: Ctx,
  ownerId: string,
  id: string,
): Promise<MeasurementDetail> {
  const row = await findMeasurementOf(ctx.database.db, ownerId, idOrNone(id));
  if (!row) throw new AppError("not_found", "Not found");
  return toDetail(ctx, row, (await getEntitlements(ctx, ownerId)).is_customer);
}

/** Comma-separated tags of the list filter, trimmed, empty ones dropped. */
export function parseTagFilter(tags: string | undefined): string[] {
  return dedupe(
    (tags ?? "")
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean),
  ).slice(0, MEASUREMENT_LIMITS.maxTags);
}

export async function listMeasurements(
  ctx: Pick<AppContext, "database">,
  userId: string,
  q: MeasurementListQuery,
): Promise<MeasurementList> {
  const { rows, count } = await listMeasurementsOf(ctx.database.db, userId, {
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
    tags: parseTagFilter(q.tags),
    limit: q.limit,
    offset: q.offset,
  });
  return { results: rows.map(toWire), count, limit: q.limit, offset: q.offset };
}

/** Changes what the person said about a measurement (feel, mood, tags, labels); computed values stay. */
export async function updateMeasurement(
  ctx: Ctx,
  userId: string,
  id: string,
  input: MeasurementUpdate,
): Promise<MeasurementDetail> {
  const row = await updateMeasurementOf(ctx.database.db, userId, idOrNone(id), {
    ...(input.feel !== undefined ? { feel: input.feel } : {}),
    ...(input.mood !== undefined ? { mood: input.mood } : {}),
    ...(input.tags !== undefined ? { tags: dedupe(input.tags) } : {}),
    ...(input.labels !== undefined ? { labels: dedupe(input.labels) } : {}),
  });
  if (!row) throw new AppError("not_found", "Not found");
  return toDetail(ctx, row, (await getEntitlements(ctx, userId)).is_customer);
}

/**
 * Deletes a measurement with its dashboard values and its share links, in one transaction: the links
 * stop opening anything (404) and leave the owner's list.
 */
export async function deleteMeasurement(
  ctx: Ctx,
  userId: string,
  id: string,
  request?: FastifyRequest,
): Promise<void> {
  await ctx.database.db.transaction(async (t) => {
    const tx = asDb(t);
    const row = await deleteMeasurementOf(tx, userId, idOrNone(id));
    if (!row) throw new AppError("not_found", "Not found");
    await removeShareLinksTo(tx, userId, "measurement", row.id, request);
    await removeValues(
      tx,
      userId,
      DASHBOARD_SOURCE,
      dashboardValuesOf(row, null).map((v) => v.clientId),
    );
    await ctx.services.events.emitEvent(tx, {
      type: MEASUREMENT_EVENTS.deleted,
      userId,
      payload: { measurement_id: row.id },
    });
  });
}

/**
 * Recomputes one stored measurement from its raw RR with the current algorithms, the current nearest
 * blood-pressure reading, baseline and profile, inside the caller's transaction. Returns false when the
 * series yields no result (the row is then left as it was).
 */
export async function recomputeRow(tx: Db, row: MeasurementRow): Promise<boolean> {
  const result = await computeFor(tx, row.userId, row, row.startedAt, row.id);
  if (!result) return false;
  const updated = await updateMeasurementOf(tx, row.userId, row.id, {
    result,
    algorithmVersion: MEASUREMENT_ALGORITHM_VERSION,
    bpReadingId: result.bp?.reading_id ?? null,
  });
  if (updated) await syncDashboard(tx, updated, result);
  return true;
}

/**
 * The dashboard metrics of the user's measurements in [from, to) that carry every tag of `tags`, oldest
 * first: the "My health data" tab's tag filter (summaries do not know tags).
 */
export async function listMeasurementMetrics(
  db: Db,
  userId: string,
  q: { from: Date; to: Date; tags: string[] },
): Promise<{ at: Date; tags: string[]; metrics: Record<string, number | null> }[]> {
  const rows = await resultsInRange(db, userId, q);
  return rows.map((r) => ({ at: r.startedAt, tags: r.tags, metrics: dashboardMetricsOf(r.result) }));
}

/** The tags of the user's measurements, most used first. */
export function listMeasurementTags(db: Db, userId: string): Promise<{ tag: string; count: number }[]> {
  return tagCounts(db, userId);
}
