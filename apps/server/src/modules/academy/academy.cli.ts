/**
 * Reloads the academy content into the database without starting the server:
 *   node apps/server/src/modules/academy/academy.cli.ts [content-dir]   (default: ACADEMY_CONTENT_DIR)
 * Uses the same environment as the server (DATABASE_URL, or DATA_DIR for the embedded database, which
 * must not be in use by a running server: that one reloads the content at every start anyway).
 * Exits with 1 when the content has problems (the valid part is still loaded).
 */
import path from "node:path";
import { openDatabase } from "../../db/client.ts";
import { acquireDataDirLock } from "../../db/lock.ts";
import { loadConfig } from "../../lib/config.ts";
import { reloadAcademy } from "./academy.sync.ts";

async function runReload(): Promise<number> {
  const config = loadConfig(process.env);
  const release = config.DATABASE_URL ? () => {} : acquireDataDirLock(config.DATA_DIR, () => {});
  const database = await openDatabase({
    url: config.DATABASE_URL,
    pgliteDir: path.join(config.DATA_DIR, "pgdata"),
  });
  try {
    const result = await reloadAcademy(database.db, process.argv[2] ?? config.academyContentDir);
    process.stdout.write(`academy: ${result.courses} courses, ${result.materials} materials loaded\n`);
    for (const problem of result.problems) process.stderr.write(`academy: ${problem}\n`);
    return result.problems.length > 0 ? 1 : 0;
  } finally {
    await database.close();
    release();
  }
}

runReload().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`academy: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
