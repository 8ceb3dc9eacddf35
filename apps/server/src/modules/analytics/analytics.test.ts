import { randomUUID } from "node:crypto";
import { OAUTH_API } from "@tonus/contract";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { analyticsEvents } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { cleanProps, localHour, timeOfDayBucket } from "./analytics.service.ts";

const TOKEN = "analytics-token-for-tests";

describe("time-of-day buckets (spec §7, half-open hours)", () => {
  it.each([
    [0, "evening"],
    [1, "evening"],
    [2, "evening"],
    [3, "night"],
    [4, "night"],
    [5, "morning"],
    [6, "morning"],
    [7, "morning"],
    [8, "morning"],
    [9, "morning"],
    [10, "morning"],
    [11, "morning"],
    [12, "day"],
    [13, "day"],
    [14, "day"],
    [15, "day"],
    [16, "day"],
    [17, "day"],
    [18, "day"],
    [19, "day"],
    [20, "evening"],
    [21, "evening"],
    [22, "evening"],
    [23, "evening"],
  ])("hour %i is %s", (hour, bucket) => {
    expect(timeOfDayBucket(hour)).toBe(bucket);
  });

  it("reads the hour in the person's time zone, UTC for an unknown zone", () => {
    const at = new Date("2026-11-23T02:30:00Z");
    expect(localHour(at, "UTC")).toBe(2);
    expect(localHour(at, "Europe/Moscow")).toBe(5);
    expect(localHour(at, "America/New_York")).toBe(21);
    expect(localHour(at, "Not/AZone")).toBe(2);
    expect(localHour(at, null)).toBe(2);
  });

  it("keeps only allow-listed keys with string or boolean values, never numbers", () => {
    expect(
      cleanProps({
        path: "/dashboard?token=abc#x",
        stress: 80,
        energy: "55",
        locale: "ru",
        plan: 12,
        screen: "42",
        method: true,
      }),
    ).toEqual({ path: "/dashboard", locale: "ru", method: true });
  });
});

describe.each(BACKENDS)("analytics ingest on %s", (backend) => {
  let app: App;
  let offApp: App;
  beforeAll(async () => {
    const database = await getTestDatabase(backend);
    app = await buildTestApp(database, { ANALYTICS_ENABLED: "1", ANALYTICS_TOKEN: TOKEN });
    offApp = await buildTestApp(database, { ANALYTICS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await offApp.close();
    await app.close();
  });
  beforeEach(async () => resetDatabase(app.ctx.database));

  const event = (over: Record<string, unknown> = {}) => ({
    event_id: randomUUID(),
    event_name: "page_view",
    user_id: "3f0c7c1e-8d1f-4a51-9a43-8d3c1d1b2a10",
    device_id: "device-1",
    date_created: new Date().toISOString(),
    timezone: "Europe/Moscow",
    event_props: { path: "/dashboard", stress: 71.4213 },
    ...over,
  });
  const send = (body: unknown, headers: Record<string, string> = { "x-analytics-token": TOKEN }, on = app) =>
    on.inject({
      method: "POST",
      url: OAUTH_API.analyticsSend,
      headers: { "content-type": "application/json", ...headers },
      payload: JSON.stringify(body),
    });

  it("stores an event once by event_id, pseudonymised, with its bucket and without health values", async () => {
    const e = event({ date_created: "2026-11-23T02:30:00.000Z" });
    // A date far from now is dropped, so send the fixed hour relative to now instead.
    const now = new Date();
    now.setUTCHours(2, 30, 0, 0);
    if (now.getTime() > Date.now()) now.setUTCDate(now.getUTCDate() - 1);
    e.date_created = now.toISOString();
    const first = await send(e);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ stored: 1, duplicates: 0, dropped: 0 });
    expect((await send(e)).json()).toEqual({ stored: 0, duplicates: 1, dropped: 0 });
    const rows = await app.ctx.database.db.select().from(analyticsEvents);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.timeOfDay).toBe("morning");
    expect(rows[0]?.props).toEqual({ path: "/dashboard" });
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(e.user_id);
    expect(dump).not.toContain("device-1");
    expect(dump).not.toContain("71.4213");
  });

  it("drops events with names off the list and dates far from now; takes batches", async () => {
    const res = await send({
      events: [
        event(),
        event({ event_name: "measurement_result_stress_80" }),
        event({ date_created: "2020-01-01T00:00:00Z" }),
        event({ date_created: new Date(Date.now() + 3 * 86_400_000).toISOString() }),
      ],
    });
    expect(res.json()).toEqual({ stored: 1, duplicates: 0, dropped: 3 });
  });

  it("honours Global Privacy Control and Do Not Track", async () => {
    const optOuts: Record<string, string>[] = [{ "sec-gpc": "1" }, { dnt: "1" }];
    for (const h of optOuts) {
      const res = await send(event(), { "x-analytics-token": TOKEN, ...h });
      expect(res.json()).toMatchObject({ stored: 0 });
    }
    expect(await app.ctx.database.db.select().from(analyticsEvents)).toEqual([]);
  });

  it("refuses a wrong or missing token, and everything when analytics is off", async () => {
    expect((await send(event(), {})).statusCode).toBe(403);
    expect((await send(event(), { "x-analytics-token": "nope" })).statusCode).toBe(403);
    const off = await send(event(), { "x-analytics-token": TOKEN }, offApp);
    expect(off.statusCode).toBe(403);
    expect(off.json().code).toBe("forbidden");
    expect(await app.ctx.database.db.select().from(analyticsEvents)).toEqual([]);
  });

  it("answers hostile bodies with a 4xx in the error shape, never a 5xx (Z)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc.record({ event_id: fc.string(), event_name: fc.string(), date_created: fc.string() }),
          fc.record({ events: fc.array(fc.jsonValue(), { maxLength: 150 }) }),
          fc.constant({ ...event(), event_props: { ["x".repeat(70)]: 1 } }),
          fc.constant({ ...event(), timezone: "x".repeat(100) }),
        ),
        async (body) => {
          const res = await send(body);
          expect(res.statusCode).toBeLessThan(500);
          if (res.statusCode >= 400) expect(typeof res.json().code).toBe("string");
        },
      ),
      { numRuns: 150 },
    );
  });

  it("shows operators daily active users and the sign-up → measurement → upgrade funnel", async () => {
    const now = Date.now();
    const at = (hoursAgo: number) => new Date(now - hoursAgo * 3_600_000).toISOString();
    await send({
      events: [
        event({ user_id: "a", event_name: "sign_up", date_created: at(30) }),
        event({ user_id: "a", event_name: "measurement_completed", date_created: at(29) }),
        event({ user_id: "a", event_name: "upgrade_completed", date_created: at(1) }),
        event({ user_id: "b", event_name: "sign_up", date_created: at(2) }),
        event({ user_id: "b", event_name: "measurement_completed", date_created: at(1) }),
        event({ user_id: "c", event_name: "sign_up", date_created: at(1) }),
        event({ user_id: "d", event_name: "upgrade_completed", date_created: at(1) }),
      ],
    });
    const operator = await createTestUser(app.ctx.database, { role: "operator" });
    const res = await operator.client(app).get(OAUTH_API.analyticsSummary);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.funnel).toEqual([
      { step: "sign_up", users: 3 },
      { step: "measurement_completed", users: 2 },
      { step: "upgrade_completed", users: 1 },
    ]);
    const total = body.daily_active_users.reduce((n: number, d: { users: number }) => n + d.users, 0);
    expect(total).toBeGreaterThanOrEqual(4);
    const person = await createTestUser(app.ctx.database);
    expect((await person.client(app).get(OAUTH_API.analyticsSummary)).statusCode).toBe(403);
    expect((await app.inject({ method: "GET", url: OAUTH_API.analyticsSummary })).statusCode).toBe(403);
  });

  it("deletes a person's events with the account data", async () => {
    const user = await createTestUser(app.ctx.database);
    await send(event({ user_id: user.userId }));
    await send(event());
    const { db } = app.ctx.database;
    await db.transaction(async (tx) => {
      const section = app.ctx.services.registry.sections.find((s) => s.name === "analytics");
      await section?.deleteExtra?.({
        tx: tx as never,
        userId: user.userId,
        pseudonym: (id) => id,
        filesDir: "/tmp",
        afterCommit: () => {},
        onRollback: () => {},
      });
    });
    expect(await db.select().from(analyticsEvents)).toHaveLength(1);
  });
});
