import { randomUUID } from "node:crypto";
import { AnalyticsSendRequestSchema, OAUTH_API } from "@tonus/contract";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { analyticsEvents } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import {
  describeBody,
  expectNoServerError,
  FUZZ_RUNS,
  FUZZ_TIMEOUT_MS,
  fuzzRequests,
  hostileValue,
} from "../../test/fuzz.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import {
  cleanProps,
  deleteExpiredEvents,
  ingestEvents,
  localHour,
  summarize,
  timeOfDayBucket,
} from "./analytics.service.ts";

const TOKEN = "analytics-token-for-tests";
const RETENTION_DAYS = 10;
const DAY_MS = 86_400_000;

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
    expect(cleanProps({ plan: "mon\u0000thly\n", source: "\u0000" })).toEqual({
      plan: "monthly",
      source: "",
    });
  });
});

describe.each(BACKENDS)("analytics ingest on %s", (backend) => {
  let app: App;
  let offApp: App;
  beforeAll(async () => {
    const database = await getTestDatabase(backend);
    // Both apps work jobs on this database, so both keep events for the same RETENTION_DAYS.
    const retention = { ANALYTICS_RETENTION_DAYS: String(RETENTION_DAYS) };
    app = await buildTestApp(database, { ANALYTICS_ENABLED: "1", ANALYTICS_TOKEN: TOKEN, ...retention });
    offApp = await buildTestApp(database, { ANALYTICS_TOKEN: TOKEN, ...retention });
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

  it(
    "answers hostile bodies from the contract's schema with < 500 in the error shape (Z1)",
    async () => {
      const bodies = fc.oneof(
        fuzzRequests(AnalyticsSendRequestSchema),
        // Valid events with hostile props, times and zones: stored or dropped, never a 5xx.
        fc
          .record({ key: fc.constantFrom("path", "plan", "source", "screen"), value: hostileValue })
          .map(({ key, value }) => ({
            payload: JSON.stringify(event({ event_props: { [key]: value }, timezone: "\u0000" })),
            contentType: "application/json",
          })),
      );
      await fc.assert(
        fc.asyncProperty(bodies, fc.boolean(), async (body, withToken) => {
          const res = await app.inject({
            method: "POST",
            url: OAUTH_API.analyticsSend,
            headers: {
              "content-type": body.contentType,
              ...(withToken ? { "x-analytics-token": TOKEN } : {}),
            },
            payload: body.payload,
          });
          expectNoServerError(res, describeBody(body));
        }),
        { numRuns: FUZZ_RUNS },
      );
      // Whatever was stored holds allow-listed keys with short strings or booleans only.
      for (const row of await app.ctx.database.db.select().from(analyticsEvents))
        for (const value of Object.values(row.props)) expect(["string", "boolean"]).toContain(typeof value);
    },
    FUZZ_TIMEOUT_MS,
  );

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

  it("counts the funnel in order per person: a step only after that person's earlier steps", async () => {
    const now = new Date("2027-03-10T12:00:00Z");
    const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY_MS).toISOString();
    const step = (user: string, name: string, daysAgo: number) =>
      event({ user_id: user, event_name: name, date_created: at(daysAgo), event_props: {} });
    const events = [
      // In order, with repeats: all three steps.
      step("inorder", "sign_up", 20),
      step("inorder", "measurement_completed", 19),
      step("inorder", "measurement_completed", 10),
      step("inorder", "upgrade_completed", 5),
      // Upgraded before the first measurement: stops at the measurement step.
      step("upgrade-first", "sign_up", 20),
      step("upgrade-first", "upgrade_completed", 15),
      step("upgrade-first", "measurement_completed", 10),
      // Measured before signing up (a demo, say), never after: signed up only.
      step("measured-before", "measurement_completed", 12),
      step("measured-before", "sign_up", 11),
      step("measured-before", "upgrade_completed", 3),
      // Signed up before the window: not in this funnel at all.
      step("old", "sign_up", 40),
      step("old", "measurement_completed", 20),
      step("old", "upgrade_completed", 10),
      // Same instant counts as "after".
      step("same-time", "sign_up", 8),
      step("same-time", "measurement_completed", 8),
      step("same-time", "upgrade_completed", 8),
    ];
    const { db } = app.ctx.database;
    const stored = await ingestEvents(db, app.ctx.config.secretKey, events, now);
    // Events older than 30 days when they arrive are dropped: store the old one as it arrived then.
    await ingestEvents(
      db,
      app.ctx.config.secretKey,
      events.slice(10, 11),
      new Date(now.getTime() - 39 * DAY_MS),
    );
    expect(stored.stored).toBe(events.length - 1);
    const summary = await summarize(db, 30, now);
    expect(summary.funnel).toEqual([
      { step: "sign_up", users: 4 },
      { step: "measurement_completed", users: 3 },
      { step: "upgrade_completed", users: 2 },
    ]);
    // Over 45 days the old sign-up counts too, with its later steps.
    expect((await summarize(db, 45, now)).funnel.map((f) => f.users)).toEqual([5, 4, 3]);
  });

  it("deletes events older than the retention, keeping those on the boundary and newer", async () => {
    const { db } = app.ctx.database;
    const now = new Date("2027-03-10T12:00:00Z");
    const row = (name: string, dateCreated: Date) => ({
      eventId: randomUUID(),
      name,
      props: {},
      dateCreated,
      timeOfDay: "day",
    });
    await db
      .insert(analyticsEvents)
      .values([
        row("much_older", new Date(now.getTime() - 400 * DAY_MS)),
        row("just_older", new Date(now.getTime() - 395 * DAY_MS - 1)),
        row("boundary", new Date(now.getTime() - 395 * DAY_MS)),
        row("newer", new Date(now.getTime() - 394 * DAY_MS)),
        row("today", now),
      ]);
    expect(await deleteExpiredEvents(db, 395, now)).toBe(2);
    const left = async () => (await db.select().from(analyticsEvents)).map((e) => e.name).sort();
    expect(await left()).toEqual(["boundary", "newer", "today"]);
    expect(await deleteExpiredEvents(db, 395, now)).toBe(0);
    // A day later the boundary event is past the retention.
    expect(await deleteExpiredEvents(db, 395, new Date(now.getTime() + DAY_MS))).toBe(1);
    expect(await left()).toEqual(["newer", "today"]);
  });

  it("runs the retention daily as a job with ANALYTICS_RETENTION_DAYS", async () => {
    const schedules = await app.ctx.services.jobs.boss.getSchedules();
    expect(schedules.find((s) => s.name === "analytics.retention")?.cron).toBe("17 3 * * *");
    const { db } = app.ctx.database;
    const now = Date.now();
    const row = (name: string, ageDays: number) => ({
      eventId: randomUUID(),
      name,
      props: {},
      dateCreated: new Date(now - ageDays * DAY_MS),
      timeOfDay: "day",
    });
    await db
      .insert(analyticsEvents)
      .values([row("expired", RETENTION_DAYS + 1), row("kept", RETENTION_DAYS - 1), row("fresh", 0)]);
    await app.ctx.services.jobs.send("analytics.retention", {});
    await expect
      .poll(async () => (await db.select().from(analyticsEvents)).map((e) => e.name).sort(), {
        timeout: 30_000,
        interval: 250,
      })
      .toEqual(["fresh", "kept"]);
  }, 60_000);

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
        removeFile: async () => {},
        afterCommit: () => {},
        onRollback: () => {},
      });
    });
    expect(await db.select().from(analyticsEvents)).toHaveLength(1);
  });
});
