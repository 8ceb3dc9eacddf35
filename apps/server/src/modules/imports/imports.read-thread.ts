// The import's reader thread (imports.worker.ts): reads and parses the file and sends each batch with
// its values encoded, to the writer thread or to the main thread. It loads no database code.
import type { MessagePort } from "node:worker_threads";
import { sampleTransfer } from "../dashboard-values/dashboard-values.samples.ts";
import { type ReaderOptions, readImport } from "./imports.reader.ts";
import { RecordEncoder } from "./imports.values.ts";
import type { WorkerBatch, WorkerMessage } from "./imports.worker.ts";

/** Batches sent and not yet acknowledged, at most: this bounds the memory they hold. */
const AHEAD = 2;

/** Sends each batch to `port`, at most AHEAD before their acknowledgement. */
export async function readAll(port: MessagePort, read: ReaderOptions): Promise<void> {
  let credits = AHEAD;
  let wake: (() => void) | null = null;
  port.on("message", (m: { type: string }) => {
    if (m.type !== "ack") return;
    credits++;
    wake?.();
    wake = null;
  });
  try {
    const reader = readImport(read, new RecordEncoder());
    for (;;) {
      const next = await reader.next();
      if (next.done) {
        port.postMessage({ type: "end", counts: next.value } satisfies WorkerMessage);
        return;
      }
      const { records, ...checkpoint } = next.value;
      const batch: WorkerBatch = { ...checkpoint, ...records };
      while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
      credits--;
      // The encoded values and the samples' arrays move without a copy.
      port.postMessage({ type: "batch", batch } satisfies WorkerMessage, [
        batch.values.bytes.buffer as ArrayBuffer,
        ...sampleTransfer(batch.samples),
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
