// Many measurements at once, for a file import: the same rules and results as `storeMeasurement` for
// each upload, with the database read once per call instead of once per measurement (the score
// baselines, the blood-pressure readings near each start, the profile) and one insert, one dashboard
// write and one event insert for all of them.
import type { MeasurementUpload } from "@tonus/contract";
import { MEASUREMENT_LIMITS } from "@tonus/contract";
import {
  addToBaselineSeries,
  type BaselineEntry,
  type BaselineSeries,
  baselineSeriesOf,
  computeBaselineOf,
  type RrAnalysis,
} from "@tonus/hrv";
import type { Db } from "../../db/client.ts";
import type { AppContext } from "../../lib/context.ts";
import { findReadingsBetween } from "../bp/bp.service.ts";
import { type DashboardValue, recordSamples } from "../dashboard-values/dashboard-values.service.ts";
import {
  BP_WINDOW_MINUTES,
  computeMeasurement,
  MEASUREMENT_ALGORITHM_VERSION,
} from "./measurements.compute.ts";
import {
  anthropometryOf,
  baselineHistory,
  findByClientIds,
  insertMeasurements,
} from "./measurements.repo.ts";
import { BASELINE_DAYS, dashboardValuesOf, MEASUREMENT_EVENTS } from "./measurements.service.ts";

type Ctx = Pick<AppContext, "services">;

/** What became of one upload: stored now, already stored (the same series), or refused with why. */
export type StoredOutcome =
  | { status: "created" }
  | { status: "existing" }
  | { status: "refused"; reason: string };

/** At most this many earlier measurements form a baseline (as `earlierResults` reads them). */
const BASELINE_LIMIT = 500;
const DAY_MS = 86_400_000;

/**
 * A baseline entry of a computed measurement. One without rMSSD counts for nothing (as `baselineEntries`
 * leaves it out) but keeps its place among the latest 500, as in `earlierBaseline`.
 */
function entryOf(timeMs: number, v: { rmssd: number | null; psi: number | null; heartRate: number | null }) {
  if (v.rmssd === null) return { timeMs, rmssdMs: Number.NaN } satisfies BaselineEntry;
  return {
    timeMs,
    rmssdMs: v.rmssd,
    ...(v.psi !== null ? { stressIndex: v.psi } : {}),
    ...(v.heartRate !== null ? { hrBpm: v.heartRate } : {}),
  } satisfies BaselineEntry;
}

/** The score baseline at `timeMs`: of the latest 500 of the 60 days before it, newest first. */
function baselineAt(history: BaselineSeries, timeMs: number) {
  const to = firstAtOrAfter(history.timeMs, timeMs);
  const from = Math.max(firstAtOrAfter(history.timeMs, timeMs - BASELINE_DAYS * DAY_MS), to - BASELINE_LIMIT);
  return computeBaselineOf(history, from, to, timeMs);
}

/** Index of the first time at or after `timeMs` (times ascending). */
function firstAtOrAfter(times: readonly number[], timeMs: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] as number) < timeMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The reading nearest to `at` within the window (ties: the earlier), from readings ascending by time. */
function nearest<R extends { measuredAt: Date }>(readings: readonly R[], at: number): R | null {
  const window = BP_WINDOW_MINUTES * 60_000;
  let best: R | null = null;
  let bestGap = Number.POSITIVE_INFINITY;
  for (const r of readings) {
    const t = r.measuredAt.getTime();
    if (t < at - window) continue;
    if (t > at + window) break;
    const gap = Math.abs(t - at);
    if (gap < bestGap) {
      best = r;
      bestGap = gap;
    }
  }
  return best;
}

const sameSeries = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * Stores uploads in the caller's transaction, each as `storeMeasurement` would: idempotent by client id
 * (the same client id with another series is refused), a start more than a day ahead or before 2000 is
 * refused, and so is a series with too few valid intervals. New ones are computed oldest first, each
 * with the earlier ones (stored or new) as its baseline.
 */
export async function storeMeasurements(
  ctx: Ctx,
  tx: Db,
  userId: string,
  uploads: readonly MeasurementUpload[],
  options: {
    now?: Date;
    /** Each upload's `analyzeRr` result when the caller has it already (an import's reader thread). */
    analyses?: readonly (RrAnalysis | undefined)[];
  } = {},
): Promise<StoredOutcome[]> {
  const now = options.now ?? new Date();
  const out: StoredOutcome[] = uploads.map(() => ({ status: "existing" }));
  const stored = new Map(
    (await findByClientIds(tx, userId, [...new Set(uploads.map((u) => u.client_id))])).map(
      (r) => [r.clientId, { rrMs: r.rrMs, rrBreaks: r.rrBreaks }] as const,
    ),
  );
  const fresh: { index: number; upload: MeasurementUpload; startedAt: Date }[] = [];
  uploads.forEach((upload, index) => {
    const held = stored.get(upload.client_id);
    const breaks = upload.rr_breaks ?? [];
    if (held) {
      if (!sameSeries(held.rrMs, upload.rr_ms) || !sameSeries(held.rrBreaks, breaks))
        out[index] = { status: "refused", reason: "This client_id already names another measurement" };
      return;
    }
    const startedAt = new Date(upload.started_at);
    if (startedAt.getTime() > now.getTime() + MEASUREMENT_LIMITS.maxFutureMs)
      out[index] = { status: "refused", reason: "The measurement's start lies in the future" };
    else if (breaks.some((b) => b >= upload.rr_ms.length))
      out[index] = { status: "refused", reason: "A break lies past the end of the RR series" };
    else if (startedAt.getTime() < Date.UTC(2000, 0, 1))
      out[index] = { status: "refused", reason: "The measurement's start is before the year 2000" };
    else {
      // A client id repeated in `uploads`: the first is stored, the others are replays of it.
      stored.set(upload.client_id, { rrMs: upload.rr_ms, rrBreaks: breaks });
      fresh.push({ index, upload, startedAt });
    }
  });
  if (fresh.length === 0) return out;
  fresh.sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.index - b.index);

  const first = (fresh[0] as (typeof fresh)[number]).startedAt.getTime();
  const last = (fresh[fresh.length - 1] as (typeof fresh)[number]).startedAt.getTime();
  const window = BP_WINDOW_MINUTES * 60_000;
  // Ascending by time; each new measurement joins it once computed, so the later ones count it.
  const history = baselineSeriesOf(
    (
      await baselineHistory(tx, userId, {
        first: new Date(first),
        last: new Date(last),
        days: BASELINE_DAYS,
        limit: BASELINE_LIMIT,
      })
    ).map((r) => entryOf(r.timeMs, r)),
  );
  const readings = await findReadingsBetween(tx, userId, new Date(first - window), new Date(last + window));
  const profile = await anthropometryOf(tx, userId);

  const rows = [];
  for (const [i, f] of fresh.entries()) {
    // A few ms of analysis at a time: requests waiting on this thread are answered in between.
    if (i > 0 && i % 8 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const t = f.startedAt.getTime();
    const reading = nearest(readings, t);
    const analysis = options.analyses?.[f.index];
    const result = computeMeasurement({
      ...(analysis ? { analysis } : {}),
      rrMs: f.upload.rr_ms,
      rrBreaks: f.upload.rr_breaks ?? [],
      startedAt: f.startedAt,
      baseline: baselineAt(history, t),
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
    if (!result) {
      out[f.index] = { status: "refused", reason: "The RR series has too few valid intervals" };
      continue;
    }
    const v = result.values;
    addToBaselineSeries(history, entryOf(t, { rmssd: v.rmssd, psi: v.psi, heartRate: v.heart_rate }));
    out[f.index] = { status: "created" };
    rows.push({
      userId,
      clientId: f.upload.client_id,
      source: f.upload.source,
      device: f.upload.device ?? null,
      startedAt: f.startedAt,
      timeZone: f.upload.time_zone,
      rrMs: f.upload.rr_ms,
      rrBreaks: f.upload.rr_breaks ?? [],
      feel: f.upload.feel ?? null,
      mood: f.upload.mood ?? null,
      tags: [...new Set(f.upload.tags ?? [])],
      labels: [...new Set(f.upload.labels ?? [])],
      algorithmVersion: MEASUREMENT_ALGORITHM_VERSION,
      result,
      bpReadingId: result.bp?.reading_id ?? null,
    });
  }
  const inserted = await insertMeasurements(tx, rows);
  // A concurrent writer took a client id between the look-up and the insert: that one is a replay.
  const insertedIds = new Set(inserted.map((r) => r.clientId));
  for (const f of fresh)
    if (out[f.index]?.status === "created" && !insertedIds.has(f.upload.client_id))
      out[f.index] = { status: "existing" };
  // The database answers client ids in its own (lower) case.
  const rowByClientId = new Map(rows.map((r) => [r.clientId.toLowerCase(), r]));
  const created = inserted.flatMap(({ id, clientId }) => {
    const row = rowByClientId.get(clientId.toLowerCase());
    return row ? [{ ...row, id }] : [];
  });
  const values: DashboardValue[] = created.flatMap((row) => dashboardValuesOf(row, row.result));
  // An import's measurements bring many values, each fixed to its measurement's start: the bulk store.
  await recordSamples(tx, userId, values);
  await ctx.services.events.emitEvents(
    tx,
    created.map((row) => ({
      type: MEASUREMENT_EVENTS.created,
      userId,
      payload: { measurement_id: row.id, started_at: row.startedAt.toISOString(), source: row.source },
    })),
  );
  return out;
}
