// Rendering 12 charts of a year of daily data, after the data arrives, in Debian's Chromium (run by
// e2e/bench/run.ts). Prints `BENCH <name> <metric>=<value> <unit>`. Target (issue 5): ≤ 100 ms.
//
// How: the real server (a fresh data directory) and the built web app; the layout and the chart data
// are answered by Playwright from memory, so the page holds exactly 12 charts with 366 daily points
// each (two series on one of them) whatever the demo holds. Each run opens My graphs on 30 days and
// chooses "Year":
// - `dashboard_load_12_charts_year`: from the first chunk's answer to the last chart drawn, with the
//   page's own pacing (at most 4 requests in flight, so three waves of answers);
// - `dashboard_render_12_charts_year`: then back to 30 days and to "Year" again, now with every answer
//   in the page's cache: from the click to the last chart drawn, which is the rendering alone (merging,
//   React, uPlot for all 12).
// The page marks each arriving chunk and each chart's first draw (features/dashboard/perf-marks.ts).
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import {
  API,
  CHART_ITEMS,
  type ChartData,
  type ChartItemKey,
  type DashboardLayout,
  METRICS,
} from "@tonus/contract";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const CHARTS: ChartItemKey[] = [
  "stress",
  "energy",
  "productivity",
  "heart_rate",
  "rmssd",
  "stdrr",
  "meanrr",
  "pnn50",
  "sleep",
  "steps",
  "weight",
  "blood_pressure",
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
    });
  });
}

const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** A deterministic daily series for every day of [from, to], with min–max spread. */
function chartData(item: ChartItemKey, from: string, to: string): ChartData {
  const series = CHART_ITEMS[item].series.map((metric, s) => {
    const points = [];
    for (let day = from, i = 0; day <= to; day = addDays(day, 1), i++) {
      const value = 50 + 20 * Math.sin(i / 9 + s) + ((i * 7919) % 13);
      points.push({ t: day, value, min: value - 6, max: value + 6, total: null, days: 1 });
    }
    return { metric, unit: METRICS[metric].units.metric, points };
  });
  return { item, period: "day", from, to, chunk: 0, chunks: 1, demo: true, series };
}

const layout: DashboardLayout = {
  demo: true,
  charts: CHARTS.map((item, position) => ({ id: `demo-${item}`, item, position })),
  table_parameters: ["stress"],
  source_priority: {},
};

/** In the page: waits for `count` first draws and answers the time from the first chunk's arrival. */
function waitForDraws({ count }: { count: number }): Promise<number> {
  return new Promise<number>((resolve) => {
    const check = () => {
      const drawn = performance.getEntriesByName("tonus:chart-drawn");
      const arrived = performance.getEntriesByName("tonus:chunk-arrived");
      if (drawn.length >= count && arrived.length > 0) {
        resolve(Math.max(...drawn.map((m) => m.startTime)) - Math.min(...arrived.map((m) => m.startTime)));
      } else setTimeout(check, 10);
    };
    check();
  });
}

function report(name: string, times: number[]): void {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  process.stdout.write(`BENCH ${name} median=${median.toFixed(1)} ms\n`);
  process.stdout.write(`BENCH ${name} max=${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms\n`);
}

async function main(): Promise<void> {
  const repo = path.resolve(import.meta.dirname, "../..");
  const build = spawn("npm", ["run", "--silent", "build", "-w", "@tonus/web"], {
    cwd: repo,
    stdio: "ignore",
  });
  await new Promise<void>((resolve, reject) =>
    build.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`build failed: ${code}`)))),
  );
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-bench-"));
  const server = spawn(process.execPath, ["apps/server/src/main.ts"], {
    cwd: repo,
    stdio: "ignore",
    env: {
      ...process.env,
      NODE_ENV: "test",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      BILLING_MODE: "sandbox",
      LOG_LEVEL: "silent",
    },
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 120; i++) {
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const loads: number[] = [];
    const renders: number[] = [];
    for (let run = 0; run < RUNS + 1; run++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
      await page.route(
        (url) => url.pathname === API.chartLayout,
        (route) => route.fulfill({ json: layout }),
      );
      await page.route(
        (url) => url.pathname === API.chartData,
        (route) => {
          const url = new URL(route.request().url());
          const item = url.searchParams.get("item") as ChartItemKey;
          return route.fulfill({
            json: chartData(
              item,
              url.searchParams.get("from") as string,
              url.searchParams.get("to") as string,
            ),
          });
        },
      );
      await page.goto(`${base}/dashboard?tab=graphs`);
      await page.getByRole("article", { name: "Weight", exact: true }).locator(".chart-summary").waitFor();
      await page.evaluate(() => performance.clearMarks());
      await page.getByRole("radio", { name: "Year", exact: true }).check();
      const loaded = await page.evaluate(waitForDraws, { count: CHARTS.length });
      await page.getByRole("radio", { name: "30 days", exact: true }).check();
      await page.getByRole("article", { name: "Weight", exact: true }).locator(".chart-summary").waitFor();
      const rendered = await page.evaluate(
        ({ count }) => {
          const start = performance.now();
          (document.querySelector('input[type="radio"][value="last_year"]') as HTMLInputElement).click();
          return new Promise<number>((resolve) => {
            const check = () => {
              const drawn = performance
                .getEntriesByName("tonus:chart-drawn")
                .filter((m) => m.startTime >= start);
              if (drawn.length >= count) resolve(Math.max(...drawn.map((m) => m.startTime)) - start);
              else setTimeout(check, 10);
            };
            check();
          });
        },
        { count: CHARTS.length },
      );
      // The first run warms Chromium's caches up; it is not counted.
      if (run > 0) {
        loads.push(loaded);
        renders.push(rendered);
      }
      await page.close();
    }
    report("dashboard_render_12_charts_year", renders);
    report("dashboard_load_12_charts_year", loads);
  } finally {
    await browser.close();
    if (server.exitCode === null) {
      const exited = new Promise((r) => server.once("exit", r));
      server.kill("SIGTERM");
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
