import fs from "node:fs/promises";
import path from "node:path";
import { asc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { fileRemovals } from "../db/schema.ts";
import type { AppContext } from "./context.ts";
import type { JobRunner } from "./jobs.ts";
import type { Logger } from "./logger.ts";

/** The job that removes queued files; also runs every ten minutes, so a file is retried until it is gone. */
export const FILE_REMOVAL_JOB = "files.remove";
const BATCH = 500;
/** Areas are the folders under FILES_DIR; names are the random ones the server generates. */
const AREA_RE = /^[a-z]+$/;
const NAME_RE = /^[0-9a-f]{32}\.[a-z]{2,8}$/;

/**
 * Queues `FILES_DIR/<area>/<name>` for removal inside the caller's transaction: the row exists exactly when
 * the rows that pointed at the file are gone, so neither a failed removal nor a crash right after the
 * commit can leave the file behind for good.
 */
export async function queueFileRemoval(tx: Db, area: string, name: string): Promise<void> {
  // Any other name is not a file this server wrote, so there is nothing of ours to remove.
  if (!AREA_RE.test(area) || !NAME_RE.test(name)) return;
  await tx.insert(fileRemovals).values({ area, name }).onConflictDoNothing();
}

/**
 * Removes the queued files, oldest first, and forgets each one once it is gone (a missing file counts as
 * gone). A removal that fails stays queued with its error; the answer says how many did.
 */
export async function removeQueuedFiles(
  db: Db,
  filesDir: string,
  log?: Logger,
): Promise<{ removed: number; failed: number }> {
  const rows = await db.select().from(fileRemovals).orderBy(asc(fileRemovals.id)).limit(BATCH);
  let removed = 0;
  let failed = 0;
  for (const row of rows) {
    try {
      if (AREA_RE.test(row.area) && NAME_RE.test(row.name))
        await fs.rm(path.join(filesDir, row.area, row.name), { force: true });
      await db.delete(fileRemovals).where(eq(fileRemovals.id, row.id));
      removed++;
    } catch (error) {
      failed++;
      const message = error instanceof Error ? error.message : String(error);
      log?.warn({ err: error, area: row.area, removalId: row.id }, "a stored file could not be removed yet");
      await db
        .update(fileRemovals)
        .set({ attempts: sql`${fileRemovals.attempts} + 1`, lastError: message.slice(0, 300) })
        .where(eq(fileRemovals.id, row.id));
    }
  }
  return { removed, failed };
}

/**
 * Defines the removal job: a failed removal fails the job, so pg-boss retries it with backoff; the
 * ten-minute schedule picks up whatever outlived its retries.
 */
export function defineFileRemovalJob(ctx: Pick<AppContext, "config" | "database" | "log">, jobs: JobRunner) {
  return jobs.defineJob(
    FILE_REMOVAL_JOB,
    async () => {
      const { failed } = await removeQueuedFiles(ctx.database.db, ctx.config.filesDir, ctx.log);
      if (failed > 0) throw new Error(`${failed} stored file(s) could not be removed yet`);
    },
    { cron: "*/10 * * * *", retryLimit: 10, retryDelay: 10, retryBackoff: true, retryDelayMax: 600 },
  );
}
