// The worker threads of an import (RELIABILITY R3), so a multi-gigabyte export does not starve the API.
// The reader reads and parses the file and encodes each batch's values for COPY. On PostgreSQL it hands
// the batches to a writer thread, which writes each over a connection of its own and reports the commit:
// the main thread then only keeps the import's counts. On PGlite (whose database lives on the main
// thread) the reader hands them to the main thread. Either way at most two batches wait for their
// acknowledgement, which bounds the memory.
import os from "node:os";
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Db } from "../../db/client.ts";
import * as schema from "../../db/schema.ts";
import type { AppContext } from "../../lib/context.ts";
import { recordEvents } from "../../lib/events.ts";
import { type BatchRow, type BatchState, type ServerCounts, writeBatch } from "./imports.batch.ts";
import { messageQueue } from "./imports.messages.ts";
import { type ParserCounts, type ReaderBatch, type ReaderOptions, readImport } from "./imports.reader.ts";
import { type EncodedRecords, encodeRecords } from "./imports.values.ts";
import { IMPORT_TIMINGS } from "./imports.writer.ts";

/** A batch as the main thread receives it: its checkpoint, and its records encoded for writing. */
export type WorkerBatch = Omit<ReaderBatch, "records"> & EncodedRecords;

/** What the writer needs: where to write, the import, and its counts so far. */
export type WriteOptions = { databaseUrl: string; row: BatchRow; timeZone: string; server: ServerCounts };

export type WorkerData =
  /** Sends its batches to `out` (the writer), or to the main thread. */
  | { role: "reader"; read: ReaderOptions; out?: MessagePort }
  /** Takes the reader's batches from `in`. */
  | { role: "writer"; write: WriteOptions; in: MessagePort };

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
 * The import threads' scheduling priority (Linux nice, set per thread): when both cores are busy,
 * requests on the main thread and the database go first, and the import takes what is left (R3).
 */
const IMPORT_NICE = 10;

/** IMPORT_TIMINGS since the last call (the main thread adds them to its own). */
function timingsSince(last: typeof IMPORT_TIMINGS): Partial<typeof IMPORT_TIMINGS> {
  const delta: Partial<typeof IMPORT_TIMINGS> = {};
  for (const k of Object.keys(IMPORT_TIMINGS) as (keyof typeof IMPORT_TIMINGS)[]) {
    delta[k] = IMPORT_TIMINGS[k] - last[k];
    last[k] = IMPORT_TIMINGS[k];
  }
  return delta;
}

/** Writes each batch the reader sends, acknowledges it, and reports the commit to the main thread. */
async function writeAll(port: MessagePort, input: MessagePort, write: WriteOptions): Promise<void> {
  const pool = new pg.Pool({ connectionString: write.databaseUrl, max: 1 });
  const db = drizzle(pool, { schema }) as unknown as Db;
  // The modules announce what they store through the app's event bus; here the events are only
  // written, and the main thread asks for their delivery when it hears of the commit.
  const events = { emitEvents: recordEvents } as unknown as AppContext["services"]["events"];
  const ctx = { database: { db }, services: { events } as AppContext["services"] };
  const server = write.server;
  let row = write.row;
  const sent = { ...IMPORT_TIMINGS };
  const batches = messageQueue<WorkerMessage>((m) => m.type !== "batch");
  input.on("message", batches.push);
  try {
    for (;;) {
      const m = await batches.next();
      if (m.type !== "batch") {
        port.postMessage(m); // the end, or the reader's failure
        return;
      }
      const state = await writeBatch(ctx, row, m.batch, write.timeZone, server);
      input.postMessage({ type: "ack" });
      port.postMessage({
        type: "written",
        state,
        counts: m.batch.counts,
        server,
        announced: m.batch.slow.length > 0,
        timings: timingsSince(sent),
      } satisfies WorkerMessage);
      if (!state || state.cancelRequested) return;
      row = { ...row, ...state.totals };
    }
  } finally {
    input.close();
    await pool.end();
  }
}

/** Sends each batch to `port`, at most AHEAD before their acknowledgement. */
async function readAll(port: MessagePort, read: ReaderOptions): Promise<void> {
  let credits = AHEAD;
  let wake: (() => void) | null = null;
  port.on("message", (m: { type: string }) => {
    if (m.type !== "ack") return;
    credits++;
    wake?.();
    wake = null;
  });
  try {
    const reader = readImport(read);
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
      // The encoded values move without a copy.
      port.postMessage({ type: "batch", batch } satisfies WorkerMessage, [
        batch.values.bytes.buffer as ArrayBuffer,
      ]);
    }
  } catch (e) {
    port.postMessage({
      type: "error",
      message: e instanceof Error ? e.message : String(e),
    } satisfies WorkerMessage);
  } finally {
    port.close();
  }
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("imports.worker.ts runs only as a worker thread");
  // Only Linux sets the priority of the calling thread alone; elsewhere it would be the whole server's.
  if (process.platform === "linux") {
    try {
      os.setPriority(0, IMPORT_NICE);
    } catch {
      // Not permitted here: the thread runs at the server's priority.
    }
  }
  const data = workerData as WorkerData;
  if (data.role === "reader") {
    await readAll(data.out ?? (port as unknown as MessagePort), data.read);
    return;
  }
  try {
    await writeAll(port as unknown as MessagePort, data.in, data.write);
  } catch (e) {
    port.postMessage({
      type: "error",
      message: e instanceof Error ? e.message : String(e),
    } satisfies WorkerMessage);
  }
  port.close();
}

void main();
