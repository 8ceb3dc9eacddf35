import type { Database } from "../db/client.ts";

/** A digest of every row of every application table: equal digests mean no row changed. */
export async function tableChecksums(database: Database): Promise<Record<string, string>> {
  const { rows } = await database.query<{ tablename: string }>(
    "select tablename from pg_tables where schemaname = 'public' order by tablename",
  );
  const out: Record<string, string> = {};
  for (const { tablename } of rows) {
    const r = await database.query<{ digest: string }>(
      `select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from "public"."${tablename}" t`,
    );
    out[tablename] = r.rows[0]?.digest ?? "";
  }
  return out;
}
