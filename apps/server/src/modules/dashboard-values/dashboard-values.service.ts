import type { Db } from "../../db/client.ts";
import { METRIC_RE, SOURCE_RE, type ValueBatch } from "./dashboard-values.batch.ts";
import {
  changedStagedValues,
  deleteByKeys,
  findByKeys,
  type GroupKey,
  insertNewValues,
  insertStagedFreshValues,
  insertStagedValues,
  lockUser,
  rebuildSummaries,
  recomputeGroups,
  stageValues,
  updateValues,
  type ValueRow,
  zonesOf,
} from "./dashboard-values.repo.ts";

/**
 * The one write path for dated values the dashboard charts: measurements, manual entries, imports,
 * the ingest API and automations all go through `recordValues`. Values are stored in the metric's
 * storage unit (`@tonus/contract` METRICS: SI where there is one — seconds, metres, kilograms,
 * joules, litres; bpm, mmHg, %, scores). Every write keeps the daily summaries (`dashboard_daily`)
 * right in the same transaction, so the chart API never scans raw samples.
 */
export type DashboardValue = {
  /** Metric key, e.g. `heart_rate`, `rmssd`, `stress`, `weight`. */
  metric: string;
  at: Date;
  value: number;
  /** Where it came from, e.g. `measurement`, `manual`, `apple_health`. */
  source: string;
  /** The source's own id for this value: a second write with the same (user, source, client id) updates. */
  clientId: string;
};

/** Rows per statement: large imports are written in slices of this size. */
const SLICE = 5000;

/**
 * Takes the user's summary lock and answers the zone their days are counted in, rebuilding the
 * summaries first when they were built in another zone (the profile's time zone changed) or never.
 */
async function prepare(tx: Db, userId: string): Promise<string | null> {
  await lockUser(tx, userId);
  const zones = await zonesOf(tx, userId);
  if (!zones) return null;
  if (zones.summaryTz !== zones.tz) await rebuildSummaries(tx, userId, zones.tz);
  return zones.tz;
}

function toRows(values: readonly DashboardValue[]): ValueRow[] {
  const byKey = new Map<string, ValueRow>();
  for (const v of values) {
    if (!Number.isFinite(v.value) || Number.isNaN(v.at.getTime())) continue;
    if (!METRIC_RE.test(v.metric)) throw new Error(`Invalid metric key ${v.metric}`);
    if (!SOURCE_RE.test(v.source)) throw new Error(`Invalid source ${v.source}`);
    // A key repeated in one call: the last value wins, as if written one after another.
    byKey.set(`${v.source}\u0000${v.clientId}`, {
      metric: v.metric,
      at: v.at.toISOString(),
      value: v.value,
      source: v.source,
      client_id: v.clientId,
    });
  }
  return [...byKey.values()];
}

/**
 * Writes values for one user in the caller's transaction, idempotent by (user, source, client id): a
 * repeated write with the same metric, time and value changes nothing; a changed one replaces metric,
 * time and value (a recomputed measurement updates its values). Non-finite values are skipped (a value
 * that cannot be computed is absent, not zero). Answers how many values were new or changed.
 */
export async function recordValues(
  tx: Db,
  userId: string,
  values: readonly DashboardValue[],
): Promise<number> {
  const rows = toRows(values);
  if (rows.length === 0) return 0;
  const tz = await prepare(tx, userId);
  if (tz === null) return 0;
  let written = 0;
  for (let i = 0; i < rows.length; i += SLICE)
    written += await writeSlice(tx, userId, tz, rows.slice(i, i + SLICE));
  return written;
}

async function writeSlice(tx: Db, userId: string, tz: string, rows: ValueRow[]): Promise<number> {
  const inserted = await insertNewValues(tx, userId, tz, rows);
  if (inserted.length === rows.length) return inserted.length;
  const isNew = new Set(inserted.map((k) => `${k.source}\u0000${k.client_id}`));
  const others = rows.filter((r) => !isNew.has(`${r.source}\u0000${r.client_id}`));
  const stored = new Map(
    (await findByKeys(tx, userId, others)).map((s) => [`${s.source}\u0000${s.client_id}`, s] as const),
  );
  const changes: { id: number; metric: string; at: string; value: number }[] = [];
  const touched: GroupKey[] = [];
  for (const r of others) {
    const s = stored.get(`${r.source}\u0000${r.client_id}`);
    if (!s) continue;
    const sameTime = new Date(s.at).getTime() === new Date(r.at).getTime();
    if (s.metric === r.metric && sameTime && s.value === r.value) continue;
    changes.push({ id: Number(s.id), metric: r.metric, at: r.at, value: r.value });
    touched.push({ metric: s.metric, source: s.source, at: new Date(s.at).toISOString() });
    touched.push({ metric: r.metric, source: r.source, at: r.at });
  }
  await updateValues(tx, userId, changes);
  await recomputeGroups(tx, userId, tz, touched);
  return inserted.length + changes.length;
}

/**
 * `recordValues` for a batch encoded by `ValueBatchBuilder` (the import's bulk path): the rows are
 * copied into a staging table and written by set-based statements, with the same rules — idempotent by
 * (user, source, client id), a changed value replaces the stored one, summaries kept in the user's
 * local days. `tx` must be a transaction. Answers how many values were new or changed, how many of the
 * new ones were marked counted, and whether any of its keys was stored already.
 *
 * `plainInsertFirst`: try a plain insert first (`insertStagedFreshValues`), for a caller that expects
 * none of the keys to be stored (an import whose last batch found none): it saves `on conflict`'s second
 * look at the key index for every row, and costs a rolled-back attempt when a key is stored after all.
 */
export async function recordValueBatch(
  tx: Db,
  userId: string,
  batch: ValueBatch,
  options: { plainInsertFirst?: boolean } = {},
): Promise<{ written: number; newCounted: number; foundStored: boolean }> {
  if (batch.rows === 0) return { written: 0, newCounted: 0, foundStored: false };
  const tz = await prepare(tx, userId);
  if (tz === null) return { written: 0, newCounted: 0, foundStored: false };
  await stageValues(tx, batch.bytes);
  const plain = options.plainInsertFirst ? await insertStagedFreshValues(tx, userId, tz) : null;
  if (plain) return { written: plain.inserted, newCounted: plain.counted, foundStored: false };
  const inserted = await insertStagedValues(tx, userId, tz);
  if (inserted.inserted === batch.rows)
    return { written: inserted.inserted, newCounted: inserted.counted, foundStored: false };
  const changed = await changedStagedValues(tx, userId);
  const touched: GroupKey[] = [];
  for (const c of changed) {
    touched.push({ metric: c.old_metric, source: c.source, at: new Date(c.old_at).toISOString() });
    touched.push({ metric: c.metric, source: c.source, at: new Date(c.at).toISOString() });
  }
  await updateValues(
    tx,
    userId,
    changed.map((c) => ({
      id: Number(c.id),
      metric: c.metric,
      at: new Date(c.at).toISOString(),
      value: c.value,
    })),
  );
  await recomputeGroups(tx, userId, tz, touched);
  return { written: inserted.inserted + changed.length, newCounted: inserted.counted, foundStored: true };
}

/** Removes values of one source by their client ids (a deleted measurement, a value no longer computable). */
export async function removeValues(
  tx: Db,
  userId: string,
  source: string,
  clientIds: readonly string[],
): Promise<void> {
  if (clientIds.length === 0) return;
  const tz = await prepare(tx, userId);
  if (tz === null) return;
  const gone = await deleteByKeys(tx, userId, source, clientIds);
  await recomputeGroups(
    tx,
    userId,
    tz,
    gone.map((g) => ({ ...g, at: new Date(g.at).toISOString() })),
  );
}

/**
 * Makes every other writer of the user's values wait until the caller's transaction ends (account
 * deletion holds it while it deletes the values and then the user; a writer then finds no user).
 */
export async function holdValueWrites(tx: Db, userId: string): Promise<void> {
  await lockUser(tx, userId);
}

/** Rebuilds the user's summaries in their current zone (after an archive import wrote raw rows). */
export async function rebuildUserSummaries(tx: Db, userId: string): Promise<void> {
  await lockUser(tx, userId);
  const zones = await zonesOf(tx, userId);
  if (zones) await rebuildSummaries(tx, userId, zones.tz);
}

/**
 * Re-counts the user's summaries into local days of their current time zone after a profile change,
 * if they were built in another one (the chart API then never has to).
 */
export async function refreshSummaryZone(tx: Db, userId: string): Promise<void> {
  await lockUser(tx, userId);
  const zones = await zonesOf(tx, userId);
  if (zones?.summaryTz && zones.summaryTz !== zones.tz) await rebuildSummaries(tx, userId, zones.tz);
}

/** Which of these client ids of one source the user already has (an import tells new from duplicates). */
export async function existingClientIds(
  db: Db,
  userId: string,
  source: string,
  clientIds: readonly string[],
): Promise<Set<string>> {
  if (clientIds.length === 0) return new Set();
  const rows = await findByKeys(
    db,
    userId,
    clientIds.map((client_id) => ({ source, client_id })),
  );
  return new Set(rows.map((r) => r.client_id));
}
