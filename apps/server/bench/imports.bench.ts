// `npm run bench -w @tonus/server` (and the root `npm run bench`): an Apple Health export.xml imported
// through the real import job (worker-thread reader and encoder, each batch in one transaction: RR series
// and readings through their modules, samples through the dashboard's bulk store) into PostgreSQL when
// BENCH_DATABASE_URL or TEST_DATABASE_URL is set, else into PGlite, twice: alone, for its records/s and
// the process's peak RSS growth, then for another person while the API is asked every 5 ms, for the
// API's p99 latency idle and during the import and their ratio (RELIABILITY R3). Prints `BENCH <name>
// <metric>=<value> <unit>`, and as `#` lines, independent of other load on the machine, the CPU seconds
// the main thread, the import threads and the database backends spent (PostgreSQL on this host only).
// Goals (issue 7): ≥ 100,000 records/s, ≤ 200 MB RSS growth, p99 during ≤ 2× idle. BENCH_IMPORT_MB sets
// the export's size (default 20).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { IMPORTS_API, type Import } from "@tonus/contract";
import { writeAppleHealthExportInChild } from "../../../packages/importers/test/synthetic-apple-health.ts";
import { buildApp } from "../src/app.ts";
import { openDatabase } from "../src/db/client.ts";
import { users } from "../src/db/schema.ts";
import { loadConfig } from "../src/lib/config.ts";
import { createSession } from "../src/lib/sessions.ts";
import { strippedSources } from "../src/lib/thread-sources.ts";
import { HEAD_BYTES, newStoredName } from "../src/modules/imports/imports.files.ts";
import { IMPORT_TIMINGS } from "../src/modules/imports/imports.writer.ts";
import { recreateDatabase } from "../src/test/recreate-database.ts";
import { describeLoad, runLoad, startLoad } from "./common.ts";
import type { LoadJob } from "./load.ts";

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.BENCH_IMPORT_MB ?? 20);
const POSTGRES = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const backend = POSTGRES ? "pg" : "pglite";

/** CPU seconds (user + system) of a process, from /proc (clock ticks of 1/100 s on Linux). */
function processCpuS(pid: string): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null; // it ended meanwhile
  }
}

/**
 * The CPU the PostgreSQL backends of database `name` on this host spend: each backend's process title
 * names its database, so backends that come and go during the run (the import writer's own
 * connection) are counted too, sampled until they end. `total` answers null off Linux.
 */
function backendCpuTracker(name: string) {
  const linux = fs.existsSync("/proc/self/stat");
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  // Processes that are not PostgreSQL's, so the sampling (on the main thread) reads little.
  const others = new Set<string>();
  const sample = (isStart: boolean) => {
    if (!linux) return;
    for (const pid of fs.readdirSync("/proc")) {
      if (others.has(pid) || !/^\d+$/.test(pid)) continue;
      if (!first.has(pid)) {
        let title = "";
        try {
          title = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
        } catch {
          // ended meanwhile
        }
        // A backend just forked has its final title a few milliseconds later: PostgreSQL's processes
        // are looked at again each time, the rest never.
        if (!title.includes("postgres")) others.add(pid);
        if (!title.startsWith("postgres:") || !title.includes(` ${name} `)) continue;
      }
      const cpu = processCpuS(pid);
      if (cpu === null) continue;
      // A backend born during the run spent all its CPU on it.
      if (!first.has(pid)) first.set(pid, isStart ? cpu : 0);
      last.set(pid, cpu);
    }
  };
  sample(true);
  return {
    sample: () => sample(false),
    total: (): number | null => {
      if (!linux) return null;
      let sum = 0;
      for (const [pid, cpu] of last) sum += cpu - (first.get(pid) ?? 0);
      return sum;
    },
  };
}

/**
 * The CPU this process's threads spend, by kind (Linux thread names: `MainThread`, `WorkerThread` for
 * the import's threads, `V8Worker` for V8's helpers — garbage collection and compilation — and
 * `libuv-worker`), sampled so that threads ending during the run are counted. Empty off Linux.
 */
function threadCpuTracker() {
  const linux = fs.existsSync("/proc/self/task");
  const first = new Map<string, number>();
  const last = new Map<string, { kind: string; cpu: number }>();
  const sample = (isStart: boolean) => {
    if (!linux) return;
    for (const tid of fs.readdirSync("/proc/self/task")) {
      let kind: string;
      let cpu: number | null;
      try {
        kind = fs.readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim();
        cpu = processCpuS(`self/task/${tid}`);
      } catch {
        continue; // ended meanwhile
      }
      if (cpu === null) continue;
      if (!first.has(tid)) first.set(tid, isStart ? cpu : 0);
      last.set(tid, { kind, cpu });
    }
  };
  sample(true);
  return {
    sample: () => sample(false),
    byKind: (): string => {
      const sums = new Map<string, number>();
      for (const [tid, { kind, cpu }] of last)
        sums.set(kind, (sums.get(kind) ?? 0) + cpu - (first.get(tid) ?? 0));
      return [...sums]
        .filter(([, s]) => s >= 0.01)
        .map(([kind, s]) => `${kind} ${s.toFixed(2)} s`)
        .join(", ");
    },
  };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-bench-imports-"));
  const databaseUrl = POSTGRES ? await recreateDatabase(POSTGRES, "bench_imports") : undefined;
  try {
    // The export is written to the uploads folder first, as an upload would be, by another process: its
    // generation (a gigabyte of text) would otherwise count in this process's memory.
    const filesDir = path.join(dir, "files");
    fs.mkdirSync(path.join(filesDir, "imports"), { recursive: true });
    const storedName = newStoredName();
    const file = path.join(filesDir, "imports", storedName);
    const { counts, sha256, head } = await writeAppleHealthExportInChild(SIZE_MB * MB, file, HEAD_BYTES);

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
    const person = async (n: number) => {
      const [user] = await database.db
        .insert(users)
        .values({ email: `bench${n}@example.test`, username: `bench${n}` })
        .returning({ id: users.id });
      const userId = user?.id ?? "";
      const sessionId = await createSession(database.db, userId, { idleDays: 30, maxDays: 90 }, {});
      return { userId, cookie: `tonussessionid=${sessionId}` };
    };
    const alone = await person(1);
    const beside = await person(2);
    // The second import reads its own copy (an import removes its file when it ends).
    const secondName = newStoredName();
    fs.copyFileSync(file, path.join(filesDir, "imports", secondName));

    const { createImport } = await import("../src/modules/imports/imports.service.ts");
    // A started server prepares the import threads' code after it listens (main.ts): so does the bench.
    await strippedSources();
    const jobRef = {
      name: "imports.run",
      send: (data: object, options?: object) => app.ctx.services.jobs.send("imports.run", data, options),
    };
    const origin = await app.listen({ host: "127.0.0.1", port: 0 });
    const poller = (seconds: number): LoadJob => ({
      url: `${origin}${IMPORTS_API.imports}`,
      connections: 1,
      seconds,
      pauseMs: 5,
      headers: { cookie: beside.cookie },
      kind: "get",
    });
    const name = `imports.apple_health_${backend}`;
    const line = (metric: string, value: string, unit: string) =>
      process.stdout.write(`BENCH ${name} ${metric}=${value} ${unit}\n`);
    const mb = (n: number) => (n / MB).toFixed(0);

    /** One import of the export, from the upload to its end, measured. */
    const importOnce = async (who: { userId: string; cookie: string }, stored: string) => {
      for (const k of Object.keys(IMPORT_TIMINGS)) IMPORT_TIMINGS[k as keyof typeof IMPORT_TIMINGS] = 0;
      global.gc?.();
      const memBefore = process.memoryUsage();
      let memAtPeak = memBefore;
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        if (m.rss > memAtPeak.rss) memAtPeak = m;
      }, 50);
      // How long the main thread is kept from answering: what a request waits for besides the database.
      const loopDelay = monitorEventLoopDelay({ resolution: 5 });
      loopDelay.enable();
      const cpu0 = process.cpuUsage();
      const main0 = process.threadCpuUsage();
      const pg = databaseUrl ? backendCpuTracker(new URL(databaseUrl).pathname.slice(1)) : null;
      const threads = threadCpuTracker();
      const pgSampler = setInterval(() => {
        pg?.sample();
        threads.sample();
      }, 100);
      const t0 = performance.now();
      let current = await createImport(app.ctx, jobRef as never, who.userId, {
        storedName: stored,
        saved: { size: counts.bytes, sha256, head, truncated: false },
        fileName: "export.xml",
        fields: { source: "apple-health", time_zone: "UTC" },
      });
      const url = IMPORTS_API.import.replace(":id", current.id);
      let runningAt = Number.NaN;
      let firstBatchAt = Number.NaN;
      while (current.status === "queued" || current.status === "running") {
        await new Promise((resolve) => setTimeout(resolve, 25));
        current = (
          await app.inject({ method: "GET", url, headers: { cookie: who.cookie } })
        ).json() as Import;
        const at = (performance.now() - t0) / 1000;
        if (current.status === "running" && Number.isNaN(runningAt)) runningAt = at;
        if ((current.progress?.records_read ?? 0) > 0 && Number.isNaN(firstBatchAt)) firstBatchAt = at;
      }
      const seconds = (performance.now() - t0) / 1000;
      clearInterval(sampler);
      loopDelay.disable();
      const cpu = process.cpuUsage(cpu0);
      const main = process.threadCpuUsage(main0);
      clearInterval(pgSampler);
      pg?.sample();
      threads.sample();
      if (current.status !== "done")
        throw new Error(`import ended ${current.status}: ${JSON.stringify(current.report)}`);
      const records = (current.report?.imported ?? 0) + (current.report?.duplicates ?? 0);
      const t = { ...IMPORT_TIMINGS };
      const mainS = (main.user + main.system) / 1e6;
      const allS = (cpu.user + cpu.system) / 1e6;
      const pgS = pg?.total() ?? null;
      const notes = [
        `# where the batch time went (the writing thread's own CPU in brackets): values ${(t.valuesMs / 1000).toFixed(2)} s (${(t.valuesCpuMs / 1000).toFixed(2)}) for ${t.valuesCount} values, RR series and readings ${(t.slowMs / 1000).toFixed(2)} s (${(t.slowCpuMs / 1000).toFixed(2)}) for ${t.rrCount + t.bpCount}, ${t.batches} batches in ${(t.batchMs / 1000).toFixed(2)} s (${(t.batchCpuMs / 1000).toFixed(2)}); the writer thread's start ${(t.writerStartCpuMs / 1000).toFixed(2)} s of CPU`,
        `# at the RSS peak, growth of: V8 heap ${mb(memAtPeak.heapTotal - memBefore.heapTotal)} MB, array buffers (PGlite's WebAssembly memory among them) ${mb(memAtPeak.arrayBuffers - memBefore.arrayBuffers)} MB, external ${mb(memAtPeak.external - memBefore.external)} MB`,
        `# CPU: main thread ${mainS.toFixed(2)} s, import threads and the rest ${(allS - mainS).toFixed(2)} s${pgS !== null ? `, PostgreSQL backends ${pgS.toFixed(2)} s` : ""} (wall ${seconds.toFixed(2)} s, load ${os.loadavg()[0]?.toFixed(1)}); by thread: ${threads.byKind()}`,
        `# ${SIZE_MB} MB export, ${records} records (${current.report?.measurements} RR measurements, ${current.report?.bp_readings} readings) in ${seconds.toFixed(1)} s: running after ${runningAt.toFixed(2)} s, the first batch committed after ${firstBatchAt.toFixed(2)} s`,
      ];
      return {
        recordsPerS: records / seconds,
        seconds,
        rssGrowth: memAtPeak.rss - memBefore.rss,
        batchMs: t.batchMs / Math.max(1, t.batches),
        loopDelay,
        notes,
      };
    };

    // 1. The import alone: its speed and memory (issue 7's goals).
    const first = await importOnce(alone, storedName);
    line("records_per_s", String(Math.round(first.recordsPerS)), "records/s");
    line("throughput", (counts.bytes / MB / first.seconds).toFixed(1), "MB/s");
    line("peak_rss_growth", mb(first.rssGrowth), "MB");
    line("batch", first.batchMs.toFixed(1), "ms");
    process.stdout.write(`${first.notes.join("\n")}\n`);

    // 2. The same export for another person while the API is asked, by a client in a process of its own
    // (the requests' client half would otherwise count in this process's memory and CPU): one connection,
    // a request every 5 ms, idle for 8 s first (about 1,000 requests, so that the p99 is not the 4th
    // slowest of a few hundred), then through the import (RELIABILITY R3). Warmed up first (JIT, pool
    // connections).
    await runLoad(poller(1));
    const idleLoopDelay = monitorEventLoopDelay({ resolution: 5 });
    idleLoopDelay.enable();
    const idle = await runLoad(poller(8));
    idleLoopDelay.disable();
    const during = startLoad(poller(3600));
    const second = await importOnce(beside, secondName);
    const busy = await during.stop();
    if (idle.non2xx + idle.errors + busy.non2xx + busy.errors > 0)
      throw new Error(`the API failed while measured: ${describeLoad(idle)}; ${describeLoad(busy)}`);
    line("records_per_s_beside_requests", String(Math.round(second.recordsPerS)), "records/s");
    process.stdout.write(`# API idle: ${describeLoad(idle)}\n# API during: ${describeLoad(busy)}\n`);
    line("api_p99_idle", idle.p99.toFixed(1), "ms");
    line("api_p99_during", busy.p99.toFixed(1), "ms");
    line("api_p99_ratio", (busy.p99 / Math.max(0.1, idle.p99)).toFixed(2), "x");
    line("event_loop_delay_p99_idle", (idleLoopDelay.percentile(99) / 1e6).toFixed(1), "ms");
    line("event_loop_delay_p99", (second.loopDelay.percentile(99) / 1e6).toFixed(1), "ms");
    line("event_loop_delay_max", (second.loopDelay.max / 1e6).toFixed(1), "ms");
    process.stdout.write(`${second.notes.join("\n")}\n`);
    await app.close();
    await database.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
