// The import job: claims the import, reads the file in a worker thread, writes each batch with its
// checkpoint in one transaction (on PostgreSQL the worker writes them itself, over a connection of its
// own; on PGlite, whose database lives on this thread, this thread does), honours a cancel between
// batches and ends with the report. A killed server's import is claimed again (its lease expires, or a
// restarted PGlite server frees it) and continues after the last committed batch.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { Worker } from "node:worker_threads";
import type { ImportReport, CsvMapping as WireMapping } from "@tonus/contract";
import type { CsvMapping } from "@tonus/importers";
import type { AppContext } from "../../lib/context.ts";
import {
  type BatchState,
  IMPORT_LEASE_MS,
  type ServerCounts,
  type StoredCheckpoint,
  writeBatch,
} from "./imports.batch.ts";
import { deleteImportFile, importFilePath } from "./imports.files.ts";
import {
  BATCH_SIZES,
  type Checkpoint,
  KEPT_PROBLEMS,
  type ParserCounts,
  type ReaderOptions,
} from "./imports.reader.ts";
import { claimImport, finishImport, type ImportRow, releaseLease } from "./imports.repo.ts";
import type { WorkerData, WorkerMessage } from "./imports.worker.ts";
import { IMPORT_TIMINGS, yieldToEventLoop } from "./imports.writer.ts";

type Ctx = Pick<AppContext, "config" | "database" | "services" | "log">;

/** Retries of a failing run before the import is marked failed. */
export const IMPORT_RETRIES = 3;
/** This process's name on the leases it takes. */
export const INSTANCE_ID = randomUUID();

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

/**
 * Runs the reader in a worker thread. Batches it hands over arrive in order, at most two ahead of their
 * acknowledgement; a reader that writes them itself reports each committed batch instead.
 */
function startReader(data: WorkerData) {
  const worker = new Worker(new URL("./imports.worker.ts", import.meta.url), {
    workerData: data,
    // The writing reader holds a database client and the modules' code besides the parser's buffers.
    resourceLimits: { maxOldGenerationSizeMb: data.write ? 128 : 64, maxYoungGenerationSizeMb: 16 },
  });
  const queue: WorkerMessage[] = [];
  let waiting: ((m: WorkerMessage) => void) | null = null;
  let ended = false;
  const push = (m: WorkerMessage) => {
    if (ended) return;
    if (m.type !== "batch" && m.type !== "written") ended = true;
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

/** Adds a writing reader's batch timings to this process's (the bench reads them). */
function addTimings(delta: Partial<typeof IMPORT_TIMINGS>): void {
  for (const [k, v] of Object.entries(delta)) IMPORT_TIMINGS[k as keyof typeof IMPORT_TIMINGS] += v ?? 0;
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
  const databaseUrl = ctx.database.kind === "postgres" ? ctx.database.connectionString : undefined;
  const reader = startReader({
    read: {
      file,
      kind: row.kind as ReaderOptions["kind"],
      fileName: row.fileName,
      timezoneOffsetMin: options.timezoneOffsetMin,
      recordedAtMs: options.recordedAtMs,
      ...(options.mapping ? { mapping: toImporterMapping(options.mapping) } : {}),
      checkpoint: stored ? checkpointOf(stored) : null,
      batchSize: BATCH_SIZES[ctx.database.kind],
    },
    ...(databaseUrl
      ? {
          write: {
            databaseUrl,
            row: {
              id: row.id,
              userId: row.userId,
              importedCount: row.importedCount,
              duplicateCount: row.duplicateCount,
            },
            timeZone: options.timeZone,
            server,
          },
        }
      : {}),
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
      let state: BatchState | null;
      if (message.type === "written") {
        // Committed by the reader: take over its counts, and have the batch's events delivered.
        state = message.state;
        Object.assign(server, message.server);
        addTimings(message.timings);
        if (message.announced) void ctx.services.events.wake().catch(() => {});
      } else {
        state = await writeBatch(ctx, row, message.batch, options.timeZone, server);
        await yieldToEventLoop();
      }
      if (!state) return; // the import is gone (its account was deleted) or ended elsewhere
      parser = message.type === "written" ? message.counts : message.batch.counts;
      totals = state.totals;
      row = { ...row, ...state.totals };
      if (state.cancelRequested)
        return await finish(ctx, row, "cancelled", buildReport(totals, parser, server));
      if (message.type === "batch") reader.ack();
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
