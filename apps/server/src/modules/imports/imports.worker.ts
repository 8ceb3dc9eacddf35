// The worker threads of an import (RELIABILITY R3), so a multi-gigabyte export does not starve the API.
// The reader reads and parses the file and encodes each batch's values for COPY. On PostgreSQL it hands
// the batches to a writer thread, which writes each over a connection of its own and reports the commit:
// the main thread then only keeps the import's counts. On PGlite (whose database lives on the main
// thread) the reader hands them to the main thread. Either way at most two batches wait for their
// acknowledgement, which bounds the memory.
// Each role loads only its own code (imports.read-thread.ts, imports.write-thread.ts): the reader never
// loads the database driver, drizzle or the modules' services, which cost about a second of CPU and
// 20 MB per thread to load; the writer loads them with the package-loading hook.
import os from "node:os";
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { speedUpPackageLoading } from "../../lib/module-resolution.ts";
import type { BatchRow, BatchState, ServerCounts } from "./imports.batch.ts";
import type { ParserCounts, ReaderBatch, ReaderOptions } from "./imports.reader.ts";
import type { EncodedRecords } from "./imports.values.ts";
import type { IMPORT_TIMINGS } from "./imports.writer.ts";

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
      timings: Partial<typeof IMPORT_TIMINGS>;
    }
  | { type: "end"; counts: ParserCounts }
  | { type: "error"; message: string };

/**
 * The import threads' scheduling priority (Linux nice, set per thread): when both cores are busy,
 * requests on the main thread and the database go first, and the import takes what is left (R3).
 */
const IMPORT_NICE = 10;

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
    const { readAll } = await import("./imports.read-thread.ts");
    await readAll(data.out ?? (port as unknown as MessagePort), data.read);
    return;
  }
  try {
    // The writer loads drizzle-orm, whose files Node resolves slowly without the hook (about a second).
    speedUpPackageLoading();
    const { writeAll } = await import("./imports.write-thread.ts");
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
