// The import job: claims the import, reads the file in a worker thread, writes each batch with its
// checkpoint in one transaction, honours a cancel between batches and ends with the report. A killed
// server's import is claimed again (its lease expires, or a restarted PGlite server frees it) and
// continues after the last committed batch.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { Worker } from "node:worker_threads";
import type { ImportProblem, ImportReport, CsvMapping as WireMapping } from "@tonus/contract";
import type { CsvMapping } from "@tonus/importers";
import type { Db } from "../../db/client.ts";
import type { AppContext } from "../../lib/context.ts";
import { recordValueBatch } from "../dashboard-values/dashboard-values.service.ts";
import { deleteImportFile, importFilePath } from "./imports.files.ts";
import {
  BATCH_SIZES,
  type Checkpoint,
  KEPT_PROBLEMS,
  type ParserCounts,
  type ReaderOptions,
} from "./imports.reader.ts";
import { claimImport, commitBatch, finishImport, type ImportRow, releaseLease } from "./imports.repo.ts";
import type { WorkerBatch, WorkerMessage } from "./imports.worker.ts";
import { IMPORT_TIMINGS, writeSlowRecords, yieldToEventLoop } from "./imports.writer.ts";

type Ctx = Pick<AppContext, "config" | "database" | "services" | "log">;

/** A run's lease: renewed with every batch; a run that stops renewing it is presumed dead after this. */
export const IMPORT_LEASE_MS = 20_000;
/** Retries of a failing run before the import is marked failed. */
export const IMPORT_RETRIES = 3;
/** This process's name on the leases it takes. */
export const INSTANCE_ID = randomUUID();

/** What a run adds to the parser's counts, stored with each checkpoint. */
type ServerCounts = {
  measurements: number;
  bpReadings: number;
  rejected: number;
  ignored: number;
  rejections: ImportProblem[];
};
type StoredCheckpoint = Checkpoint & {
  counts?: ParserCounts;
  server?: ServerCounts;
};

/** The importer options an import row holds. */
export type ImportOptions = {
  timeZone: string;
  timezoneOffsetMin: number;
  recordedAtMs: number;
  mapping?: WireMapping;
};

function toImporterMapping(m: WireMapping): CsvMapping {
  return {
    time: m.time,
    ...(m.time_format ? { timeFormat: m.time_format } : {}),
    columns: m.columns.map((c) => ({
      column: c.column,
      metric: c.metric,
      ...(c.unit ? { unit: c.unit } : {}),
    })),
  };
}

/** Runs the reader in a worker thread; batches arrive in order, at most two ahead of their acknowledgement. */
function startReader(options: ReaderOptions) {
  const worker = new Worker(new URL("./imports.worker.ts", import.meta.url), {
    workerData: options,
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
  });
  const queue: WorkerMessage[] = [];
  let waiting: ((m: WorkerMessage) => void) | null = null;
  let ended = false;
  const push = (m: WorkerMessage) => {
    if (ended) return;
    if (m.type !== "batch") ended = true;
    if (waiting) {
      const w = waiting;
      waiting = null;
      w(m);
    } else queue.push(m);
  };
  worker.on("message", push);
  worker.on("error", (e) => push({ type: "error", message: e.message }));
  worker.on("exit", (code) => push({ type: "error", message: `reader exited (${code})` }));
  return {
    next: () =>
      new Promise<WorkerMessage>((resolve) => {
        const m = queue.shift();
        if (m) resolve(m);
        else waiting = resolve;
      }),
    ack: () => worker.postMessage({ type: "ack" }),
    stop: () => worker.terminate(),
  };
}

function buildReport(
  row: Pick<ImportRow, "importedCount" | "duplicateCount">,
  parser: ParserCounts,
  server: ServerCounts,
): ImportReport {
  return {
    format: parser.format,
    read: parser.read,
    imported: row.importedCount,
    duplicates: row.duplicateCount,
    rejected: parser.rejected + server.rejected,
    ignored: parser.ignored + server.ignored,
    measurements: server.measurements,
    bp_readings: server.bpReadings,
    rejections: [...parser.rejections, ...server.rejections].slice(0, KEPT_PROBLEMS),
    warnings: parser.warnings.slice(0, KEPT_PROBLEMS),
    fatal: parser.fatal,
  };
}

async function finish(
  ctx: Ctx,
  row: ImportRow,
  status: "done" | "failed" | "cancelled",
  report: ImportReport,
): Promise<void> {
  await finishImport(ctx.database.db, row.id, status, report);
  await deleteImportFile(ctx.config.filesDir, row.storedName);
}

const emptyServer = (): ServerCounts => ({
  measurements: 0,
  bpReadings: 0,
  rejected: 0,
  ignored: 0,
  rejections: [],
});
const emptyParser = (format: string): ParserCounts => ({
  format,
  read: 0,
  ignored: 0,
  rejected: 0,
  rejections: [],
  warnings: [],
  fatal: null,
});

function checkpointOf(stored: StoredCheckpoint): Checkpoint {
  return {
    records: stored.records,
    ...(stored.resumeOffset !== undefined ? { resumeOffset: stored.resumeOffset } : {}),
    ...(stored.base ? { base: stored.base } : {}),
  };
}

/** One run of the import job for `importId` (idempotent: an ended or held import is left alone). */
export async function runImport(ctx: Ctx, importId: string, retryCount: number): Promise<void> {
  const db = ctx.database.db;
  const claimed = await claimImport(db, importId, IMPORT_LEASE_MS, INSTANCE_ID);
  if (!claimed) return;
  let row = claimed;
  const stored = (row.checkpoint ?? null) as StoredCheckpoint | null;
  const server = stored?.server ?? emptyServer();
  let parser = stored?.counts ?? emptyParser(row.kind);
  let totals = { importedCount: row.importedCount, duplicateCount: row.duplicateCount };
  if (row.cancelRequested) return finish(ctx, row, "cancelled", buildReport(totals, parser, server));
  const file = row.storedName ? importFilePath(ctx.config.filesDir, row.storedName) : null;
  if (!file || !fs.existsSync(file)) {
    const lost = {
      ...parser,
      fatal: { reason: "internal_error" as const, detail: "the uploaded file is gone" },
    };
    return finish(ctx, row, "failed", buildReport(totals, lost, server));
  }
  const options = row.options as ImportOptions;
  const reader = startReader({
    file,
    kind: row.kind as ReaderOptions["kind"],
    fileName: row.fileName,
    timezoneOffsetMin: options.timezoneOffsetMin,
    recordedAtMs: options.recordedAtMs,
    ...(options.mapping ? { mapping: toImporterMapping(options.mapping) } : {}),
    checkpoint: stored ? checkpointOf(stored) : null,
    batchSize: BATCH_SIZES[ctx.database.kind],
  });
  try {
    for (;;) {
      const message = await reader.next();
      if (message.type === "error") throw new Error(`import reader failed: ${message.message}`);
      if (message.type === "end") {
        parser = message.counts;
        const report = buildReport(totals, parser, server);
        const nothing = report.imported + report.duplicates === 0;
        return await finish(ctx, row, report.fatal && nothing ? "failed" : "done", report);
      }
      const state = await writeBatch(ctx, row, message.batch, options.timeZone, server);
      await yieldToEventLoop();
      if (!state) return; // the import is gone (its account was deleted) or ended elsewhere
      parser = message.batch.counts;
      totals = state.totals;
      row = { ...row, ...state.totals };
      if (state.cancelRequested)
        return await finish(ctx, row, "cancelled", buildReport(totals, parser, server));
      reader.ack();
    }
  } catch (error) {
    ctx.log.warn({ err: error, importId, retryCount }, "import run failed");
    if (retryCount >= IMPORT_RETRIES) {
      const failed = { ...parser, fatal: { reason: "internal_error" as const } };
      await finish(ctx, row, "failed", buildReport(totals, failed, server));
      return;
    }
    await releaseLease(db, row.id).catch(() => {});
    throw error;
  } finally {
    await reader.stop();
  }
}

/**
 * Writes one batch in one transaction: its RR series and readings through their modules, its values
 * through the dashboard's bulk path, and its checkpoint. A run killed before the commit leaves nothing of
 * the batch; the next run writes it again from the checkpoint before it.
 */
async function writeBatch(
  ctx: Ctx,
  row: ImportRow,
  batch: WorkerBatch,
  timeZone: string,
  server: ServerCounts,
) {
  const db = ctx.database.db;
  const t0 = performance.now();
  const result = await db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const slow = await writeSlowRecords(ctx, tx, row.userId, batch.slow, timeZone);
    const t1 = performance.now();
    const values = await recordValueBatch(tx, row.userId, batch.values);
    IMPORT_TIMINGS.valuesMs += performance.now() - t1;
    IMPORT_TIMINGS.valuesCount += batch.values.rows;
    const next: ServerCounts = {
      measurements: server.measurements + slow.measurements,
      bpReadings: server.bpReadings + slow.bpReadings,
      rejected: server.rejected + slow.rejected,
      ignored: server.ignored + batch.ignored,
      rejections: [...server.rejections, ...slow.rejections].slice(0, KEPT_PROBLEMS),
    };
    const imported = slow.imported + values.newCounted;
    const duplicates =
      slow.duplicates + batch.values.counted - values.newCounted + batch.values.repeatedCounted;
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
