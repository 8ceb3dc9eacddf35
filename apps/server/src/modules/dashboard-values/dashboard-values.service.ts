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
import {
  filterSamples,
  type SampleBatch,
  SampleBatchBuilder,
  sampleKeys,
} from "./dashboard-values.samples.ts";
import {
  findInSampleBlocks,
  removeSampleKeys,
  sourcesWithRows,
  sourcesWithSamples,
} from "./dashboard-values.samples-repo.ts";
import { writeSamples } from "./dashboard-values.samples-write.ts";

/**
 * The one write path for dated values the dashboard charts: measurements, manual entries, imports,
 * the ingest API and automations all go through `recordValues`, or for an import's many samples through
 * `recordSampleBatch` (the bulk store, `dashboard_samples`: a block per source, metric and UTC day; a key
 * either store holds is written where it is). Values are stored in the metric's
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
  // A value whose key an import's block holds is that sample: it is written there.
  const { written: inBlocks, rest } = await writeFoundInBlocks(tx, userId, tz, rows);
  let written = inBlocks;
  for (let i = 0; i < rest.length; i += SLICE)
    written += await writeSlice(tx, userId, tz, rest.slice(i, i + SLICE));
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
 * Writes the values whose key the user's block of their source, metric and UTC day holds into that block
 * (an import's sample sent again, or changed), and answers how many changed and the other values.
 */
async function writeFoundInBlocks(
  tx: Db,
  userId: string,
  tz: string,
  rows: readonly ValueRow[],
): Promise<{ written: number; rest: readonly ValueRow[] }> {
  const withBlocks = await sourcesWithSamples(tx, userId, [...new Set(rows.map((r) => r.source))]);
  if (withBlocks.size === 0) return { written: 0, rest: rows };
  const found = await findInSampleBlocks(
    tx,
    userId,
    rows.flatMap((r, i) =>
      withBlocks.has(r.source)
        ? [{ i, source: r.source, metric: r.metric, at_ms: Date.parse(r.at), client_id: r.client_id }]
        : [],
    ),
  );
  if (found.length === 0) return { written: 0, rest: rows };
  const builder = new SampleBatchBuilder();
  const inBlocks = new Set(found.map((f) => f.i));
  for (const i of inBlocks) {
    const r = rows[i] as ValueRow;
    builder.add(r.metric, Date.parse(r.at), r.value, r.source, r.client_id, false);
  }
  const { written } = await writeSamples(tx, userId, tz, builder.build());
  return { written, rest: rows.filter((_, i) => !inBlocks.has(i)) };
}

/**
 * Writes a batch of samples (`SampleBatchBuilder`, an import's bulk path) into the bulk store
 * (`dashboard_samples`), with the same rules as `recordValues`: idempotent by (user, source, client id)
 * within the sample's metric and UTC day, a changed value replaces the stored one, summaries kept in the
 * user's local days. A sample whose key `dashboard_values` holds (written there by another path) is
 * written there instead, so no key is stored twice. `tx` must be a transaction. Answers how many samples
 * were new or changed, how many of the new ones were marked counted, and whether any was stored already.
 * `keysFixTime`: each key fixes its sample's time (an importer's ids), which lets a day's later samples be
 * appended to its block without comparing keys.
 */
export async function recordSampleBatch(
  tx: Db,
  userId: string,
  batch: SampleBatch,
  options: { keysFixTime?: boolean } = {},
): Promise<{ written: number; newCounted: number; foundStored: boolean }> {
  if (batch.atMs.length === 0) return { written: 0, newCounted: 0, foundStored: false };
  const tz = await prepare(tx, userId);
  if (tz === null) return { written: 0, newCounted: 0, foundStored: false };
  const fixed = options.keysFixTime ?? false;
  const withRows = await sourcesWithRows(tx, userId, [...new Set(batch.blocks.map((b) => b.source))]);
  if (withRows.size === 0) return writeSamples(tx, userId, tz, batch, fixed);
  const keys = sampleKeys(batch);
  const inRows = await rowsHolding(tx, userId, batch, keys, withRows);
  if (inRows.length === 0) return writeSamples(tx, userId, tz, batch, fixed);
  let written = 0;
  for (let i = 0; i < inRows.length; i += SLICE)
    written += await writeSlice(tx, userId, tz, inRows.slice(i, i + SLICE));
  const held = new Set(inRows.map((r) => `${r.source}\u0000${r.client_id}`));
  const sourceOf = new Array<string>(keys.length);
  for (const b of batch.blocks) sourceOf.fill(b.source, b.start, b.end);
  const rest = filterSamples(batch, keys, (e) => !held.has(`${sourceOf[e]}\u0000${keys[e]}`));
  const out = await writeSamples(tx, userId, tz, rest, fixed);
  return { written: written + out.written, newCounted: out.newCounted, foundStored: true };
}

/**
 * `recordValues` into the bulk store, for many values whose client ids fix their metric and time (an
 * import's measurements, keyed by the measurement's id): written as one batch of samples. Answers how
 * many were new or changed.
 */
export async function recordSamples(
  tx: Db,
  userId: string,
  values: readonly DashboardValue[],
): Promise<number> {
  const builder = new SampleBatchBuilder();
  for (const v of values) builder.add(v.metric, v.at.getTime(), v.value, v.source, v.clientId, false);
  return (await recordSampleBatch(tx, userId, builder.build(), { keysFixTime: true })).written;
}

/** The samples of the batch whose key `dashboard_values` holds, as rows. */
async function rowsHolding(
  tx: Db,
  userId: string,
  batch: SampleBatch,
  keys: readonly string[],
  withRows: ReadonlySet<string>,
) {
  const candidates: ValueRow[] = [];
  for (const b of batch.blocks) {
    if (!withRows.has(b.source)) continue;
    for (let e = b.start; e < b.end; e++)
      candidates.push({
        metric: b.metric,
        at: new Date(batch.atMs[e] as number).toISOString(),
        value: batch.vals[e] as number,
        source: b.source,
        client_id: keys[e] as string,
      });
  }
  const held = new Set<string>();
  for (let i = 0; i < candidates.length; i += SLICE)
    for (const s of await findByKeys(tx, userId, candidates.slice(i, i + SLICE)))
      held.add(`${s.source}\u0000${s.client_id}`);
  return candidates.filter((c) => held.has(`${c.source}\u0000${c.client_id}`));
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

/**
 * Removes values of one source by their client ids (a deleted measurement, a value no longer computable),
 * from either store: in the bulk store on whatever day and metric they lie.
 */
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
  if ((await sourcesWithSamples(tx, userId, [source])).size > 0)
    gone.push(...(await removeSampleKeys(tx, userId, source, clientIds)));
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
