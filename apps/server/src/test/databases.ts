import { type Database, openDatabase } from "../db/client.ts";

export type Backend = "pglite" | "postgres";

/** PGlite always; PostgreSQL as well when TEST_DATABASE_URL is set. */
export const BACKENDS: Backend[] = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

const opened = new Map<Backend, Promise<Database>>();

let slot: Promise<string> | undefined;

/**
 * This test process's share of the PostgreSQL server: `w<Vitest worker>`, or `w<worker>_<n>` when
 * another test run on the machine (a second terminal, an editor's runner) holds that one. Vitest numbers
 * the workers of each run from 1, so two runs would otherwise truncate and drop each other's databases
 * mid-test. Held by a session advisory lock on a connection kept open until the process ends.
 */
export function workerSlot(): Promise<string> {
  slot ??= (async () => {
    const worker = `w${process.env.VITEST_POOL_ID ?? "0"}`;
    const holder = await openDatabaseRaw(process.env.TEST_DATABASE_URL ?? "");
    // The lock lives as long as this connection; it must not keep the process alive on its own.
    (holder as unknown as { connection: { stream: { unref: () => void } } }).connection.stream.unref();
    for (let n = 0; ; n++) {
      const name = n === 0 ? worker : `${worker}_${n}`;
      const { rows } = await holder.query<{ ok: boolean }>(
        "select pg_try_advisory_lock(hashtext('tonus-test-slot'), hashtext($1)) as ok",
        [name],
      );
      if (rows[0]?.ok) return name;
    }
  })();
  return slot;
}

async function openPostgresForWorker(): Promise<Database> {
  const base = new URL(process.env.TEST_DATABASE_URL ?? "");
  // Each Vitest worker gets its own database so parallel workers never truncate each other's rows.
  const name = `${base.pathname.slice(1) || "tonus"}_${await workerSlot()}`;
  const admin = await openDatabaseRaw(base.toString());
  const exists = await admin.query("select 1 from pg_database where datname = $1", [name]);
  if (exists.rowCount === 0) await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  return openDatabase({ url: url.toString() });
}

async function openDatabaseRaw(url: string) {
  const pg = await import("pg");
  const client = new pg.default.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** One migrated database per backend and worker, shared by every test file of that worker. */
export function getTestDatabase(backend: Backend): Promise<Database> {
  let db = opened.get(backend);
  if (!db) {
    db = backend === "pglite" ? openDatabase({}) : openPostgresForWorker();
    opened.set(backend, db);
  }
  return db;
}

/** Empties every application table (keeps the migration ledger and pg-boss's own schema). */
export async function resetDatabase(database: Database): Promise<void> {
  const { rows } = await database.query<{ tablename: string }>(
    "select tablename from pg_tables where schemaname = 'public'",
  );
  const names = rows.map((r) => `"public"."${r.tablename}"`);
  if (!names.length) return;
  // A previous test's background job (an event delivery, a recompute) may still hold row locks on
  // PostgreSQL; TRUNCATE then loses a deadlock. Such a job is short: wait and try again.
  for (let attempt = 1; ; attempt++) {
    try {
      await database.query(`truncate ${names.join(", ")} restart identity cascade`);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if ((code !== "40P01" && code !== "55P03") || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}
