// Writing a batch of samples into the bulk store, for a caller holding the user's lock and knowing the zone
// of their days: blocks not stored yet are inserted whole, the others merged, and the new samples folded
// into the daily summaries here, from their local days as PostgreSQL counts them.
import type { Db } from "../../db/client.ts";
import { type GroupKey, recomputeGroups } from "./dashboard-values.repo.ts";
import { DAY_MS, encodeSampleBlocks, type SampleBatch } from "./dashboard-values.samples.ts";
import {
  appendStagedBlocks,
  bucketOffsets,
  foldSampleDays,
  insertStagedBlocks,
  localDaysOf,
  mergeStagedBlocks,
  type SampleFold,
  stageSamples,
  storedStagedBlocks,
} from "./dashboard-values.samples-repo.ts";

const BUCKET_MS = 900_000;

/**
 * The local day (days since 1970) in `tz` of each element `elements[j]` of the batch. Zones change their
 * offset at most once in a quarter hour, at a whole quarter hour in every modern rule: the offset at a
 * bucket's first and last millisecond, asked once per bucket, gives its elements' days; the elements of
 * a bucket whose offset changes within it are asked one by one.
 */
async function localDays(tx: Db, tz: string, atMs: Float64Array, elements: readonly number[]) {
  const buckets: number[] = [];
  let last = Number.NaN;
  const seen = new Set<number>();
  for (const e of elements) {
    const b = Math.floor((atMs[e] as number) / BUCKET_MS);
    if (b === last || seen.has(b)) continue;
    last = b;
    seen.add(b);
    buckets.push(b);
  }
  const offsets = new Map<number, number | null>();
  for (const o of await bucketOffsets(tx, tz, buckets)) offsets.set(o.b, o.o0 === o.o1 ? o.o0 : null);
  const days = new Array<number>(elements.length);
  const exact: number[] = [];
  elements.forEach((e, j) => {
    const at = atMs[e] as number;
    const offset = offsets.get(Math.floor(at / BUCKET_MS));
    if (offset === null || offset === undefined) exact.push(j);
    else days[j] = Math.floor((at + offset) / DAY_MS);
  });
  if (exact.length > 0) {
    const asked = await localDaysOf(
      tx,
      tz,
      exact.map((j) => atMs[elements[j] as number] as number),
    );
    exact.forEach((j, k) => {
      days[j] = asked[k] as number;
    });
  }
  return days;
}

/** Folds elements of the batch (indexes, each with its block) into the daily summaries. */
async function foldElements(
  tx: Db,
  userId: string,
  tz: string,
  batch: SampleBatch,
  elements: readonly number[],
  blockOf: readonly number[],
): Promise<void> {
  if (elements.length === 0) return;
  const days = await localDays(tx, tz, batch.atMs, elements);
  const folds = new Map<string, SampleFold>();
  elements.forEach((e, j) => {
    const block = batch.blocks[blockOf[j] as number];
    if (!block) return;
    const d = days[j] as number;
    const at = batch.atMs[e] as number;
    const v = batch.vals[e] as number;
    const id = `${block.source}\u0000${block.metric}\u0000${d}`;
    const f = folds.get(id);
    if (!f) {
      folds.set(id, {
        metric: block.metric,
        source: block.source,
        d,
        n: 1,
        sum: v,
        min: v,
        max: v,
        last_ms: at,
        last_value: v,
      });
      return;
    }
    f.n++;
    f.sum += v;
    if (v < f.min) f.min = v;
    if (v > f.max) f.max = v;
    // Of values at the same instant, the greatest counts as the last (as the summaries' rebuild has it).
    if (at > f.last_ms || (at === f.last_ms && v > f.last_value)) {
      f.last_ms = at;
      f.last_value = v;
    }
  });
  await foldSampleDays(tx, userId, [...folds.values()]);
}

/**
 * Writes `batch` into the bulk store. Answers how many samples were new or changed, how many of the new
 * ones were marked counted, and whether any block was stored. `keysFixTime`: the caller's keys fix their
 * samples' times (an importer's ids hold them), so a block whose samples all come after the stored
 * block's is appended to it as it is instead of merged sample by sample (an import's batches meet on
 * the day one ends and the next begins).
 */
export async function writeSamples(
  tx: Db,
  userId: string,
  tz: string,
  batch: SampleBatch,
  keysFixTime = false,
): Promise<{ written: number; newCounted: number; foundStored: boolean }> {
  if (batch.atMs.length === 0) return { written: 0, newCounted: 0, foundStored: false };
  await stageSamples(
    tx,
    encodeSampleBlocks(
      batch,
      batch.blocks.map((_, i) => i),
    ),
  );
  const stored = await storedStagedBlocks(tx, userId);
  if (stored.length < batch.blocks.length) await insertStagedBlocks(tx, userId, stored);
  const appended = new Set(keysFixTime ? await appendStagedBlocks(tx, userId, stored) : []);
  const merged = await mergeStagedBlocks(
    tx,
    userId,
    stored.filter((i) => !appended.has(i)),
  );

  // New samples: every one of the blocks inserted or appended whole, and those a merge added.
  const isStored = new Set(stored.filter((i) => !appended.has(i)));
  const elements: number[] = [];
  const blockOf: number[] = [];
  let newCounted = 0;
  batch.blocks.forEach((b, i) => {
    if (isStored.has(i)) return;
    for (let e = b.start; e < b.end; e++) {
      elements.push(e);
      blockOf.push(i);
      newCounted += batch.counted[e] as number;
    }
  });
  const touched: GroupKey[] = [];
  for (const m of merged) {
    const b = batch.blocks[m.i];
    if (!b) continue;
    const e = b.start + m.o - 1;
    if (m.old_a === null) {
      elements.push(e);
      blockOf.push(m.i);
      newCounted += batch.counted[e] as number;
    } else {
      // Changed: both days are counted again from what is stored.
      touched.push({ metric: b.metric, source: b.source, at: new Date(m.old_a).toISOString() });
      touched.push({
        metric: b.metric,
        source: b.source,
        at: new Date(batch.atMs[e] as number).toISOString(),
      });
    }
  }
  await foldElements(tx, userId, tz, batch, elements, blockOf);
  await recomputeGroups(tx, userId, tz, touched);
  return {
    written: elements.length + touched.length / 2,
    newCounted,
    foundStored: isStored.size > 0,
  };
}
