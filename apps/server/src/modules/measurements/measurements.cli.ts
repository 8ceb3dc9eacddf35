/**
 * Recomputes every stored measurement whose result was computed by another algorithm version (or that
 * has none, after an archive import), without starting the server:
 *   node apps/server/src/modules/measurements/measurements.cli.ts
 * Uses the server's environment (DATABASE_URL, or DATA_DIR for the embedded database, which must not be
 * in use by a running server). Resumable: each measurement commits on its own, so an interrupted run
 * loses nothing and the next run continues with what is still stale. A running server does the same
 * in the background (job `measurements.recompute`, hourly, each run handing over to the next until done).
 */
import path from "node:path";
import { openDatabase } from "../../db/client.ts";
import { acquireDataDirLock } from "../../db/lock.ts";
import { loadConfig } from "../../lib/config.ts";
import { MEASUREMENT_ALGORITHM_VERSION } from "./measurements.compute.ts";
import { recomputeStale } from "./measurements.recompute.ts";

async function run(): Promise<number> {
  const config = loadConfig(process.env);
  const release = config.DATABASE_URL ? () => {} : acquireDataDirLock(config.DATA_DIR, () => {});
  const database = await openDatabase({
    url: config.DATABASE_URL,
    pgliteDir: path.join(config.DATA_DIR, "pgdata"),
  });
  try {
    let total = 0;
    let failed = 0;
    let lastId: string | null = null;
    for (;;) {
      const progress = await recomputeStale(database.db, { afterId: lastId, maxRows: 500 });
      total += progress.done;
      failed += progress.failed;
      lastId = progress.lastId;
      process.stdout.write(
        `measurements: ${total} recomputed to ${MEASUREMENT_ALGORITHM_VERSION}, ${progress.remaining} stale left\n`,
      );
      if (lastId === null) break;
    }
    if (failed > 0)
      process.stderr.write(`measurements: ${failed} could not be computed (left as they were)\n`);
    return failed > 0 ? 1 : 0;
  } finally {
    await database.close();
    release();
  }
}

run().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`measurements: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
