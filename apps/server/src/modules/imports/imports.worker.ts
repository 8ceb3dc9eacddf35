// The worker thread of an import (RELIABILITY R3): reads and parses the file off the main thread, so a
// multi-gigabyte export does not starve the API, and encodes each batch's values for COPY here too. It
// hands batches to the main thread, which writes them; it runs at most two batches ahead (the main
// thread acknowledges each), which bounds its memory.
import os from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { type ParserCounts, type ReaderBatch, type ReaderOptions, readImport } from "./imports.reader.ts";
import { type EncodedRecords, encodeRecords } from "./imports.values.ts";

/** A batch as the main thread receives it: its checkpoint, and its records encoded for writing. */
export type WorkerBatch = Omit<ReaderBatch, "records"> & EncodedRecords;

export type WorkerMessage =
  | { type: "batch"; batch: WorkerBatch }
  | { type: "end"; counts: ParserCounts }
  | { type: "error"; message: string };

const AHEAD = 2;
/**
 * The reader's scheduling priority (Linux nice, set for this thread only): when both cores are busy,
 * requests on the main thread and the database go first, and the import takes what is left (R3).
 */
const READER_NICE = 10;

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
  let credits = AHEAD;
  let wake: (() => void) | null = null;
  port.on("message", (m: { type: string }) => {
    if (m.type !== "ack") return;
    credits++;
    wake?.();
    wake = null;
  });
  try {
    const reader = readImport(workerData as ReaderOptions);
    for (;;) {
      const next = await reader.next();
      if (next.done) {
        port.postMessage({ type: "end", counts: next.value } satisfies WorkerMessage);
        break;
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
  } catch (e) {
    port.postMessage({
      type: "error",
      message: e instanceof Error ? e.message : String(e),
    } satisfies WorkerMessage);
  }
  port.close();
}

void main();
