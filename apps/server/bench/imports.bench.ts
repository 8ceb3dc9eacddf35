// `npm run bench -w @tonus/server` (and the root `npm run bench`): an Apple Health export.xml imported
// through the real import job (worker-thread reader, batches through the dashboard's `recordValues`,
// RR series and readings through their services) into PostgreSQL when BENCH_DATABASE_URL or
// TEST_DATABASE_URL is set, else into PGlite. Prints `BENCH <name> <metric>=<value> <unit>`:
// records/s, the process's peak RSS growth, and the API's p99 latency idle and while the import runs
// (RELIABILITY R3), and where the time goes: values through the dashboard's `recordValues` per second,
// and the mean time of one RR measurement and one reading through their services. Goals (issue 7):
// ≥ 100,000 records/s, ≤ 200 MB RSS growth. BENCH_IMPORT_MB sets the export's size (default 20).
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { IMPORTS_API, type Import } from "@tonus/contract";
import {
  emptyCounts,
  generateAppleHealthExport,
} from "../../../packages/importers/test/synthetic-apple-health.ts";
import { type App, buildApp } from "../src/app.ts";
import { openDatabase } from "../src/db/client.ts";
import { users } from "../src/db/schema.ts";
import { loadConfig } from "../src/lib/config.ts";
import { createSession } from "../src/lib/sessions.ts";
import { HEAD_BYTES, newStoredName } from "../src/modules/imports/imports.files.ts";
import { IMPORT_TIMINGS } from "../src/modules/imports/imports.writer.ts";

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.BENCH_IMPORT_MB ?? 20);
const POSTGRES = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const backend = POSTGRES ? "pg" : "pglite";

async function freshPostgres(url: string): Promise<string> {
  const base = new URL(url);
  const name = `${base.pathname.slice(1) || "tonus"}_bench_imports`;
  const pg = await import("pg");
  const admin = new pg.default.Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  base.pathname = `/${name}`;
  return base.toString();
}

function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}

/** Reads the import once through the API and answers the time it took. */
async function timedGet(app: App, url: string, cookie: string): Promise<{ ms: number; body: Import }> {
  const t0 = performance.now();
  const res = await app.inject({ method: "GET", url, headers: { cookie } });
  return { ms: performance.now() - t0, body: res.json() as Import };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-bench-imports-"));
  const databaseUrl = POSTGRES ? await freshPostgres(POSTGRES) : undefined;
  try {
    // The export is written to the uploads folder first, as an upload would be (streamed, never in memory).
    const filesDir = path.join(dir, "files");
    fs.mkdirSync(path.join(filesDir, "imports"), { recursive: true });
    const storedName = newStoredName();
    const file = path.join(filesDir, "imports", storedName);
    const counts = emptyCounts();
    const out = fs.createWriteStream(file);
    const hash = createHash("sha256");
    let head = Buffer.alloc(0);
    for await (const chunk of generateAppleHealthExport(SIZE_MB * MB, counts)) {
      if (head.length < HEAD_BYTES) head = Buffer.concat([head, chunk]).subarray(0, HEAD_BYTES);
      hash.update(chunk);
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
    }
    await new Promise<void>((resolve) => out.end(() => resolve()));

    const config = loadConfig({
      NODE_ENV: "production",
      LOG_LEVEL: "silent",
      DATA_DIR: dir,
      FILES_DIR: filesDir,
      WEB_DIST: "/nonexistent-web-dist",
      SECRET_KEY: "bench-secret-key-with-more-than-32-characters",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    const database = await openDatabase(
      databaseUrl ? { url: databaseUrl } : { pgliteDir: path.join(dir, "pgdata") },
    );
    const app = await buildApp(config, { database });
    await app.ready();
    const [user] = await database.db
      .insert(users)
      .values({ email: "bench@example.test", username: "bench" })
      .returning({ id: users.id });
    const userId = user?.id ?? "";
    const sessionId = await createSession(database.db, userId, { idleDays: 30, maxDays: 90 }, {});
    const cookie = `tonussessionid=${sessionId}`;

    // The API's latency with nothing running, on the route the web app polls.
    const { createImport } = await import("../src/modules/imports/imports.service.ts");
    const jobRef = {
      name: "imports.run",
      send: (data: object, options?: object) => app.ctx.services.jobs.send("imports.run", data, options),
    };
    const idle: number[] = [];
    for (let i = 0; i < 200; i++) idle.push((await timedGet(app, IMPORTS_API.imports, cookie)).ms);

    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 50);
    const t0 = performance.now();
    const created = await createImport(app.ctx, jobRef as never, userId, {
      storedName,
      saved: { size: counts.bytes, sha256: hash.digest("hex"), head: new Uint8Array(head), truncated: false },
      fileName: "export.xml",
      fields: { source: "apple-health", time_zone: "UTC" },
    });
    const during: number[] = [];
    let current = created;
    const url = IMPORTS_API.import.replace(":id", created.id);
    while (current.status === "queued" || current.status === "running") {
      const { ms, body } = await timedGet(app, url, cookie);
      during.push(ms);
      current = body;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const records = (current.report?.imported ?? 0) + (current.report?.duplicates ?? 0);
    const name = `imports.applehealth_${backend}`;
    const line = (metric: string, value: string, unit: string) =>
      process.stdout.write(`BENCH ${name} ${metric}=${value} ${unit}\n`);
    if (current.status !== "done")
      throw new Error(`import ended ${current.status}: ${JSON.stringify(current.report)}`);
    line("records", String(Math.round(records / seconds)), "records/s");
    line("throughput", (counts.bytes / MB / seconds).toFixed(1), "MB/s");
    const t = IMPORT_TIMINGS;
    line("values_write", String(Math.round(t.valuesCount / (t.valuesMs / 1000))), "values/s");
    line("rr_measurement", (t.rrMs / Math.max(1, t.rrCount)).toFixed(1), "ms");
    line("bp_reading", (t.bpMs / Math.max(1, t.bpCount)).toFixed(1), "ms");
    line("peak_rss_growth", ((rssPeak - rssBefore) / MB).toFixed(0), "MB");
    line("api_p99_idle", p99(idle).toFixed(1), "ms");
    line("api_p99_during", p99(during).toFixed(1), "ms");
    process.stdout.write(
      `# ${SIZE_MB} MB export, ${records} records (${current.report?.measurements} RR measurements, ${current.report?.bp_readings} readings) in ${seconds.toFixed(1)} s\n`,
    );
    await app.close();
    await database.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
