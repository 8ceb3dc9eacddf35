import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  API,
  BP_LOG_SHARE_TARGET,
  type ChartFlows,
  type DashboardLayout,
  type ManualValue,
  type ShareLinkCreated,
} from "@tonus/contract";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { tableChecksums } from "../../test/checksums.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TestClient } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { addDays } from "./dashboard.buckets.ts";
import { localDay } from "./dashboard.service.ts";

const today = localDay("UTC");
const qs = (q: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString();

/** Every read the dashboard and the log offer a signed-in person, with plausible queries. */
function readUrls(): string[] {
  const range = { from: addDays(today, -29), to: today, period: "day" };
  return [
    API.chartFlows,
    API.chartLayout,
    `${API.chartData}?${qs({ item: "steps", ...range })}`,
    `${API.chartData}?${qs({ item: "blood_pressure", ...range, period: "week" })}`,
    `${API.chartIntraday}?${qs({ metric: "heart_rate", from: addDays(today, -1), to: today })}`,
    `${API.chartTable}?${qs(range)}`,
    `${API.chartTableExport}?${qs(range)}`,
    API.chartValues,
    API.bpReadings,
    `${API.bpAverages}?${qs({ ...range, period: "week" })}`,
  ];
}

describe.each(BACKENDS)("dashboard access on %s", (backend) => {
  let app: App;
  let a: TestUser;
  let b: TestUser;
  let clientA: TestClient;
  let clientB: TestClient;

  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    a = await createTestUser(app.ctx.database, { isCustomerOverride: true, timezone: "Europe/Moscow" });
    b = await createTestUser(app.ctx.database, { isCustomerOverride: true, timezone: "Asia/Tokyo" });
    clientA = a.client(app);
    clientB = b.client(app);
  });

  const query = async <T>(text: string) =>
    (await app.ctx.database.query<T & Record<string, unknown>>(text)).rows;

  it("reads without writing, for a customer whose summaries were never built and one with data (S3)", async () => {
    // A customer who never wrote anything has no settings row: reading must not create one.
    expect(await query(`select 1 from dashboard_settings where user_id = '${a.userId}'`)).toEqual([]);
    let before = await tableChecksums(app.ctx.database);
    for (const url of readUrls()) {
      const res = await clientA.get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    }
    expect(await tableChecksums(app.ctx.database)).toEqual(before);

    // With values, charts, priorities and readings in place, reads still change nothing.
    await clientB.post(API.chartValues, {
      client_id: randomUUID(),
      metric: "steps",
      value: 4000,
      unit: "steps",
      at: `${today}T05:00:00Z`,
    });
    await clientB.post(API.chartLayoutCharts, { item: "water" });
    await clientB.put(API.chartLayoutPriority, { metric: "steps", sources: ["garmin"] });
    await clientB.post(API.bpReadings, {
      systolic: 132,
      diastolic: 84,
      pulse: 70,
      measured_at: `${today}T01:00:00Z`,
      time_zone: "Asia/Tokyo",
    });
    // The reading's event is delivered by a background job: let it finish before comparing.
    await app.ctx.services.events.dispatchPending();
    before = await tableChecksums(app.ctx.database);
    for (const url of readUrls()) {
      const res = await clientB.get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    }
    const flows = (await clientB.get(API.chartFlows)).json() as ChartFlows;
    const source = flows.items.find((i) => i.id === "steps")?.sources[0]?.source.url.match(/\d+/g)?.[1];
    expect((await clientB.get(API.chartSource.replace(":sourceId", source as string))).statusCode).toBe(200);
    expect(await tableChecksums(app.ctx.database)).toEqual(before);
  });

  it("answers another person's ids with the same 404 as unknown ids and changes nothing of theirs (A1)", async () => {
    // B's objects: a stored layout (a chart), a typed-in value, a priority, a reading, a share link.
    const added = await clientB.post(API.chartLayoutCharts, { item: "water" });
    expect(added.statusCode, added.body).toBe(201);
    const chartId = (added.json() as { id: string }).id;
    const value = (
      await clientB.post(API.chartValues, {
        client_id: randomUUID(),
        metric: "weight",
        value: 70,
        unit: "kg",
        at: `${today}T06:00:00Z`,
      })
    ).json() as ManualValue;
    await clientB.put(API.chartLayoutPriority, { metric: "weight", sources: ["withings"] });
    const reading = (
      await clientB.post(API.bpReadings, {
        systolic: 140,
        diastolic: 90,
        pulse: 75,
        measured_at: `${today}T02:00:00Z`,
        time_zone: "Asia/Tokyo",
      })
    ).json() as { id: string };
    const link = (
      await clientB.post(API.shareLinks, { kind: "bp_log", target_id: BP_LOG_SHARE_TARGET })
    ).json() as ShareLinkCreated;
    const flows = (await clientB.get(API.chartFlows)).json() as ChartFlows;
    const manualSourceId = flows.items
      .find((i) => i.id === "weight")
      ?.sources[0]?.source.url.match(/\d+/g)?.[1] as string;
    // A has a chart of their own, so a chart id of B's is not simply "no layout".
    expect((await clientA.post(API.chartLayoutCharts, { item: "height" })).statusCode).toBe(201);

    const ownRows = async () =>
      Promise.all(
        ["dashboard_charts", "dashboard_values", "dashboard_daily", "dashboard_settings", "bp_readings"].map(
          (table) =>
            app.ctx.database.db.execute(
              sql`select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h
                  from (select * from ${sql.identifier(table)} where user_id = ${b.userId}) t`,
            ),
        ),
      );
    const before = JSON.stringify(await ownRows());
    const unknownUuid = randomUUID();
    const id = (url: string, value: string) => url.replace(/:\w+/, value);
    // Each case: B's id, then an id nobody has; both must answer alike.
    const cases: {
      method: "GET" | "POST" | "PATCH" | "DELETE";
      url: string;
      unknown: string;
      body?: object;
    }[] = [
      {
        method: "DELETE",
        url: id(API.chartLayoutChart, chartId),
        unknown: id(API.chartLayoutChart, unknownUuid),
      },
      {
        method: "POST",
        url: id(API.chartLayoutMove, chartId),
        unknown: id(API.chartLayoutMove, unknownUuid),
        body: { direction: "up" },
      },
      {
        method: "POST",
        url: id(API.chartLayoutMove, "default-water"),
        unknown: id(API.chartLayoutMove, "default-nothing"),
        body: { direction: "down" },
      },
      { method: "DELETE", url: id(API.chartValue, value.id), unknown: id(API.chartValue, "999999999") },
      {
        method: "GET",
        url: id(API.chartSource, manualSourceId),
        unknown: id(API.chartSource, "123456789"),
      },
      { method: "GET", url: id(API.bpReading, reading.id), unknown: id(API.bpReading, unknownUuid) },
      {
        method: "PATCH",
        url: id(API.bpReading, reading.id),
        unknown: id(API.bpReading, unknownUuid),
        body: { systolic: 200 },
      },
      { method: "DELETE", url: id(API.bpReading, reading.id), unknown: id(API.bpReading, unknownUuid) },
      { method: "DELETE", url: id(API.shareLink, link.id), unknown: id(API.shareLink, unknownUuid) },
    ];
    for (const c of cases) {
      const send = (url: string) => clientA.request(c.method, url, c.body ? { body: c.body } : {});
      const theirs = await send(c.url);
      const nobodys = await send(c.unknown);
      expect(theirs.statusCode, `${c.method} ${c.url}: ${theirs.body}`).toBe(404);
      const { requestId: _a, ...theirBody } = theirs.json();
      const { requestId: _b, ...nobodysBody } = nobodys.json();
      expect(theirBody, c.url).toEqual(nobodysBody);
    }
    // Anonymous callers, the static app token and B's own share token reach none of these either.
    const others: Record<string, string>[] = [
      {},
      { authorization: `Token ${app.ctx.config.APP_TOKEN}` },
      { authorization: `Token ${link.token}` },
    ];
    for (const headers of others)
      for (const c of cases) {
        const res = await app.inject({
          method: c.method,
          url: c.url,
          headers: { ...headers, "content-type": "application/json" },
          ...(c.method === "GET" ? {} : { payload: JSON.stringify(c.body ?? {}) }),
        });
        expect(res.statusCode, `${c.method} ${c.url} ${JSON.stringify(headers)}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode).toBeLessThan(500);
        // The chart source route is public and answers the demo's catalogue, never B's.
        if (res.statusCode === 200) throw new Error(`${c.method} ${c.url} answered 200`);
      }
    expect(JSON.stringify(await ownRows())).toBe(before);
    // B still sees everything as it was.
    const layout = (await clientB.get(API.chartLayout)).json() as DashboardLayout;
    expect(layout.charts.map((c) => c.id)).toContain(chartId);
    expect(layout.source_priority).toEqual({ weight: ["withings"] });
    expect((await clientB.get(id(API.bpReading, reading.id))).json()).toMatchObject({ systolic: 140 });
  });

  it("builds summaries and pulse values for data stored before they existed (migration 0015)", async () => {
    const migration = readFileSync(
      path.resolve(import.meta.dirname, "../../db/migrations/0015_units_pulse_summaries.sql"),
      "utf8",
    );
    const statements = migration
      .split("--> statement-breakpoint")
      .map((s) => s.trim())
      .filter((s) => s && !s.startsWith("ALTER TABLE"));
    // Legacy state: raw values without summaries or a settings row, and a reading with no pulse value.
    await app.ctx.database.db.execute(sql`
      insert into dashboard_values (user_id, metric, at, value, source, client_id) values
        (${a.userId}, 'steps', '2026-03-01T22:30:00Z', 1000, 'garmin', 's1'),
        (${a.userId}, 'steps', '2026-03-01T10:00:00Z', 500, 'garmin', 's2')`);
    const reading = await clientB.post(API.bpReadings, {
      systolic: 125,
      diastolic: 80,
      pulse: 66,
      measured_at: "2026-03-01T23:00:00Z",
      time_zone: "Asia/Tokyo",
    });
    const readingId = (reading.json() as { id: string }).id;
    await app.ctx.database.db.execute(
      sql`delete from dashboard_values where user_id = ${b.userId} and metric = 'bp_pulse'`,
    );
    await app.ctx.database.db.execute(
      sql`delete from dashboard_daily where user_id = ${b.userId} and metric = 'bp_pulse'`,
    );
    for (const statement of statements) await app.ctx.database.query(statement);
    const daily = await query<{ user_id: string; metric: string; day: string; n: number; sum: number }>(
      `select user_id, metric, day::text as day, n, sum from dashboard_daily order by user_id, metric, day`,
    );
    const mine = (userId: string) =>
      daily.filter((r) => r.user_id === userId).map((r) => [r.metric, r.day, Number(r.n), Number(r.sum)]);
    // Moscow: 22:30Z on 1 March is 2 March; 10:00Z is 1 March.
    expect(mine(a.userId)).toEqual([
      ["steps", "2026-03-01", 1, 500],
      ["steps", "2026-03-02", 1, 1000],
    ]);
    // Tokyo: 23:00Z on 1 March is 2 March.
    expect(mine(b.userId)).toEqual([
      ["bp_diastolic", "2026-03-02", 1, 80],
      ["bp_pulse", "2026-03-02", 1, 66],
      ["bp_systolic", "2026-03-02", 1, 125],
    ]);
    const pulse = await query<{ client_id: string }>(
      `select client_id from dashboard_values where metric = 'bp_pulse'`,
    );
    expect(pulse.map((r) => r.client_id)).toEqual([`${readingId}:pulse`]);
    const zones = await query<{ user_id: string; summary_tz: string }>(
      `select user_id, summary_tz from dashboard_settings order by summary_tz`,
    );
    expect(zones.map((z) => [z.user_id, z.summary_tz])).toEqual([
      [b.userId, "Asia/Tokyo"],
      [a.userId, "Europe/Moscow"],
    ]);
    // Run twice, it changes nothing more. The reading's event reaches its subscribers first (their copy
    // in ifttt_events would otherwise land between the two checksums whenever a dispatch pass fell there).
    await app.ctx.services.events.dispatchPending();
    const once = await tableChecksums(app.ctx.database);
    for (const statement of statements) await app.ctx.database.query(statement);
    expect(await tableChecksums(app.ctx.database)).toEqual(once);
    // And a visitor's read of the demo still answers.
    expect((await new TestClient(app).get(API.chartFlows)).statusCode).toBe(200);
  });
});
