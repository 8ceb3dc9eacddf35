import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import * as schema from "./schema.ts";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** Runs raw SQL with positional parameters on either driver; pg-boss and a few repos use it. */
export type RawQuery = <T = Record<string, unknown>>(
  text: string,
  params?: unknown[],
) => Promise<{ rows: T[] }>;

export type Database = {
  db: Db;
  kind: "pglite" | "postgres";
  query: RawQuery;
  /** Set on PGlite only: the single in-process connection (pg-boss shares it). */
  pglite?: PGlite;
  /** Set on PostgreSQL only. */
  pool?: pg.Pool;
  /** Set on PostgreSQL only: what the pool connects with (pg-boss opens its own small pool). */
  connectionString?: string;
  close(): Promise<void>;
};

export const MIGRATIONS_DIR = path.join(import.meta.dirname, "migrations");

/** Opens PostgreSQL at `url`, or PGlite in `dataDir` (in memory when undefined), and migrates. */
export async function openDatabase(opts: { url?: string; pgliteDir?: string }): Promise<Database> {
  if (opts.url) {
    const pool = new pg.Pool({ connectionString: opts.url, max: 10 });
    const db = drizzlePg(pool, { schema });
    await migratePg(db, { migrationsFolder: MIGRATIONS_DIR });
    return {
      db,
      kind: "postgres",
      pool,
      connectionString: opts.url,
      query: async (text, params) => {
        const r = await pool.query(text, params as unknown[]);
        return { rows: r.rows };
      },
      close: () => pool.end(),
    };
  }
  const pglite = await PGlite.create(opts.pgliteDir);
  const db = drizzlePglite(pglite, { schema });
  await migratePglite(db, { migrationsFolder: MIGRATIONS_DIR });
  return {
    db,
    kind: "pglite",
    pglite,
    query: async <T>(text: string, params?: unknown[]) => {
      const r = await pglite.query<T>(text, params);
      return { rows: r.rows };
    },
    close: async () => {
      if (pglite.closed) return;
      await pglite.query("CHECKPOINT");
      await pglite.close();
    },
  };
}
