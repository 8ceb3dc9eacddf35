import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { IFTTT_DEFAULT_LIMIT, IFTTT_MAX_LIMIT } from "@tonus/contract";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import {
  dashboardValues,
  iftttEvents,
  iftttRealtimePending,
  iftttTriggerIdentities,
  measurements,
  users,
} from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { createReading } from "../bp/bp.service.ts";
import { FIXTURE_EMAIL } from "./ifttt.routes.ts";
import { TRIGGERS } from "./ifttt.triggers.ts";

const KEY = "ifttt-service-key-for-tests-0123456789";
const V1 = "/ifttt/v1";

type Samples = {
  triggers: Record<string, Record<string, string>>;
  triggerFieldValidations: Record<string, Record<string, { valid: string; invalid: string }>>;
  actions: Record<string, Record<string, string>>;
  actionRecordSkipping: Record<string, Record<string, string>>;
};

/**
 * A local replica of IFTTT's endpoint tests (https://ifttt.com/docs/testing): status and test setup
 * behind the service key, user info, every trigger with its samples, field validation, options and
 * every action, with the protocol's shapes and status codes (RELIABILITY O6, O7).
 */
describe.each(BACKENDS)("IFTTT service API on %s", (backend) => {
  let app: App;
  let offApp: App;
  /** A stand-in for IFTTT's realtime endpoint: what it received. */
  const notified: { key: string | undefined; body: unknown }[] = [];
  /** Requests the stand-in answers 503 before it accepts again (IFTTT down for a moment). */
  let failures = 0;
  let refused = 0;
  const realtime = http.createServer((req, res) => {
    // A connection per request (see ifttt.realtime.test.ts): the retry comes after an idle pause.
    res.setHeader("connection", "close");
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (failures > 0) {
        failures--;
        refused++;
        res.statusCode = 503;
        return res.end("{}");
      }
      notified.push({ key: req.headers["ifttt-service-key"] as string | undefined, body: JSON.parse(body) });
      res.end("{}");
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => realtime.listen(0, "127.0.0.1", resolve));
    const { port } = realtime.address() as AddressInfo;
    const database = await getTestDatabase(backend);
    app = await buildTestApp(database, {
      IFTTT_SERVICE_KEY: KEY,
      IFTTT_TEST_MODE: "1",
      IFTTT_REALTIME_URL: `http://127.0.0.1:${port}/v1/notifications`,
    });
    // The second app only answers requests: were it to work jobs too, it could take the realtime job
    // (or the event dispatch) with its own configuration, which has no realtime URL.
    offApp = await buildTestApp(database, { IFTTT_SERVICE_KEY: KEY }, { workJobs: false });
  });
  afterAll(async () => {
    await offApp.close();
    await app.close();
    realtime.close();
  });
  beforeEach(async () => resetDatabase(app.ctx.database));

  const call = (
    method: "GET" | "POST" | "DELETE",
    url: string,
    headers: Record<string, string> = {},
    body?: unknown,
    on: App = app,
  ) =>
    on.inject({
      method,
      url,
      headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });

  async function setup(): Promise<{ token: string; samples: Samples; auth: Record<string, string> }> {
    const res = await call("POST", `${V1}/test/setup`, { "ifttt-service-key": KEY }, {});
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { accessToken: string; samples: Samples };
    return {
      token: data.accessToken,
      samples: data.samples,
      auth: { authorization: `Bearer ${data.accessToken}` },
    };
  }

  it("checks the service key on status and test/setup, and test/setup only in test mode (O6)", async () => {
    const cases: Record<string, string>[] = [
      {},
      { "ifttt-service-key": "wrong" },
      { "ifttt-service-key": `${KEY}x` },
      { "ifttt-channel-key": "" },
    ];
    for (const headers of cases) {
      const status = await call("GET", `${V1}/status`, headers);
      expect(status.statusCode).toBe(401);
      expect(status.json().errors[0].message).toEqual(expect.any(String));
      expect((await call("POST", `${V1}/test/setup`, headers, {})).statusCode).toBe(401);
    }
    expect((await call("GET", `${V1}/status`, { "ifttt-service-key": KEY })).statusCode).toBe(200);
    expect((await call("GET", `${V1}/status`, { "ifttt-channel-key": KEY })).statusCode).toBe(200);
    const off = await call("POST", `${V1}/test/setup`, { "ifttt-service-key": KEY }, {}, offApp);
    expect(off.statusCode).toBe(404);
    expect(await app.ctx.database.db.select().from(users)).toEqual([]);
  });

  it("gives the test token only for the fixture user, with samples for every trigger and action", async () => {
    const { samples, auth } = await setup();
    const me = await call("GET", `${V1}/user/info`, auth);
    expect(me.statusCode).toBe(200);
    const [fixture] = await app.ctx.database.db.select().from(users).where(eq(users.email, FIXTURE_EMAIL));
    expect(me.json()).toEqual({ data: { name: "IFTTT test user", id: fixture?.id } });
    expect(Object.keys(samples.triggers).sort()).toEqual(Object.keys(TRIGGERS).sort());
    expect(Object.keys(samples.actions).sort()).toEqual(["log_blood_pressure", "log_water", "log_weight"]);
    // A second setup reuses the same fixture user.
    await setup();
    expect(await app.ctx.database.db.select().from(users)).toHaveLength(1);
  });

  it("answers 401 in IFTTT's shape for a missing, malformed or unknown bearer token (O7)", async () => {
    for (const authorization of [undefined, "Bearer", "Bearer toa_nope", "Token tok_x", "Bearer   "]) {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      for (const [method, url] of [
        ["GET", `${V1}/user/info`],
        ["POST", `${V1}/triggers/new_hrv_measurement`],
        ["POST", `${V1}/actions/log_weight`],
        ["DELETE", `${V1}/triggers/new_hrv_measurement/trigger_identity/abc`],
      ] as const) {
        const res = await call(method, url, headers, method === "POST" ? {} : undefined);
        expect(res.statusCode, `${method} ${url} ${authorization}`).toBe(401);
        expect(res.json().errors).toEqual([{ message: expect.any(String) }]);
      }
    }
  });

  it("serves every trigger's samples: ≥ 3 items, newest first, stable meta, limit honoured (O7)", async () => {
    const { samples, auth } = await setup();
    for (const [slug, fields] of Object.entries(samples.triggers)) {
      const url = `${V1}/triggers/${slug}`;
      const body = {
        trigger_identity: `ti-${slug}`,
        triggerFields: fields,
        user: { timezone: "Europe/Berlin" },
        extra: 1,
      };
      const res = await call("POST", url, auth, body);
      expect(res.statusCode, `${slug}: ${res.body}`).toBe(200);
      const items = res.json().data as { meta: { id: string; timestamp: number } }[];
      expect(items.length, slug).toBeGreaterThanOrEqual(3);
      const stamps = items.map((i) => i.meta.timestamp);
      expect(stamps).toEqual([...stamps].sort((a, b) => b - a));
      for (const item of items) {
        expect(typeof item.meta.id).toBe("string");
        expect(Number.isInteger(item.meta.timestamp)).toBe(true);
      }
      const again = await call("POST", url, auth, body);
      expect(again.json().data.map((i: { meta: { id: string } }) => i.meta.id)).toEqual(
        items.map((i) => i.meta.id),
      );
      const one = await call("POST", url, auth, { ...body, limit: 1 });
      expect(one.json().data).toHaveLength(1);
      const zero = await call("POST", url, auth, { ...body, limit: 0 });
      expect(zero.json().data).toEqual([]);
      const noLimit = await call("POST", url, auth, { triggerFields: fields });
      expect(noLimit.statusCode).toBe(200);
      const deleted = await call("DELETE", `${url}/trigger_identity/ti-${slug}`, auth);
      expect(deleted.statusCode).toBe(200);
    }
    expect(await app.ctx.database.db.select().from(iftttTriggerIdentities)).toEqual([]);
  });

  it("refuses triggers with missing or invalid trigger fields with 400", async () => {
    const { samples, auth } = await setup();
    for (const [slug, fields] of Object.entries(samples.triggers)) {
      if (Object.keys(fields).length === 0) continue;
      const missing = await call("POST", `${V1}/triggers/${slug}`, auth, { limit: 5 });
      expect(missing.statusCode, slug).toBe(400);
      expect(missing.json().errors[0].message).toContain("triggerFields");
      const invalid = Object.fromEntries(
        Object.entries(samples.triggerFieldValidations[slug] ?? {}).map(([k, v]) => [k, v.invalid]),
      );
      expect(
        (await call("POST", `${V1}/triggers/${slug}`, auth, { triggerFields: invalid })).statusCode,
      ).toBe(400);
    }
    expect((await call("POST", `${V1}/triggers/new_hrv_measurement`, auth, { limit: -1 })).statusCode).toBe(
      400,
    );
  });

  it("validates trigger fields and lists options", async () => {
    const { samples, auth } = await setup();
    for (const [slug, fields] of Object.entries(samples.triggerFieldValidations)) {
      for (const [field, { valid, invalid }] of Object.entries(fields)) {
        const url = `${V1}/triggers/${slug}/fields/${field}/validate`;
        expect((await call("POST", url, auth, { value: valid })).json()).toEqual({ data: { valid: true } });
        const bad = (await call("POST", url, auth, { value: invalid })).json();
        expect(bad.data.valid).toBe(false);
        expect(typeof bad.data.message).toBe("string");
      }
    }
    const options = await call("POST", `${V1}/triggers/bp_in_category/fields/category/options`, auth, {});
    expect(options.statusCode).toBe(200);
    expect(options.json().data).toContainEqual({ label: "Grade 1 hypertension", value: "grade_1" });
  });

  it("runs every action with its sample and skips the skipping samples with status SKIP", async () => {
    const { samples, auth } = await setup();
    for (const [slug, fields] of Object.entries(samples.actions)) {
      const res = await call("POST", `${V1}/actions/${slug}`, auth, {
        actionFields: fields,
        user: { timezone: "UTC" },
      });
      expect(res.statusCode, `${slug}: ${res.body}`).toBe(200);
      expect(res.json()).toEqual({ data: [{ id: expect.any(String) }] });
      const skip = await call("POST", `${V1}/actions/${slug}`, auth, {
        actionFields: samples.actionRecordSkipping[slug],
      });
      expect(skip.statusCode, slug).toBe(400);
      expect(skip.json().errors[0]).toMatchObject({ status: "SKIP", message: expect.any(String) });
      const missing = await call("POST", `${V1}/actions/${slug}`, auth, {});
      expect(missing.statusCode).toBe(400);
    }
    const [fixture] = await app.ctx.database.db.select().from(users).where(eq(users.email, FIXTURE_EMAIL));
    expect(fixture?.weightKg).toBe(70.5);
    const values = await app.ctx.database.db.select().from(dashboardValues);
    // The logged reading reaches the dashboard through the blood-pressure log, the rest directly.
    expect(values.map((v) => [v.source, v.metric, v.value]).sort()).toEqual([
      ["bp_log", "bp_diastolic", 82],
      ["bp_log", "bp_pulse", 70],
      ["bp_log", "bp_systolic", 128],
      ["ifttt", "water", 0.25],
      ["ifttt", "weight", 70.5],
    ]);
    expect((await call("POST", `${V1}/actions/unknown`, auth, { actionFields: {} })).statusCode).toBe(404);
  });

  it("puts a person's new blood-pressure reading first in the trigger, with its category", async () => {
    const { auth } = await setup();
    const [fixture] = await app.ctx.database.db.select().from(users).where(eq(users.email, FIXTURE_EMAIL));
    const userId = fixture?.id ?? "";
    // IFTTT's realtime endpoint refuses the first call: the job's retry sends the notice again.
    failures = 1;
    refused = 0;
    const { reading } = await createReading(app.ctx, userId, {
      systolic: 182,
      diastolic: 111,
      measured_at: new Date().toISOString(),
      time_zone: "UTC",
    });
    await app.ctx.services.events.dispatchPending();
    const res = await call("POST", `${V1}/triggers/new_bp_reading`, auth, { triggerFields: {} });
    const first = res.json().data[0];
    // The person connected IFTTT (test/setup's grant), so IFTTT's realtime endpoint hears of it.
    await expect
      .poll(() => notified.find((n) => JSON.stringify(n.body).includes(userId)), {
        timeout: 30_000,
        interval: 250,
      })
      .toEqual({ key: KEY, body: { data: [{ user_id: userId }] } });
    expect(refused).toBe(1);
    // The job deletes the notice once IFTTT has answered, a moment after the stand-in heard it.
    await expect
      .poll(() => app.ctx.database.db.select().from(iftttRealtimePending), { timeout: 10_000, interval: 50 })
      .toEqual([]);
    expect(first).toMatchObject({ systolic: 182, diastolic: 111, category: "grade_3" });
    expect(first.meta.id).toContain(reading.id);
    const cat = await call("POST", `${V1}/triggers/bp_in_category`, auth, {
      triggerFields: { category: "grade_3" },
    });
    expect(cat.json().data).toHaveLength(1);
    expect(
      await app.ctx.database.db.select().from(iftttEvents).where(eq(iftttEvents.sourceId, reading.id)),
    ).toHaveLength(1);
  }, 60_000);

  it("reports a new HRV measurement with its scores, filters by threshold, and forgets a deleted one", async () => {
    const { auth } = await setup();
    const { db } = app.ctx.database;
    const [fixture] = await db.select().from(users).where(eq(users.email, FIXTURE_EMAIL));
    const userId = fixture?.id ?? "";
    const [row] = await db
      .insert(measurements)
      .values({
        userId,
        clientId: randomUUID(),
        source: "camera",
        startedAt: new Date(),
        timeZone: "UTC",
        rrMs: [800, 810, 790],
        result: { scores: { stress: 93, energy: 7, performance: 40 }, values: { heart_rate: 74, rmssd: 21 } },
      })
      .returning({ id: measurements.id });
    const id = row?.id ?? "";
    await db.transaction(async (tx) => {
      await app.ctx.services.events.emitEvent(tx as never, {
        type: "measurement.created",
        userId,
        payload: { measurement_id: id },
      });
    });
    await app.ctx.services.events.dispatchPending();
    const poll = async (trigger: string, triggerFields: Record<string, string>) =>
      (await call("POST", `${V1}/triggers/${trigger}`, auth, { triggerFields })).json().data;
    expect((await poll("new_hrv_measurement", {}))[0]).toMatchObject({
      stress: 93,
      energy: 7,
      heart_rate: 74,
    });
    expect(
      (await poll("stress_above", { threshold: "90" })).map((i: { stress: number }) => i.stress),
    ).toEqual([93]);
    expect(
      (await poll("energy_below", { threshold: "10" })).map((i: { energy: number }) => i.energy),
    ).toEqual([7]);
    await db.transaction(async (tx) => {
      await app.ctx.services.events.emitEvent(tx as never, {
        type: "measurement.deleted",
        userId,
        payload: { measurement_id: id },
      });
    });
    await app.ctx.services.events.dispatchPending();
    expect((await poll("stress_above", { threshold: "90" })).length).toBe(0);
  });

  it("keeps one person's trigger events from another's token (A1)", async () => {
    const { auth } = await setup();
    const other = await createTestUser(app.ctx.database);
    await createReading(app.ctx, other.userId, {
      systolic: 177,
      diastolic: 90,
      measured_at: new Date().toISOString(),
      time_zone: "UTC",
    });
    await app.ctx.services.events.dispatchPending();
    const res = await call("POST", `${V1}/triggers/new_bp_reading`, auth, { triggerFields: {}, limit: 50 });
    expect(res.json().data).toHaveLength(3);
    expect(res.json().data.every((i: { systolic: number }) => i.systolic !== 177)).toBe(true);
  });
  it("checks the token before the trigger, field or action name: 401 without one, 404 with one", async () => {
    const { auth } = await setup();
    const unknown: ["POST" | "DELETE", string, unknown][] = [
      ["POST", `${V1}/triggers/no_such_trigger`, { triggerFields: {} }],
      ["DELETE", `${V1}/triggers/no_such_trigger/trigger_identity/abc`, undefined],
      ["POST", `${V1}/triggers/no_such_trigger/fields/x/options`, {}],
      ["POST", `${V1}/triggers/stress_above/fields/nope/validate`, { value: "1" }],
      ["POST", `${V1}/triggers/new_bp_reading/fields/category/options`, {}],
      ["POST", `${V1}/actions/no_such_action`, { actionFields: {} }],
      // Names every object has are not triggers or actions either.
      ["POST", `${V1}/actions/constructor`, { actionFields: {} }],
      ["POST", `${V1}/triggers/__proto__`, { triggerFields: {} }],
      ["POST", `${V1}/triggers/stress_above/fields/toString/validate`, { value: "1" }],
    ];
    for (const [method, url, body] of unknown) {
      for (const headers of [{}, { authorization: "Bearer toa_forged" }] as Record<string, string>[]) {
        const res = await call(method, url, headers, body);
        expect(res.statusCode, `${method} ${url}`).toBe(401);
        expect(res.json().errors).toEqual([{ message: expect.any(String) }]);
      }
      const known = await call(method, url, auth, body);
      expect(known.statusCode, `${method} ${url}`).toBe(404);
      expect(known.json().errors).toEqual([{ message: expect.any(String) }]);
    }
    // A path that is no route at all is a 404 in the same shape.
    const nowhere = await call("GET", `${V1}/no/such/path`);
    expect(nowhere.statusCode).toBe(404);
    expect(nowhere.json().errors).toEqual([{ message: expect.any(String) }]);
  });

  it("refuses a trigger identity a database cannot store, and forgets one that cannot exist", async () => {
    const { auth } = await setup();
    const url = `${V1}/triggers/new_bp_reading`;
    const nul = await call("POST", url, auth, { triggerFields: {}, trigger_identity: "a\u0000b" });
    expect(nul.statusCode).toBe(400);
    expect(nul.json().errors[0].message).toContain("trigger_identity");
    const long = await call("POST", url, auth, { triggerFields: {}, trigger_identity: "x".repeat(201) });
    expect(long.statusCode).toBe(400);
    for (const id of ["%00", "a%00b", "x".repeat(99)])
      expect((await call("DELETE", `${url}/trigger_identity/${id}`, auth)).statusCode, id).toBe(200);
  });

  it("honours any limit up to the documented maximum, and answers 50 items without one (O7)", async () => {
    const { auth } = await setup();
    const [fixture] = await app.ctx.database.db.select().from(users).where(eq(users.email, FIXTURE_EMAIL));
    const userId = fixture?.id ?? "";
    const start = Date.parse("2026-01-01T00:00:00Z");
    const rows = Array.from({ length: IFTTT_MAX_LIMIT + 20 }, (_, i) => ({
      userId,
      kind: "bp_reading",
      sourceId: `many-${i}`,
      occurredAt: new Date(start + i * 60_000),
      data: { systolic: 120, diastolic: 80, category: "normal" },
    }));
    for (let i = 0; i < rows.length; i += 500)
      await app.ctx.database.db.insert(iftttEvents).values(rows.slice(i, i + 500));
    const count = async (body: Record<string, unknown>) => {
      const res = await call("POST", `${V1}/triggers/new_bp_reading`, auth, { triggerFields: {}, ...body });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data as unknown[]).length;
    };
    expect(await count({})).toBe(IFTTT_DEFAULT_LIMIT);
    expect(await count({ limit: null })).toBe(IFTTT_DEFAULT_LIMIT);
    expect(await count({ limit: 51 })).toBe(51);
    expect(await count({ limit: 777 })).toBe(777);
    expect(await count({ limit: IFTTT_MAX_LIMIT + 5000 })).toBe(IFTTT_MAX_LIMIT);
    for (const limit of [-1, 1.5, "10", true]) {
      const res = await call("POST", `${V1}/triggers/new_bp_reading`, auth, { triggerFields: {}, limit });
      expect(res.statusCode, String(limit)).toBe(400);
      expect(res.json().errors[0].message).toContain("limit");
    }
  });

  it("gives item times in IFTTT's user.timezone, else in the person's profile zone", async () => {
    const { auth } = await setup();
    const { db } = app.ctx.database;
    const [fixture] = await db.select().from(users).where(eq(users.email, FIXTURE_EMAIL));
    const userId = fixture?.id ?? "";
    await db.update(users).set({ timezone: "Asia/Tokyo" }).where(eq(users.id, userId));
    await db.insert(iftttEvents).values({
      userId,
      kind: "bp_reading",
      sourceId: "tz-reading",
      occurredAt: new Date("2030-07-01T22:30:05Z"),
      data: { systolic: 120, diastolic: 80, category: "normal" },
    });
    const firstAt = async (user?: unknown) => {
      const body = { triggerFields: {}, limit: 1, ...(user === undefined ? {} : { user }) };
      const res = await call("POST", `${V1}/triggers/new_bp_reading`, auth, body);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data[0].measured_at as string;
    };
    expect(await firstAt({ timezone: "Europe/Berlin" })).toBe("2030-07-02T00:30:05+02:00");
    expect(await firstAt({ timezone: "America/New_York" })).toBe("2030-07-01T18:30:05-04:00");
    expect(await firstAt({ timezone: "UTC" })).toBe("2030-07-01T22:30:05+00:00");
    // No zone, or one this server does not know: the profile's.
    expect(await firstAt()).toBe("2030-07-02T07:30:05+09:00");
    expect(await firstAt({ timezone: "Mars/Olympus_Mons" })).toBe("2030-07-02T07:30:05+09:00");
    // Every zone names the same instant.
    for (const timezone of ["Europe/Berlin", "Asia/Kolkata", "Pacific/Chatham"])
      expect(Date.parse(await firstAt({ timezone }))).toBe(Date.parse("2030-07-01T22:30:05Z"));
  });

  it("answers 503 in IFTTT's error shape when the database fails during a call (O7)", async () => {
    const { auth } = await setup();
    const { database } = app.ctx;
    const poll = ["triggers/new_bp_reading", { triggerFields: {} }] as const;
    const log = [
      "actions/log_blood_pressure",
      { actionFields: { systolic: "130", diastolic: "85" } },
    ] as const;
    // A real failure from the database: a table the call needs is gone for a moment.
    for (const [table, [url, body]] of [
      ["ifttt_events", poll],
      ["oauth_tokens", poll],
      ["bp_readings", log],
    ] as const) {
      await database.query(`alter table "${table}" rename to "${table}_away"`);
      try {
        const res = await call("POST", `${V1}/${url}`, auth, body);
        expect(res.statusCode, `${table}: ${res.body}`).toBe(503);
        expect(res.json()).toMatchObject({
          errors: [{ message: expect.any(String) }],
          code: "unavailable",
        });
        expect(res.json().errors[0]).not.toHaveProperty("status");
        expect(res.body).not.toContain(table);
      } finally {
        await database.query(`alter table "${table}_away" rename to "${table}"`);
      }
    }
    const me = await call("GET", `${V1}/user/info`, auth);
    expect(me.statusCode).toBe(200);
  });
});
