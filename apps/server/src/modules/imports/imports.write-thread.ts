// The import's writer thread on PostgreSQL (imports.worker.ts): writes each batch the reader sends in
// one transaction over a connection of its own, and reports each commit to the main thread.
import type { MessagePort } from "node:worker_threads";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Db } from "../../db/client.ts";
import * as schema from "../../db/schema.ts";
import type { AppContext } from "../../lib/context.ts";
import { recordEvents } from "../../lib/events.ts";
import { newRunHint, writeBatch } from "./imports.batch.ts";
import { messageQueue } from "./imports.messages.ts";
import type { WorkerMessage, WriteOptions } from "./imports.worker.ts";
import { IMPORT_TIMINGS, threadCpuMs } from "./imports.writer.ts";

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
export async function writeAll(port: MessagePort, input: MessagePort, write: WriteOptions): Promise<void> {
  // Named, so an operator sees the import's connection in pg_stat_activity.
  const pool = new pg.Pool({ connectionString: write.databaseUrl, max: 1, application_name: "tonus-import" });
  const db = drizzle(pool, { schema }) as unknown as Db;
  // The modules announce what they store through the app's event bus; here the events are only
  // written, held by the import: the main thread lets them go when the run ends (`releaseEvents`).
  const events = {
    emitEvents: (tx: Db, list: Parameters<typeof recordEvents>[1]) =>
      recordEvents(tx, list, { heldBy: write.row.id }),
  } as unknown as AppContext["services"]["events"];
  const ctx = { database: { db }, services: { events } as AppContext["services"] };
  const server = write.server;
  const hint = newRunHint(true); // this thread writes to PostgreSQL
  let row = write.row;
  const sent = { ...IMPORT_TIMINGS };
  // Reported with the first batch: what starting this thread cost.
  IMPORT_TIMINGS.writerStartCpuMs += threadCpuMs();
  const batches = messageQueue<WorkerMessage>((m) => m.type !== "batch");
  input.on("message", batches.push);
  try {
    for (;;) {
      const m = await batches.next();
      if (m.type !== "batch") {
        port.postMessage(m); // the end, or the reader's failure
        return;
      }
      const state = await writeBatch(ctx, row, m.batch, write.timeZone, server, hint);
      input.postMessage({ type: "ack" });
      port.postMessage({
        type: "written",
        state,
        counts: m.batch.counts,
        server,
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
