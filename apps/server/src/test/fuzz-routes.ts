import { sql } from "drizzle-orm";
import fc from "fast-check";
import { expect } from "vitest";
import type { App } from "../app.ts";
import type { TestClient } from "./harness.ts";

/**
 * Drives one write route with fuzzed bodies as a signed-in person (RELIABILITY Z1): never a 5xx, every
 * 4xx is JSON with `error` and a stable `code`, and a refused request leaves the person's rows in
 * `tables` exactly as they were (no partial write).
 */
export const FUZZ_RUNS = process.env.TONUS_HEAVY ? 10_000 : 60;
/** The heavy tier's 10,000 bodies per route take minutes on a busy 2-core machine. */
export const FUZZ_TIMEOUT_MS = process.env.TONUS_HEAVY ? 3_600_000 : 240_000;

export async function userRowsDigest(app: App, userId: string, tables: readonly string[]): Promise<string> {
  const parts: string[] = [];
  for (const table of tables) {
    const r = (await app.ctx.database.db.execute(
      sql`select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h
          from (select * from ${sql.identifier(table)} where user_id = ${userId}) t`,
    )) as unknown as { rows: { h: string }[] };
    parts.push(`${table}:${r.rows[0]?.h}`);
  }
  return parts.join("\n");
}

export async function fuzzRoute(opts: {
  app: App;
  client: TestClient;
  userId: string;
  tables: readonly string[];
  method: "POST" | "PUT" | "PATCH" | "DELETE";
  /** The URL of each run (a fixed one, or one built from a generated id). */
  url: fc.Arbitrary<string>;
  body: fc.Arbitrary<string>;
  runs?: number;
}): Promise<{ statuses: Map<number, number> }> {
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(opts.url, opts.body, async (url, payload) => {
      const before = await userRowsDigest(opts.app, opts.userId, opts.tables);
      const res = await opts.client.request(opts.method, url, {
        payload,
        headers: { "content-type": "application/json" },
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode >= 500)
        throw new Error(
          `${opts.method} ${url} answered ${res.statusCode} to ${JSON.stringify(payload.slice(0, 500))}: ${res.body}`,
        );
      if (res.statusCode >= 400) {
        const json = res.json() as { error?: unknown; detail?: unknown; code?: unknown };
        expect(typeof json.code, res.body).toBe("string");
        expect(typeof json.error === "string" || typeof json.detail === "string", res.body).toBe(true);
        expect(
          await userRowsDigest(opts.app, opts.userId, opts.tables),
          `${url} ${payload.slice(0, 200)}`,
        ).toBe(before);
      }
    }),
    { numRuns: opts.runs ?? FUZZ_RUNS },
  );
  return { statuses };
}
