import type { Db } from "../../db/client.ts";
import type { DomainEvent, Subscriber } from "../../lib/events.ts";
import { BP_EVENTS } from "../bp/bp.service.ts";
import { BP_WINDOW_MINUTES, MEASUREMENT_ALGORITHM_VERSION } from "./measurements.compute.ts";
import {
  countStale,
  measurementsByIds,
  measurementsNear,
  type NearMeasurement,
  staleBatch,
} from "./measurements.repo.ts";
import { recomputeRow } from "./measurements.service.ts";

/**
 * Keeping stored results right:
 * - a blood-pressure reading added, changed or deleted → the measurements within 30 minutes of it (of
 *   its old and new time) and those linked to it are recomputed in the event's delivery transaction
 *   (except, for an added reading, those already computed with it);
 * - an algorithm change (`MEASUREMENT_ALGORITHM_VERSION`) or an archive import (rows without a result)
 *   → `recomputeStale` walks every stale row in id order, one transaction per row, so it can stop at any
 *   point and a later run continues with what is still stale.
 */

export const BP_SUBSCRIBER = "measurements.bp-indices";

export type BpChange = { added: boolean; readingId: string | null; times: Date[] };

/**
 * The measurements that must be recomputed for these changes of readings: those computed with a
 * changed or deleted reading, and those within the window of a reading's (old or new) time, except
 * where that reading is new and they were computed with it already (an import stores a batch's
 * readings before its measurements). The changes' times are sorted once, so a page of a hundred events
 * costs a binary search per measurement instead of a pass over every change.
 */
export function touchedRows(
  changes: readonly BpChange[],
  rows: readonly NearMeasurement[],
): NearMeasurement[] {
  const window = BP_WINDOW_MINUTES * 60_000;
  const byTime = changes
    .flatMap((change) => change.times.map((t) => ({ t: t.getTime(), change })))
    .sort((a, b) => a.t - b.t);
  const changedReadings = new Set(
    changes.flatMap((c) => (c.readingId !== null && !c.added ? [c.readingId] : [])),
  );
  return rows.filter((row) => {
    if (row.bpReadingId !== null && changedReadings.has(row.bpReadingId)) return true;
    const at = row.startedAt.getTime();
    let lo = 0;
    let hi = byTime.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((byTime[mid] as { t: number }).t < at - window) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < byTime.length && (byTime[i] as { t: number }).t <= at + window; i++) {
      const { change } = byTime[i] as { change: BpChange };
      // Computed with this new reading already: nothing changes.
      if (!(change.added && change.readingId !== null && change.readingId === row.bpReadingId)) return true;
    }
    return false;
  });
}

export const bpSubscriber: Subscriber = {
  name: BP_SUBSCRIBER,
  types: [BP_EVENTS.added, BP_EVENTS.changed, BP_EVENTS.deleted],
  // One look-up per person for all the events; each measurement they touch is recomputed once, after
  // every reading of the events is in place (they were committed before the events were delivered).
  handle: async (tx: Db, events: readonly DomainEvent[]) => {
    const byUser = new Map<string, BpChange[]>();
    for (const event of events) {
      if (!event.userId) continue;
      const p = event.payload as { reading_id?: string; measured_at?: string; previous_measured_at?: string };
      const times = [p.measured_at, p.previous_measured_at]
        .filter((t): t is string => typeof t === "string")
        .map((t) => new Date(t))
        .filter((d) => !Number.isNaN(d.getTime()));
      const changes = byUser.get(event.userId) ?? [];
      changes.push({ added: event.type === BP_EVENTS.added, readingId: p.reading_id ?? null, times });
      byUser.set(event.userId, changes);
    }
    for (const [userId, changes] of byUser) {
      const rows = await measurementsNear(
        tx,
        userId,
        changes.flatMap((c) => c.times),
        BP_WINDOW_MINUTES,
        changes.flatMap((c) => (c.readingId ? [c.readingId] : [])),
      );
      // Only the touched ones are read whole: an import's readings touch none of the measurements
      // stored beside them (computed with them already), so their series and results stay unread.
      const touched = touchedRows(changes, rows).map((row) => row.id);
      for (const row of await measurementsByIds(tx, userId, touched)) await recomputeRow(tx, row);
    }
  },
};

export type RecomputeProgress = { done: number; failed: number; remaining: number; lastId: string | null };

/**
 * Recomputes stale measurements in batches until none is left, `deadline` passes (ms since epoch) or
 * `maxRows` were handled. Resumable: pass the returned `lastId` to continue after it in the same walk;
 * a fresh walk (no `afterId`) starts again from the first stale row.
 */
export async function recomputeStale(
  db: Db,
  opts: { afterId?: string | null; batch?: number; deadline?: number; maxRows?: number } = {},
): Promise<RecomputeProgress> {
  const batchSize = opts.batch ?? 50;
  let lastId = opts.afterId ?? null;
  let done = 0;
  let failed = 0;
  for (;;) {
    if (opts.deadline !== undefined && Date.now() > opts.deadline) break;
    if (opts.maxRows !== undefined && done + failed >= opts.maxRows) break;
    const rows = await staleBatch(db, MEASUREMENT_ALGORITHM_VERSION, lastId, batchSize);
    if (rows.length === 0) {
      lastId = null;
      break;
    }
    for (const row of rows) {
      const ok = await db.transaction(async (tx) => recomputeRow(tx as unknown as Db, row));
      if (ok) done++;
      else failed++;
      lastId = row.id;
    }
  }
  return { done, failed, remaining: await countStale(db, MEASUREMENT_ALGORITHM_VERSION), lastId };
}
