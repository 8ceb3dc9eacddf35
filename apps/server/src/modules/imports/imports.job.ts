// The import job: claims the import, reads the file in a worker thread, writes each batch with its
// checkpoint in one transaction (on PostgreSQL the worker writes them itself, over a connection of its
// own; on PGlite, whose database lives on this thread, this thread does), honours a cancel between
// batches and ends with the report. A killed server's import is claimed again (its lease expires, or a
// restarted PGlite server frees it) and continues after the last committed batch.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { MessageChannel, Worker } from "node:worker_threads";
import type { ImportReport, CsvMapping as WireMapping } from "@tonus/contract";
import type { CsvMapping } from "@tonus/importers";
import type { AppContext } from "../../lib/context.ts";
import { strippedSources, THREAD_ENTRY } from "../../lib/thread-sources.ts";
import {
  type BatchState,
  IMPORT_LEASE_MS,
  type ServerCounts,
  type StoredCheckpoint,
  writeBatch,
} from "./imports.batch.ts";
import { deleteImportFile, importFilePath } from "./imports.files.ts";
import { messageQueue } from "./imports.messages.ts";
import {
  BATCH_SIZES,
  type Checkpoint,
  KEPT_PROBLEMS,
  type ParserCounts,
  type ReaderOptions,
} from "./imports.reader.ts";
import {
  analyzeImportTables,
  claimImport,
  finishImport,
  type ImportRow,
  releaseLease,
} from "./imports.repo.ts";
import type { WorkerData, WorkerMessage, WriteOptions } from "./imports.worker.ts";
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

const WORKER = new URL("./imports.worker.ts", import.meta.url).href;

/**
 * Starts the import's threads: a reader, and on PostgreSQL a writer that takes the reader's batches
 * over a channel of their own and reports each commit. Without a writer, batches come here, at most
 * two ahead of their acknowledgement.
 */
function startThreads(read: ReaderOptions, write: WriteOptions | null, sources: Record<string, string>) {
  // Each thread's data: its own, and what `THREAD_ENTRY` needs to run imports.worker.ts without WebAssembly.
  const threadData = (d: WorkerData) => ({ ...d, sources, module: WORKER });
  const messages = messageQueue<WorkerMessage>((m) => m.type !== "batch" && m.type !== "written");
  const failed = (e: Error) => messages.push({ type: "error", message: e.message });
  const limits = (mb: number) => ({ maxOldGenerationSizeMb: mb, maxYoungGenerationSizeMb: 16 });
  let reader: Worker;
  let talker: Worker;
  if (write) {
    const { port1, port2 } = new MessageChannel();
    reader = new Worker(THREAD_ENTRY, {
      workerData: threadData({ role: "reader", read, out: port1 }),
      transferList: [port1],
      resourceLimits: limits(64),
    });
    // The writer holds a database client and the modules' code.
    talker = new Worker(THREAD_ENTRY, {
      workerData: threadData({ role: "writer", write, in: port2 }),
      transferList: [port2],
      resourceLimits: limits(128),
    });
    // The reader ends once it has sent its last batch; the writer reports the end after writing it.
    reader.on("exit", (code) => code !== 0 && failed(new Error(`import reader exited (${code})`)));
    reader.on("error", failed);
  } else {
    reader = talker = new Worker(THREAD_ENTRY, {
      workerData: threadData({ role: "reader", read }),
      resourceLimits: limits(64),
    });
  }
  talker.on("message", messages.push);
  talker.on("error", failed);
  talker.on("exit", (code) => failed(new Error(`import thread exited (${code})`)));
  return {
    next: messages.next,
    ack: () => talker.postMessage({ type: "ack" }),
    stop: async () => {
      await Promise.all([reader.terminate(), talker.terminate()]);
    },
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
  // The events its writer thread held go to their subscribers now; released before the import reads
  // as ended, so whoever waits for the end finds them released.
  await ctx.services.events
    .releaseEvents(row.id)
    .catch((err: unknown) => ctx.log.warn({ err, importId: row.id }, "releasing an import's events failed"));
  await finishImport(ctx.database.db, row.id, status, report);
  await deleteImportFile(ctx.config.filesDir, row.storedName);
  if (row.importedCount >= ANALYZE_AFTER_RECORDS)
    await analyzeImportTables(ctx.database.db).catch((err: unknown) =>
      ctx.log.warn({ err, importId: row.id }, "refreshing the imported tables' statistics failed"),
    );
}

/** An import that stored this many records refreshes its tables' statistics when it ends. */
const ANALYZE_AFTER_RECORDS = 10_000;

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
  const sources = await strippedSources();
  const reader = startThreads(
    {
      file,
      kind: row.kind as ReaderOptions["kind"],
      fileName: row.fileName,
      timezoneOffsetMin: options.timezoneOffsetMin,
      recordedAtMs: options.recordedAtMs,
      ...(options.mapping ? { mapping: toImporterMapping(options.mapping) } : {}),
      checkpoint: stored ? checkpointOf(stored) : null,
      batchSize: BATCH_SIZES[ctx.database.kind],
    },
    databaseUrl
      ? {
          databaseUrl,
          row: {
            id: row.id,
            userId: row.userId,
            importedCount: row.importedCount,
            duplicateCount: row.duplicateCount,
          },
          timeZone: options.timeZone,
          server,
        }
      : null,
    sources,
  );
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
        // Committed by the writer thread: take over its counts.
        state = message.state;
        Object.assign(server, message.server);
        addTimings(message.timings);
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
    // The writer thread's events are held by the import and delivered once the run ends (`finish`;
    // here when the run failed and will be retried), leaving this thread to requests meanwhile: a
    // gigabyte's thousands of readings and measurements, handed to their subscribers during the
    // import, grew this thread's heap by 60–110 MB.
    if (databaseUrl) void ctx.services.events.releaseEvents(row.id).catch(() => {});
  }
}
