// Dashboard benchmark (issue 5): a person with 5 years of daily metrics and 1 year of 5-second heart
// rate (about 6.3 million samples) in PostgreSQL; chart-data requests for every range and period.
// Prints `BENCH dashboard.* …` lines. Uses BENCH_DATABASE_URL, else the local server
// (postgres://root@127.0.0.1:5432), in a database of its own that it drops and creates.
import { API } from "@tonus/contract";
import { buildApp } from "../src/app.ts";
import { openDatabase } from "../src/db/client.ts";
import { users } from "../src/db/schema.ts";
import { loadConfig } from "../src/lib/config.ts";
import { mintCsrfToken } from "../src/lib/csrf.ts";
import { createSession } from "../src/lib/sessions.ts";
import {
  type DashboardValue,
  recordSamples,
  recordValues,
} from "../src/modules/dashboard-values/dashboard-values.service.ts";
import { recreateDatabase } from "../src/test/recreate-database.ts";
import { describeLoad, runLoad } from "./common.ts";

const SECRET = "bench-secret-key-with-more-than-32-characters!";
const HR_DAYS = Number(process.env.BENCH_HR_DAYS ?? 365);
const base = new URL(process.env.BENCH_DATABASE_URL ?? "postgres://root@127.0.0.1:5432/postgres");

const url = await recreateDatabase(base.toString(), "bench_dashboard");
const database = await openDatabase({ url });

const [user] = await database.db
  .insert(users)
  .values({
    email: "bench@example.test",
    username: "bench",
    timezone: "Europe/Moscow",
    isCustomerOverride: true,
  })
  .returning({ id: users.id });
const userId = user?.id as string;

const DAY_MS = 86_400_000;
const end = Date.UTC(2026, 10, 24);
const dailyStart = end - 5 * 365 * DAY_MS;
const daily: [string, (i: number) => number][] = [
  ["weight", (i) => 75 + Math.sin(i / 40) * 3],
  ["steps", (i) => 6000 + ((i * 7919) % 6000)],
  ["sleep", (i) => 25_000 + ((i * 104_729) % 5000)],
  ["water", (i) => 1.5 + (i % 5) / 10],
  ["resting_heart_rate", (i) => 55 + (i % 9)],
  ["rmssd", (i) => 0.03 + (i % 11) / 1000],
  ["stress", (i) => 30 + ((i * 31) % 40)],
  ["energy", (i) => 40 + ((i * 17) % 50)],
];
const values: DashboardValue[] = [];
for (let i = 0; i < 5 * 365; i++)
  for (const [metric, f] of daily)
    values.push({
      metric,
      at: new Date(dailyStart + i * DAY_MS + 7 * 3_600_000),
      value: f(i),
      source: "garmin",
      clientId: `${metric}:${i}`,
    });
const tv = performance.now();
await database.db.transaction((tx) => recordValues(tx as never, userId, values));
process.stdout.write(
  `BENCH dashboard.record_values throughput=${Math.round(values.length / ((performance.now() - tv) / 1000))} records/s\n`,
);

// One year of heart rate every 5 seconds, written the way an import writes: into the bulk store, in
// batches of 20,000.
const hrStart = end - HR_DAYS * DAY_MS;
const total = HR_DAYS * 17_280;
const BATCH = 20_000;
const t0 = performance.now();
for (let done = 0; done < total; done += BATCH) {
  const batch: DashboardValue[] = [];
  for (let i = done; i < Math.min(total, done + BATCH); i++)
    batch.push({
      metric: "heart_rate",
      at: new Date(hrStart + i * 5000),
      value: 60 + ((i * 7) % 50),
      source: "garmin",
      clientId: `hr:${i}`,
    });
  await database.db.transaction((tx) => recordSamples(tx as never, userId, batch));
}
const seconds = (performance.now() - t0) / 1000;
process.stdout.write(`BENCH dashboard.record_samples throughput=${Math.round(total / seconds)} records/s\n`);
await database.query("vacuum analyze dashboard_values");
await database.query("vacuum analyze dashboard_daily");

const config = loadConfig({
  NODE_ENV: "production",
  LOG_LEVEL: "silent",
  BILLING_MODE: "sandbox",
  SECRET_KEY: SECRET,
  PUBLIC_URL: "http://bench.test",
  DATA_DIR: "/tmp/tonus-bench-unused",
  WEB_DIST: "/nonexistent-web-dist",
  DATABASE_URL: url,
});
const app = await buildApp(config, { database });
await app.ready();
const sessionId = await createSession(database.db, userId, { idleDays: 30, maxDays: 90 }, {});
const cookie = `tonussessionid=${sessionId}; csrftoken=${mintCsrfToken(SECRET, sessionId)}`;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const to = day(end);
const ranges = { week: 6, month: 29, year: 364, five_years: 5 * 365 - 1 };
const periods = ["day", "week", "month"] as const;
const items = ["heart_rate", "weight", "steps", "stress", "sleep"];

async function timed(path: string): Promise<number> {
  const t = performance.now();
  const res = await app.inject({ method: "GET", url: path, headers: { cookie } });
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
  return performance.now() - t;
}

const p = (list: number[], q: number) =>
  [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(q * list.length))] as number;
for (let warm = 0; warm < 20; warm++)
  await timed(`${API.chartData}?item=heart_rate&from=${day(end - 29 * DAY_MS)}&to=${to}&period=day`);
const all: number[] = [];
for (const [name, days] of Object.entries(ranges)) {
  const times: number[] = [];
  for (let round = 0; round < 10; round++)
    for (const period of periods)
      for (const item of items) {
        const from = day(end - days * DAY_MS);
        const chunks = Math.ceil((days + 1) / 400);
        for (let chunk = 0; chunk < (period === "day" ? chunks : 1); chunk++)
          times.push(
            await timed(
              `${API.chartData}?item=${item}&from=${from}&to=${to}&period=${period}&week_start=1&chunk=${chunk}`,
            ),
          );
      }
  all.push(...times);
  process.stdout.write(
    `BENCH dashboard.chart_data.${name} p50=${p(times, 0.5).toFixed(1)} ms p95=${p(times, 0.95).toFixed(1)} ms\n`,
  );
}
const intraday: number[] = [];
for (let i = 0; i < 50; i++) {
  const d = day(end - ((i * 7) % HR_DAYS) * DAY_MS - DAY_MS);
  intraday.push(await timed(`${API.chartIntraday}?metric=heart_rate&from=${d}&to=${d}&points=800`));
}
process.stdout.write(
  `BENCH dashboard.chart_data p95=${p(all, 0.95).toFixed(1)} ms (target ≤ 50, ${all.length} requests, ${total + values.length} samples)\n`,
);
// The intraday view (one day of raw samples, downsampled keeping peaks) reads raw rows, not summaries.
process.stdout.write(
  `BENCH dashboard.intraday_day p50=${p(intraday, 0.5).toFixed(1)} ms p95=${p(intraday, 0.95).toFixed(1)} ms\n`,
);

// R2: the same person's 30-day heart-rate chart at 20 connections, over loopback from a process of its
// own. Goal p99 ≤ 300 ms.
const address = await app.listen({ host: "127.0.0.1", port: 0 });
const r2 = await runLoad({
  url: `${address}${API.chartData}?item=heart_rate&from=${day(end - 29 * DAY_MS)}&to=${to}&period=day`,
  connections: 20,
  seconds: Number(process.env.BENCH_R2_SECONDS ?? 20),
  headers: { cookie },
  kind: "get",
});
process.stdout.write(
  `BENCH dashboard.r2_30_days ${describeLoad(r2)} (target p99 ≤ 300 ms, 20 connections)\n`,
);
await app.close();
await database.close().catch(() => {});
process.exit(r2.non2xx === 0 && r2.errors === 0 ? 0 : 1);
