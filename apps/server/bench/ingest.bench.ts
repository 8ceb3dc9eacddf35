// Ingest load (RELIABILITY R1, issue 7): the real server listening on loopback, the load generator
// (bench/load.ts) in a process of its own with 50 keep-alive connections posting 50-sample batches to
// the ingest API for BENCH_INGEST_SECONDS (default 60), each with a fresh Idempotency-Key and fresh
// client ids. Goals: ≥ 300 requests/s (15,000 records/s), p99 ≤ 250 ms, no answer but 2xx — and every
// record of every 2xx answer stored exactly once (counted afterwards). PostgreSQL from BENCH_DATABASE_URL
// or TEST_DATABASE_URL, else the local server (postgres://root@127.0.0.1:5432/postgres), in a database of
// its own; BENCH_INGEST_BACKEND=pglite measures the embedded database instead.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { API } from "@tonus/contract";
import { buildApp } from "../src/app.ts";
import { openDatabase } from "../src/db/client.ts";
import { users } from "../src/db/schema.ts";
import { API_TOKEN_PREFIX } from "../src/lib/auth.ts";
import { loadConfig } from "../src/lib/config.ts";
import { randomToken, sha256 } from "../src/lib/crypto.ts";
import { insertApiToken } from "../src/modules/auth/auth.repo.ts";
import { recreateDatabase } from "../src/test/recreate-database.ts";
import { describeLoad, runLoad } from "./common.ts";

const SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 60);
const CONNECTIONS = 50;
const RECORDS = 50;
const pglite = process.env.BENCH_INGEST_BACKEND === "pglite";
const baseUrl =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  "postgres://root@127.0.0.1:5432/postgres";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-bench-ingest-"));
const databaseUrl = pglite ? undefined : await recreateDatabase(baseUrl, "bench_ingest");
const database = await openDatabase(
  databaseUrl ? { url: databaseUrl } : { pgliteDir: path.join(dir, "pgdata") },
);
const config = loadConfig({
  NODE_ENV: "production",
  LOG_LEVEL: "silent",
  BILLING_MODE: "off",
  SECRET_KEY: "bench-secret-key-with-more-than-32-characters!",
  PUBLIC_URL: "http://127.0.0.1",
  DATA_DIR: dir,
  WEB_DIST: "/nonexistent-web-dist",
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
});
const app = await buildApp(config, { database });
const address = await app.listen({ host: "127.0.0.1", port: 0 });

// Fifty people, each with a companion sending its batches one after another on its own connection
// (batches of one person are written one at a time: the dashboard's per-person lock keeps the day
// summaries exact). BENCH_INGEST_USERS=1 puts every connection on one person instead.
const PEOPLE = Number(process.env.BENCH_INGEST_USERS ?? CONNECTIONS);
const people = await database.db
  .insert(users)
  .values(
    Array.from({ length: PEOPLE }, (_, i) => ({
      email: `bench${i}@example.test`,
      username: `bench${i}`,
      timezone: "UTC",
    })),
  )
  .returning({ id: users.id });
const authorizations: string[] = [];
for (const person of people) {
  const key = `${API_TOKEN_PREFIX}${randomToken(32)}`;
  await insertApiToken(database.db, person.id, "bench", sha256(key));
  authorizations.push(`Token ${key}`);
}

const job = {
  url: `${address}${API.ingest}`,
  headers: {},
  authorizations,
  kind: "ingest" as const,
  records: RECORDS,
};
// Warm up (JIT, the pool's connections), then measure with the event loop watched.
await runLoad({ ...job, connections: CONNECTIONS, seconds: 5 });
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
const before = await database.query<{ n: string | number }>("select count(*) as n from dashboard_values");
const result = await runLoad({ ...job, connections: CONNECTIONS, seconds: SECONDS });
loop.disable();
const after = await database.query<{ n: string | number }>("select count(*) as n from dashboard_values");
const stored = Number(after.rows[0]?.n) - Number(before.rows[0]?.n);
const accepted = (result.statuses["200"] ?? 0) * RECORDS;

const name = `ingest.r1_${pglite ? "pglite" : "pg"}`;
process.stdout.write(
  `BENCH ${name} ${describeLoad(result)} (target ≥ 300 req/s, p99 ≤ 250 ms, 0 non-2xx; ${CONNECTIONS} connections for ${PEOPLE} ${PEOPLE === 1 ? "person" : "people"}, ${RECORDS}-record batches, ${SECONDS} s)\n`,
);
process.stdout.write(
  `BENCH ${name}.records records_per_s=${Math.round(accepted / result.seconds)} stored=${stored} accepted=${accepted} (target ≥ 15,000/s; stored must equal accepted)\n`,
);
process.stdout.write(
  `BENCH ${name}.event_loop p99=${(loop.percentile(99) / 1e6).toFixed(1)} ms max=${(loop.max / 1e6).toFixed(1)} ms\n`,
);
if (Object.keys(result.statuses).some((s) => s !== "200"))
  process.stdout.write(`# statuses ${JSON.stringify(result.statuses)}\n`);

await app.close();
await database.close().catch(() => {});
fs.rmSync(dir, { recursive: true, force: true });
process.exit(stored === accepted ? 0 : 1);
