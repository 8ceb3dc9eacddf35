// The worker thread of an import (RELIABILITY R3): reads and parses the file off the main thread, so a
// multi-gigabyte export does not starve the API, and encodes each batch's values for COPY here too.
// On PostgreSQL it also writes each batch, over a connection of its own, and reports the commit; the
// main thread then only keeps the import's counts. On PGlite (whose database lives on the main thread)
// it hands batches over instead, at most two ahead of their acknowledgement, which bounds its memory.
import os from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Db } from "../../db/client.ts";
import * as schema from "../../db/schema.ts";
import type { AppContext } from "../../lib/context.ts";
import { recordEvents } from "../../lib/events.ts";
import { type BatchRow, type BatchState, type ServerCounts, writeBatch } from "./imports.batch.ts";
import { type ParserCounts, type ReaderBatch, type ReaderOptions, readImport } from "./imports.reader.ts";
import { type EncodedRecords, encodeRecords } from "./imports.values.ts";
import { IMPORT_TIMINGS } from "./imports.writer.ts";

/** A batch as the main thread receives it: its checkpoint, and its records encoded for writing. */
export type WorkerBatch = Omit<ReaderBatch, "records"> & EncodedRecords;

export type WorkerData = {
  read: ReaderOptions;
  /** Set on PostgreSQL: the worker writes the batches itself. */
  write?: { databaseUrl: string; row: BatchRow; timeZone: string; server: ServerCounts };
};

export type WorkerMessage =
  | { type: "batch"; batch: WorkerBatch }
  | {
      type: "written";
      /** null: the import is gone or ended elsewhere (the worker stops). */
      state: BatchState | null;
      counts: ParserCounts;
      server: ServerCounts;
      /** Whether the batch wrote domain events (RR series, readings) to deliver. */
      announced: boolean;
      timings: Partial<typeof IMPORT_TIMINGS>;
    }
  | { type: "end"; counts: ParserCounts }
  | { type: "error"; message: string };

const AHEAD = 2;
/**
 * The reader's scheduling priority (Linux nice, set for this thread only): when both cores are busy,
 * requests on the main thread and the database go first, and the import takes what is left (R3).
 */
const READER_NICE = 10;

/** IMPORT_TIMINGS since the last call (the main thread adds them to its own). */
function timingsSince(last: typeof IMPORT_TIMINGS): Partial<typeof IMPORT_TIMINGS> {
  const delta: Partial<typeof IMPORT_TIMINGS> = {};
  for (const k of Object.keys(IMPORT_TIMINGS) as (keyof typeof IMPORT_TIMINGS)[]) {
    delta[k] = IMPORT_TIMINGS[k] - last[k];
    last[k] = IMPORT_TIMINGS[k];
  }
  return delta;
}

/** Writes every batch here, reading the next while the database works on this one. */
async function readAndWrite(port: NonNullable<typeof parentPort>, data: WorkerData): Promise<void> {
  const write = data.write as NonNullable<WorkerData["write"]>;
  const pool = new pg.Pool({ connectionString: write.databaseUrl, max: 1 });
  const db = drizzle(pool, { schema }) as unknown as Db;
  // The modules announce what they store through the app's event bus; here the events are only
  // written, and the main thread asks for their delivery when it hears of the commit.
  const events = { emitEvents: recordEvents } as unknown as AppContext["services"]["events"];
  const ctx = { database: { db }, services: { events } as AppContext["services"] };
  const server = write.server;
  let row = write.row;
  const sent = { ...IMPORT_TIMINGS };
  try {
    const reader = readImport(data.read);
    let next = reader.next();
    next.catch(() => {});
    for (;;) {
      const current = await next;
      if (current.done) {
        port.postMessage({ type: "end", counts: current.value } satisfies WorkerMessage);
        return;
      }
      next = reader.next();
      // Awaited next time round; if this batch's write fails first, its failure is the one reported.
      next.catch(() => {});
      const { records, ...checkpoint } = current.value;
      const batch: WorkerBatch = { ...checkpoint, ...encodeRecords(records) };
      const state = await writeBatch(ctx, row, batch, write.timeZone, server);
      port.postMessage({
        type: "written",
        state,
        counts: batch.counts,
        server,
        announced: batch.slow.length > 0,
        timings: timingsSince(sent),
      } satisfies WorkerMessage);
      if (!state || state.cancelRequested) return;
      row = { ...row, ...state.totals };
    }
  } finally {
    await pool.end();
  }
}

/** Hands each batch to the main thread, at most AHEAD before their acknowledgement. */
async function readOnly(port: NonNullable<typeof parentPort>, data: WorkerData): Promise<void> {
  let credits = AHEAD;
  let wake: (() => void) | null = null;
  port.on("message", (m: { type: string }) => {
    if (m.type !== "ack") return;
    credits++;
    wake?.();
    wake = null;
  });
  const reader = readImport(data.read);
  for (;;) {
    const next = await reader.next();
    if (next.done) {
      port.postMessage({ type: "end", counts: next.value } satisfies WorkerMessage);
      return;
    }
    const { records, ...checkpoint } = next.value;
    const batch: WorkerBatch = { ...checkpoint, ...encodeRecords(records) };
    while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
    credits--;
    // The encoded values move to the main thread without a copy.
    port.postMessage({ type: "batch", batch } satisfies WorkerMessage, [
      batch.values.bytes.buffer as ArrayBuffer,
    ]);
  }
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("imports.worker.ts runs only as a worker thread");
  // Only Linux sets the priority of the calling thread alone; elsewhere it would be the whole server's.
  if (process.platform === "linux") {
    try {
      os.setPriority(0, READER_NICE);
    } catch {
      // Not permitted here: the reader runs at the server's priority.
    }
  }
  const data = workerData as WorkerData;
  try {
    await (data.write ? readAndWrite(port, data) : readOnly(port, data));
  } catch (e) {
    port.postMessage({
      type: "error",
      message: e instanceof Error ? e.message : String(e),
    } satisfies WorkerMessage);
  }
  port.close();
}

void main();
