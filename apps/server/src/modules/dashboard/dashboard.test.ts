import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  API,
  type ChartData,
  ChartDataQuerySchema,
  type ChartFlows,
  type DashboardLayout,
  type ManualValue,
  type StatsTable,
} from "@tonus/contract";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { deleteUserData, exportUserData, importUserData, registryEnv } from "../../lib/registry.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TestClient } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { recordValues } from "../dashboard-values/dashboard-values.service.ts";
import { addDays } from "./dashboard.buckets.ts";
import { getLayout } from "./dashboard.layout.ts";
import { getChartData, localDay } from "./dashboard.service.ts";

const RUNS = process.env.TONUS_HEAVY ? 10_000 : 150;
const RR = readFileSync(
  path.resolve(
    import.meta.dirname,
    "../../../../../packages/hrv/test/fixtures/rr/ltdb_14157_clean_5min_rr.csv",
  ),
  "utf8",
)
  .split("\n")
  .slice(1)
  .map((line) => Number(line.split(",")[0]))
  .filter((v) => Number.isFinite(v) && v > 0);

const qs = (q: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString();
const chart = (q: Record<string, string | number>) => `${API.chartData}?${qs(q)}`;
const today = localDay("UTC");

describe.each(BACKENDS)("charts dashboard on %s", (backend) => {
  let app: App;
  let customer: TestUser;
  let client: TestClient;

  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    customer = await createTestUser(app.ctx.database, { isCustomerOverride: true, timezone: "UTC" });
    client = customer.client(app);
  });

  const manual = (metric: string, value: number, unit: string, at = `${today}T08:00:00Z`, as = client) =>
    as.post(API.chartValues, { client_id: randomUUID(), metric, value, unit, at });

  it("shows visitors and free users the demo dashboard, labelled, and refuses their edits", async () => {
    const visitor = new TestClient(app);
    const flows = (await visitor.get(API.chartFlows)).json() as ChartFlows;
    expect(flows.demo).toBe(true);
    expect(flows.last_data_day).toBe(today);
    const has = (id: string) => flows.items.find((i) => i.id === id)?.has_data;
    for (const id of ["stress", "rmssd", "sleep", "steps", "calories", "blood_pressure"])
      expect(has(id), id).toBe(true);
    expect(has("weight")).toBe(false);
    expect(flows.tags.length).toBeGreaterThan(3);
    const stress = (
      await visitor.get(chart({ item: "stress", from: addDays(today, -150), to: today, period: "week" }))
    ).json() as ChartData;
    expect(stress.demo).toBe(true);
    const points = stress.series[0]?.points ?? [];
    expect(points.length).toBeGreaterThan(5);
    for (const p of points) expect(p.value).toBeGreaterThanOrEqual(0);
    const layout = (await visitor.get(API.chartLayout)).json() as DashboardLayout;
    expect(layout.demo).toBe(true);

    const free = (await createTestUser(app.ctx.database)).client(app);
    expect(((await free.get(API.chartFlows)).json() as ChartFlows).demo).toBe(true);
    const refused = await free.post(API.chartLayoutCharts, { item: "weight" });
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toMatchObject({ code: "pro_required" });
    expect((await manual("weight", 80, "kg", undefined, free)).statusCode).toBe(402);
    expect((await visitor.post(API.chartLayoutCharts, { item: "weight" })).statusCode).toBe(403);
  });

  it("stores typed values in SI and shows them in the person's units, round trip (Z2)", async () => {
    const res = await manual("weight", 176.37, "lb");
    expect(res.statusCode, res.body).toBe(201);
    const stored = res.json() as ManualValue;
    expect(stored.unit).toBe("kg");
    expect(stored.value).toBeCloseTo(80, 2);
    const q = { item: "weight", from: addDays(today, -6), to: today, period: "day" };
    const metric = (await client.get(chart(q))).json() as ChartData;
    expect(metric.series[0]?.points).toEqual([
      expect.objectContaining({ t: today, value: expect.closeTo(80, 2), days: 1 }),
    ]);
    const put = await client.put(API.profile, { units: "imperial" });
    expect(put.statusCode, put.body).toBe(200);
    const imperial = (await client.get(chart(q))).json() as ChartData;
    expect(imperial.series[0]?.unit).toBe("lb");
    expect(imperial.series[0]?.points[0]?.value).toBeCloseTo(176.37, 2);
    // A retry with the same client id stores nothing new.
    const body = {
      client_id: randomUUID(),
      metric: "water",
      value: 0.5,
      unit: "l",
      at: `${today}T09:00:00Z`,
    };
    expect((await client.post(API.chartValues, body)).statusCode).toBe(201);
    expect((await client.post(API.chartValues, body)).statusCode).toBe(200);
    const list = (await client.get(`${API.chartValues}?metric=water`)).json() as { count: number };
    expect(list.count).toBe(1);
    fc.assert(
      fc.property(fc.double({ min: 1, max: 500, noNaN: true }), (kg) => {
        const lb = kg / 0.45359237;
        expect(Math.abs(lb * 0.45359237 - kg)).toBeLessThan(0.01);
      }),
    );
  });

  it("refuses implausible, future and non-manual entries with a 400 and stores nothing", async () => {
    const cases: [string, number, string, string?][] = [
      ["weight", 0.1, "kg"],
      ["weight", 80, "l"],
      ["steps", -5, "steps"],
      ["stress", 50, "score"],
      ["sleep", 30, "h"],
      ["weight", 80, "kg", new Date(Date.now() + 3 * 86_400_000).toISOString()],
    ];
    for (const [metric, value, unit, at] of cases) {
      const res = await manual(metric, value, unit, at);
      expect(res.statusCode, `${metric} ${value} ${unit}`).toBe(400);
      expect(res.json()).toMatchObject({ code: "validation_failed" });
    }
    expect(((await client.get(API.chartValues)).json() as { count: number }).count).toBe(0);
  });

  it("answers the oldest and newest local day with data (the date picker's all time)", async () => {
    const empty = (await client.get(API.chartFlows)).json() as ChartFlows;
    expect([empty.first_data_day, empty.last_data_day]).toEqual([null, null]);
    const old = addDays(today, -400);
    await recordValues(app.ctx.database.db, customer.userId, [
      { metric: "steps", at: new Date(`${old}T10:00:00Z`), value: 4000, source: "garmin", clientId: "s1" },
      {
        metric: "weight",
        at: new Date(`${addDays(today, -3)}T07:00:00Z`),
        value: 80,
        source: "manual",
        clientId: "w1",
      },
    ]);
    const flows = (await client.get(API.chartFlows)).json() as ChartFlows;
    expect([flows.first_data_day, flows.last_data_day]).toEqual([old, addDays(today, -3)]);
    const demo = (await new TestClient(app).get(API.chartFlows)).json() as ChartFlows;
    expect(demo.first_data_day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((demo.first_data_day as string) < (demo.last_data_day as string)).toBe(true);
  });

  it("shows one source per day by the default order, and the person's own order when set", async () => {
    const day = addDays(today, -1);
    await recordValues(app.ctx.database.db, customer.userId, [
      {
        metric: "steps",
        at: new Date(`${day}T10:00:00Z`),
        value: 5000,
        source: "apple_health",
        clientId: "a1",
      },
      { metric: "steps", at: new Date(`${day}T11:00:00Z`), value: 7000, source: "garmin", clientId: "g1" },
    ]);
    const q = { item: "steps", from: day, to: day, period: "day" };
    const value = async () => ((await client.get(chart(q))).json() as ChartData).series[0]?.points[0]?.value;
    expect(await value()).toBe(7000);
    const set = await client.put(API.chartLayoutPriority, { metric: "steps", sources: ["apple_health"] });
    expect(set.statusCode, set.body).toBe(200);
    expect(await value()).toBe(5000);
    const flows = (await client.get(API.chartFlows)).json() as ChartFlows;
    const steps = flows.items.find((i) => i.id === "steps");
    expect(steps?.sources.map((s) => s.source.key)).toEqual(["apple_health", "garmin"]);
    // The web reads a source's id as the second number of its url.
    const url = steps?.sources[0]?.source.url as string;
    const id = url.match(/\d+/g)?.[1] as string;
    const detail = await client.get(API.chartSource.replace(":sourceId", id));
    expect(detail.json()).toMatchObject({ key: "apple_health", items: ["steps"], last_data_day: day });
  });

  it("answers weeks by the week start, months, and long ranges in chunks that join up", async () => {
    const start = "2021-11-20";
    const values = Array.from({ length: 5 * 365 }, (_, i) => ({
      metric: "weight",
      at: new Date(`${addDays(start, i)}T07:00:00Z`),
      value: 70 + (i % 10),
      source: "withings",
      clientId: `w${i}`,
    }));
    await recordValues(app.ctx.database.db, customer.userId, values);
    const to = addDays(start, 5 * 365 - 1);
    const first = (
      await client.get(chart({ item: "weight", from: start, to, period: "day" }))
    ).json() as ChartData;
    expect(first.chunks).toBe(Math.ceil((5 * 365) / 400));
    let total = 0;
    for (let i = 0; i < first.chunks; i++) {
      const c = (
        await client.get(chart({ item: "weight", from: start, to, period: "day", chunk: i }))
      ).json() as ChartData;
      total += c.series[0]?.points.length ?? 0;
    }
    expect(total).toBe(5 * 365);
    const week = (w: number) =>
      chart({ item: "weight", from: "2026-11-01", to: "2026-11-14", period: "week", week_start: w });
    const sunday = (await client.get(week(0))).json() as ChartData;
    const monday = (await client.get(week(1))).json() as ChartData;
    expect(sunday.series[0]?.points.map((p) => p.t)).toEqual(["2026-11-01", "2026-11-08"]);
    expect(monday.series[0]?.points.map((p) => p.t)).toEqual(["2026-10-26", "2026-11-02", "2026-11-09"]);
    const month = (
      await client.get(chart({ item: "weight", from: "2026-01-01", to: "2026-06-30", period: "month" }))
    ).json() as ChartData;
    expect(month.series[0]?.points.map((p) => p.t)).toEqual([
      "2026-01-01",
      "2026-02-01",
      "2026-03-01",
      "2026-04-01",
      "2026-05-01",
      "2026-06-01",
    ]);
    const bad = await client.get(chart({ item: "weight", from: to, to: start, period: "day" }));
    expect(bad.statusCode).toBe(400);
  });

  it("adds, moves and removes charts, remembered per person, and limits the table to 8 parameters", async () => {
    const layout = async () => (await client.get(API.chartLayout)).json() as DashboardLayout;
    const initial = await layout();
    expect(initial.charts.map((c) => c.item).slice(0, 3)).toEqual(["stress", "energy", "productivity"]);
    expect((await client.post(API.chartLayoutCharts, { item: "water" })).statusCode).toBe(201);
    expect((await client.post(API.chartLayoutCharts, { item: "water" })).statusCode).toBe(409);
    const added = await layout();
    const water = added.charts.find((c) => c.item === "water");
    expect(water?.position).toBe(added.charts.length - 1);
    const moved = await client.post(API.chartLayoutMove.replace(":id", water?.id as string), {
      direction: "up",
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const after = (await layout()).charts.map((c) => c.item);
    expect(after.indexOf("water")).toBe(after.length - 2);
    const first = (await layout()).charts[0];
    await client.post(API.chartLayoutMove.replace(":id", first?.id as string), { direction: "up" });
    expect((await layout()).charts[0]?.item).toBe(first?.item);
    expect((await client.delete(API.chartLayoutChart.replace(":id", first?.id as string))).statusCode).toBe(
      200,
    );
    expect((await layout()).charts.some((c) => c.item === first?.item)).toBe(false);

    const nine = [
      "stress",
      "energy",
      "productivity",
      "heart_rate",
      "rmssd",
      "stdrr",
      "pnn50",
      "sleep",
      "steps",
    ];
    const refused = await client.put(API.chartLayoutTable, { parameters: nine });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: "table_limit",
      error: "you can't add more than 8 parameters to the table",
    });
    expect((await client.put(API.chartLayoutTable, { parameters: nine.slice(0, 8) })).statusCode).toBe(200);
    expect((await layout()).table_parameters).toEqual(nine.slice(0, 8));

    // Another person's chart ids answer 404 and change nothing.
    const other = (await createTestUser(app.ctx.database, { isCustomerOverride: true })).client(app);
    expect((await other.delete(API.chartLayoutChart.replace(":id", water?.id as string))).statusCode).toBe(
      404,
    );
    expect((await layout()).charts.some((c) => c.id === water?.id)).toBe(true);
  });

  it("fills the stats table per period, newest first, and exports it as spreadsheet-safe CSV", async () => {
    await client.put(API.chartLayoutTable, { parameters: ["weight", "steps"] });
    for (let i = 0; i < 12; i++) {
      await manual("weight", 80 - i * 0.1, "kg", `${addDays(today, -i)}T08:00:00Z`);
      await manual("steps", 1000 * (i + 1), "steps", `${addDays(today, -i)}T20:00:00Z`);
    }
    const q = { from: addDays(today, -29), to: today, period: "day" };
    const table = (
      await client.get(`${API.chartTable}?${qs({ ...q, page: 2, page_size: 5 })}`)
    ).json() as StatsTable;
    expect(table).toMatchObject({ count: 12, pages: 3, page: 2 });
    expect(table.results[0]).toEqual({ t: addDays(today, -5), values: { weight: 79.5, steps: 6000 } });
    const csv = await client.get(`${API.chartTableExport}?${qs({ ...q, lang: "ru" })}`);
    expect(csv.headers["content-type"]).toContain("text/csv");
    const lines = csv.body.split("\r\n");
    expect(lines[0]).toBe('\uFEFFНачало периода,"Вес, кг","Шаги, шагов"');
    expect(lines[1]).toBe(`${today},80,1000`);
  });

  it("filters health data by measurement tags", async () => {
    const upload = (tags: string[], startedAt: string) =>
      client.post(API.measurements, {
        client_id: randomUUID(),
        rr_ms: RR,
        source: "strap",
        started_at: startedAt,
        time_zone: "UTC",
        tags,
      });
    expect((await upload(["coffee"], `${addDays(today, -2)}T08:00:00Z`)).statusCode).toBe(201);
    expect((await upload(["sport"], `${addDays(today, -1)}T08:00:00Z`)).statusCode).toBe(201);
    const q = { item: "rmssd", from: addDays(today, -6), to: today, period: "day" };
    const all = (await client.get(chart(q))).json() as ChartData;
    expect(all.series[0]?.points).toHaveLength(2);
    const coffee = (await client.get(chart({ ...q, tags: "coffee" }))).json() as ChartData;
    expect(coffee.series[0]?.points.map((p) => p.t)).toEqual([addDays(today, -2)]);
    expect(coffee.series[0]?.points[0]?.value).toBeCloseTo(all.series[0]?.points[0]?.value as number, 6);
    // Tags never filter metrics that do not come from measurements.
    await manual("weight", 80, "kg");
    const weight = (await client.get(chart({ ...q, item: "weight", tags: "coffee" }))).json() as ChartData;
    expect(weight.series[0]?.points).toHaveLength(1);
    const flows = (await client.get(API.chartFlows)).json() as ChartFlows;
    expect(flows.tags.map((t) => t.tag).sort()).toEqual(["coffee", "sport"]);
  });

  it("downsamples a day of 5-second heart rate keeping its peak, and charts blood pressure from the log", async () => {
    const day = addDays(today, -1);
    const base = Date.parse(`${day}T00:00:00Z`);
    const hr = Array.from({ length: 17_280 }, (_, i) => ({
      metric: "heart_rate",
      at: new Date(base + i * 5000),
      value: i === 9999 ? 182 : 60 + (i % 7),
      source: "garmin",
      clientId: `hr${i}`,
    }));
    await recordValues(app.ctx.database.db, customer.userId, hr);
    const res = await client.get(
      `${API.chartIntraday}?${qs({ metric: "heart_rate", from: day, to: day, points: 400 })}`,
    );
    const body = res.json() as { samples: number; points: { at: string; value: number }[] };
    expect(body.samples).toBe(17_280);
    expect(body.points.length).toBeLessThanOrEqual(400);
    expect(Math.max(...body.points.map((p) => p.value))).toBe(182);
    expect(body.points.find((p) => p.value === 182)?.at).toBe(new Date(base + 9999 * 5000).toISOString());

    const reading = await client.post(API.bpReadings, {
      client_id: randomUUID(),
      systolic: 130,
      diastolic: 85,
      measured_at: `${day}T09:00:00Z`,
      time_zone: "UTC",
    });
    const q = chart({ item: "blood_pressure", from: day, to: day, period: "day" });
    const bp = (await client.get(q)).json() as ChartData;
    expect(bp.series.map((s) => [s.metric, s.points[0]?.value])).toEqual([
      ["bp_systolic", 130],
      ["bp_diastolic", 85],
    ]);
    await client.delete(API.bpReading.replace(":id", reading.json().id));
    expect(((await client.get(q)).json() as ChartData).series[0]?.points).toEqual([]);
  });

  it("keeps the dashboard through an archive export and import into a new account", async () => {
    await manual("weight", 81, "kg");
    await client.post(API.chartLayoutCharts, { item: "water" });
    await client.put(API.chartLayoutTable, { parameters: ["weight"] });
    const env = registryEnv(app.ctx);
    const archive = await exportUserData(env, customer.userId);
    await deleteUserData(env, customer.userId);
    await importUserData(env, archive);
    // The customer mark is not part of an archive: read as the customer directly.
    const viewer = {
      userId: customer.userId,
      demo: false,
      units: "metric",
      energy: "kcal",
      tz: "UTC",
      priority: {},
    } as const;
    const layout = await getLayout(app.ctx, { ...viewer, priority: {} });
    expect(layout.charts.some((c) => c.item === "water")).toBe(true);
    expect(layout.table_parameters).toEqual(["weight"]);
    const w = await getChartData(
      app.ctx,
      { ...viewer, priority: {} },
      {
        item: "weight",
        from: today,
        to: today,
        period: "day",
        week_start: 0,
        chunk: 0,
      },
    );
    expect(w.series[0]?.points[0]?.value).toBe(81);
  });

  it("answers malformed chart queries with a 4xx in the error shape, never a 5xx (Z)", async () => {
    const keys = Object.keys(ChartDataQuerySchema.shape);
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom(
        "2026-02-30",
        "9999-12-31",
        "0000-01-01",
        "-1",
        "1e999",
        "NaN",
        "week",
        "stress",
        "%00",
      ),
      fc.integer().map(String),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...keys, "x"), value), async (q) => {
        for (const url of [API.chartData, API.chartTable, API.chartTableExport, API.chartIntraday]) {
          const res = await client.get(`${url}?${qs(q)}`);
          expect(res.statusCode, `${url}?${qs(q)}: ${res.body}`).toBeLessThan(500);
          if (res.statusCode >= 400) expect(typeof res.json().code).toBe("string");
        }
      }),
      { numRuns: RUNS },
    );
  }, 180_000);
});
