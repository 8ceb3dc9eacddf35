// One batch of an import, written in one transaction with its checkpoint. The import job calls it on the
// main thread (PGlite: the database lives there); on PostgreSQL the reader's worker thread calls it over
// a connection of its own, so a large import leaves the main thread to the API (RELIABILITY R3).
import type { ImportProblem } from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import type { AppContext } from "../../lib/context.ts";
import { recordSampleBatch, recordValueBatch } from "../dashboard-values/dashboard-values.service.ts";
import { type Checkpoint, KEPT_PROBLEMS, type ParserCounts } from "./imports.reader.ts";
import { commitBatch, type ImportRow } from "./imports.repo.ts";
import type { WorkerBatch } from "./imports.worker.ts";
import { IMPORT_TIMINGS, threadCpuMs, writeSlowRecords } from "./imports.writer.ts";

/** A run's lease: renewed with every batch; a run that stops renewing it is presumed dead after this. */
export const IMPORT_LEASE_MS = 20_000;

/** What a run adds to the parser's counts, stored with each checkpoint. */
export type ServerCounts = {
  measurements: number;
  bpReadings: number;
  rejected: number;
  ignored: number;
  rejections: ImportProblem[];
};

export type StoredCheckpoint = Checkpoint & {
  counts?: ParserCounts;
  server?: ServerCounts;
};

/**
 * Carried from batch to batch of one run (not stored): whether the run tries a plain insert of its
 * values (`recordValueBatch`'s `plainInsertFirst`) and whether the last batch found none of its values
 * stored. A first import's batches then try it; a re-import's stop trying after the first batch that
 * found its values there, and try again after one that found none. PostgreSQL only: on PGlite one 1 GB
 * import grew the process by 358 MB with it against 270 MB without (the engine's memory keeps its
 * high-water mark), and its speed there was not measured.
 */
export type RunHint = { plainInsert: boolean; nothingStored: boolean };
export const newRunHint = (plainInsert = false): RunHint => ({ plainInsert, nothingStored: true });

/** What writing a batch needs: the database, and where the RR series and readings announce themselves. */
export type BatchCtx = { database: { db: Db } } & Pick<AppContext, "services">;

/** The import as a batch sees it: whose it is and what it has counted so far. */
export type BatchRow = Pick<ImportRow, "id" | "userId" | "importedCount" | "duplicateCount">;

/** After a committed batch: the import's totals, and whether someone asked to cancel it. */
export type BatchState = {
  cancelRequested: boolean;
  totals: { importedCount: number; duplicateCount: number; rejectedCount: number };
};

/**
 * Writes one batch in one transaction: its RR series and readings through their modules, its values
 * through the dashboard's bulk path, and its checkpoint. A run killed before the commit leaves nothing of
 * the batch; the next run writes it again from the checkpoint before it. Adds to `server`; answers null
 * when the import is gone (its account was deleted) or ended elsewhere.
 */
export async function writeBatch(
  ctx: BatchCtx,
  row: BatchRow,
  batch: WorkerBatch,
  timeZone: string,
  server: ServerCounts,
  hint: RunHint = newRunHint(),
): Promise<BatchState | null> {
  const db = ctx.database.db;
  const t0 = performance.now();
  const c0 = threadCpuMs();
  const result = await db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const slow = await writeSlowRecords(ctx, tx, row.userId, batch.slow, timeZone);
    const t1 = performance.now();
    const c1 = threadCpuMs();
    // Every importer's client id holds its sample's time.
    const samples = await recordSampleBatch(tx, row.userId, batch.samples, { keysFixTime: true });
    const values = await recordValueBatch(tx, row.userId, batch.values, {
      plainInsertFirst: hint.plainInsert && hint.nothingStored,
    });
    hint.nothingStored = !values.foundStored;
    IMPORT_TIMINGS.valuesMs += performance.now() - t1;
    IMPORT_TIMINGS.valuesCpuMs += threadCpuMs() - c1;
    IMPORT_TIMINGS.valuesCount += batch.values.rows + batch.samples.atMs.length;
    const next: ServerCounts = {
      measurements: server.measurements + slow.measurements,
      bpReadings: server.bpReadings + slow.bpReadings,
      rejected: server.rejected + batch.rejected + slow.rejected,
      ignored: server.ignored + batch.ignored,
      rejections: [...server.rejections, ...batch.rejections, ...slow.rejections].slice(0, KEPT_PROBLEMS),
    };
    const imported = slow.imported + values.newCounted + samples.newCounted;
    const duplicates =
      slow.duplicates +
      batch.values.counted -
      values.newCounted +
      batch.values.repeatedCounted +
      batch.samples.countedN -
      samples.newCounted +
      batch.samples.repeatedCounted;
    const checkpoint: StoredCheckpoint = {
      records: batch.recordsEnd,
      ...(batch.resumeOffset !== undefined ? { resumeOffset: batch.resumeOffset, base: batch.counts } : {}),
      counts: batch.counts,
      server: next,
    };
    const committed = await commitBatch(
      tx,
      row.id,
      {
        checkpoint,
        bytesRead: batch.bytesRead,
        recordsRead: batch.counts.read,
        imported,
        duplicates,
        rejected: batch.counts.rejected + next.rejected,
      },
      IMPORT_LEASE_MS,
    );
    return committed ? { ...committed, next, imported, duplicates } : null;
  });
  IMPORT_TIMINGS.batchMs += performance.now() - t0;
  IMPORT_TIMINGS.batchCpuMs += threadCpuMs() - c0;
  IMPORT_TIMINGS.batches++;
  if (!result) return null;
  Object.assign(server, result.next);
  return {
    cancelRequested: result.cancelRequested,
    totals: {
      importedCount: row.importedCount + result.imported,
      duplicateCount: row.duplicateCount + result.duplicates,
      rejectedCount: batch.counts.rejected + result.next.rejected,
    },
  };
}
