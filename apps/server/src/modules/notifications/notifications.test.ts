import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  NOTIFICATIONS_API,
  NotificationSettingsSchema,
  NotificationSettingsUpdateSchema,
} from "@tonus/contract";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { App } from "../../app.ts";
import { openDatabase } from "../../db/client.ts";
import { notificationDeliveries, notificationNews, notificationSettings } from "../../db/schema.ts";
import { deleteUserData, exportUserData, importUserData, registryEnv } from "../../lib/registry.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { describeBody, type FuzzBody, fuzzRequests } from "../../test/fuzz.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { DEFAULT_SETTINGS } from "./notifications.service.ts";
import { signUnsubscribeToken } from "./notifications.tokens.ts";

const RUNS = process.env.TONUS_HEAVY ? 10_000 : 200;
const URL = NOTIFICATIONS_API.settings;

describe.each(BACKENDS)("notification settings on %s", (backend) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend), { NOTIFICATIONS_ENABLED: "0" });
  });
  afterAll(() => app.close());
  beforeEach(async () => resetDatabase(app.ctx.database));

  const stored = async (userId: string) =>
    (
      await app.ctx.database.db
        .select()
        .from(notificationSettings)
        .where(eq(notificationSettings.userId, userId))
    )[0] ?? null;

  it("starts with everything off and changes only the fields sent", async () => {
    const ann = await createTestUser(app.ctx.database);
    const client = ann.client(app);
    const first = await client.get(URL);
    expect(first.statusCode).toBe(200);
    expect(first.headers["cache-control"]).toBe("no-store");
    expect(first.json()).toEqual(DEFAULT_SETTINGS);
    expect(await stored(ann.userId)).toBeNull();

    const changed = await client.put(URL, { weekly_report: true, weekly_report_day: 7 });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({ ...DEFAULT_SETTINGS, weekly_report: true, weekly_report_day: 7 });
    const reminders = await client.put(URL, {
      reminders: true,
      reminder_time: "21:45",
      reminder_days: [5, 1, 3],
    });
    expect(reminders.json()).toEqual({
      ...DEFAULT_SETTINGS,
      weekly_report: true,
      weekly_report_day: 7,
      reminders: true,
      reminder_time: "21:45",
      reminder_days: [1, 3, 5],
    });
    expect((await client.get(URL)).json()).toEqual(reminders.json());
  });

  it("refuses invalid or unknown fields with 400 and writes nothing", async () => {
    const ann = await createTestUser(app.ctx.database);
    const client = ann.client(app);
    await client.put(URL, { reminders: true, reminder_days: [1] });
    const before = await stored(ann.userId);
    for (const body of [
      { weekly_report_day: 0 },
      { weekly_report_day: 8 },
      { weekly_report_day: 1.5 },
      { reminder_time: "25:00" },
      { reminder_time: "7:30" },
      { reminder_time: "07:30:00" },
      { reminder_days: [1, 1] },
      { reminder_days: [1, 2, 3, 4, 5, 6, 7, 7] },
      { reminder_days: [] },
      { reminders: true, reminder_days: [] },
      { product_news: "yes" },
      { weekly_report: true, user_id: "00000000-0000-4000-8000-000000000000" },
      '{"weekly_report":true,"__proto__":{"admin":true}}',
    ]) {
      const res = await client.request("PUT", URL, {
        payload: typeof body === "string" ? body : JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ code: "validation_failed", error: expect.any(String) });
    }
    expect(await stored(ann.userId)).toEqual(before);
    // Turning reminders off may leave no days; turning them on again needs one.
    expect((await client.put(URL, { reminders: false, reminder_days: [] })).statusCode).toBe(200);
    expect((await client.put(URL, { reminders: true })).json()).toMatchObject({ code: "validation_failed" });
  });

  it("needs a signed-in person: anonymous, app-token and share-link callers get 403", async () => {
    const anonymous = await app.inject({ method: "GET", url: URL });
    expect(anonymous.statusCode).toBe(403);
    expect(anonymous.json()).toMatchObject({ code: "not_authenticated" });
    for (const authorization of [`Token ${app.ctx.config.APP_TOKEN}`, "Token tsh_unknown"]) {
      const res = await app.inject({ method: "GET", url: URL, headers: { authorization } });
      expect(res.statusCode, authorization).toBe(403);
    }
  });

  it("keeps each person's settings their own (A1)", async () => {
    const ann = await createTestUser(app.ctx.database);
    const bob = await createTestUser(app.ctx.database);
    await bob.client(app).put(URL, { product_news: true, weekly_report: true });
    const bobBefore = await stored(bob.userId);
    await ann.client(app).put(URL, { product_news: false, weekly_report: false, reminders: true });
    // A body naming Bob is refused, not applied to him.
    const aimed = await ann.client(app).put(URL, { user_id: bob.userId, product_news: false });
    expect(aimed.statusCode).toBe(400);
    expect(await stored(bob.userId)).toEqual(bobBefore);
    expect((await ann.client(app).get(URL)).json()).toMatchObject({ product_news: false, reminders: true });
    expect((await bob.client(app).get(URL)).json()).toMatchObject({
      product_news: true,
      weekly_report: true,
    });
  });

  it("answers hostile bodies with a 4xx in the error shape, and stores only valid settings (Z)", async () => {
    const ann = await createTestUser(app.ctx.database);
    const client = ann.client(app);
    const json = z.toJSONSchema(NotificationSettingsUpdateSchema, {
      io: "input",
      unrepresentable: "any",
    }) as {
      properties: Record<string, unknown>;
    };
    const keys = Object.keys(json.properties);
    const hostileValue = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(
        Number.NaN,
        Number.POSITIVE_INFINITY,
        2 ** 53,
        -0,
        -1,
        0,
        8,
        null,
        true,
        [],
        {},
        "08:00",
      ),
      fc.array(fc.integer({ min: -2, max: 9 }), { maxLength: 9 }),
      fc.string({ maxLength: 40 }),
      fc.constant("x".repeat(100_000)),
    );
    const body = fc.oneof(
      fc
        .dictionary(fc.constantFrom(...keys, "__proto__", "constructor", "user_id", "email"), hostileValue)
        .map((b): FuzzBody => ({ payload: JSON.stringify(b), contentType: "application/json" })),
      // The shared generator: values shaped by the schema itself, and generic hostile bodies.
      fuzzRequests(NotificationSettingsUpdateSchema),
    );
    for (const b of fc.sample(body, { numRuns: RUNS, seed: 9 })) {
      const wire = describeBody(b);
      const res = await client.request("PUT", URL, {
        payload: b.payload,
        headers: { "content-type": b.contentType },
      });
      expect(res.statusCode, `${wire} → ${res.body}`).toBeLessThan(500);
      if (res.statusCode >= 400) {
        const err = res.json() as { error?: unknown; code?: unknown };
        expect(typeof err.error === "string" && typeof err.code === "string", res.body).toBe(true);
      } else {
        expect(NotificationSettingsSchema.safeParse(res.json()).success).toBe(true);
      }
    }
    const row = await stored(ann.userId);
    if (row) {
      expect(row.weeklyReportDay).toBeGreaterThanOrEqual(1);
      expect(row.weeklyReportDay).toBeLessThanOrEqual(7);
      expect(row.reminderTime).toMatch(/^([01]\d|2[0-3]):[0-5]\d$/);
      expect(row.reminderDays.every((d) => d >= 1 && d <= 7)).toBe(true);
      expect(!row.reminders || row.reminderDays.length > 0).toBe(true);
    }
  });

  it("never lets a forged or random unsubscribe token change anything, and never answers 5xx (Z)", async () => {
    const ann = await createTestUser(app.ctx.database);
    await ann.client(app).put(URL, { weekly_report: true, reminders: true, product_news: true });
    const before = await stored(ann.userId);
    const valid = signUnsubscribeToken(app.ctx.config.secretKey, ann.userId, "news");
    const token = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.constantFrom("news", "news.", "..", `news.${ann.userId}`, `news.${ann.userId}.`, `${valid}.x`),
      // A valid token with one character changed, added or removed.
      fc
        .record({
          at: fc.nat({ max: valid.length - 1 }),
          ch: fc.constantFrom("A", "_", "-", ".", "0", "%", ""),
        })
        .map(({ at, ch }) => `${valid.slice(0, at)}${ch}${valid.slice(at + 1)}`)
        .filter((t) => t !== valid),
    );
    for (const t of fc.sample(token, { numRuns: RUNS, seed: 21 })) {
      const url = `${NOTIFICATIONS_API.unsubscribe}?token=${encodeURIComponent(t)}`;
      for (const method of ["GET", "POST"] as const) {
        const res = await app.inject({
          method,
          url,
          payload: method === "POST" ? "List-Unsubscribe=One-Click" : undefined,
        });
        expect(res.statusCode, `${method} ${t}`).toBe(404);
      }
    }
    expect(await stored(ann.userId)).toEqual(before);
  });

  it("travels with the account archive and goes with the account", async () => {
    const ann = await createTestUser(app.ctx.database);
    await ann
      .client(app)
      .put(URL, { weekly_report: true, weekly_report_day: 3, reminders: true, reminder_days: [2] });
    await app.ctx.database.db.insert(notificationDeliveries).values({
      userId: ann.userId,
      kind: "weekly_report",
      periodKey: "2026-11-25",
      scheduledAt: new Date("2026-11-25T08:00:00Z"),
      status: "sent",
    });
    const env = registryEnv(app.ctx);
    const archive = await exportUserData(env, ann.userId);
    const section = archive.sections.notifications;
    expect(section?.tables.notification_settings).toEqual([
      expect.objectContaining({ weekly_report: true, weekly_report_day: 3, reminder_days: [2] }),
    ]);
    expect(section?.tables.notification_deliveries).toEqual([
      expect.objectContaining({ kind: "weekly_report", period_key: "2026-11-25", status: "sent" }),
    ]);
    await deleteUserData(env, ann.userId);
    expect(await app.ctx.database.db.select().from(notificationSettings)).toEqual([]);
    expect(await app.ctx.database.db.select().from(notificationDeliveries)).toEqual([]);

    // Restored from the archive: the settings come back; the ledger (this server's record) does not.
    const restored = await importUserData(env, archive);
    expect(restored).toBe(ann.userId);
    expect(await stored(ann.userId)).toMatchObject({
      weeklyReport: true,
      weeklyReportDay: 3,
      reminderDays: [2],
    });
    expect(await app.ctx.database.db.select().from(notificationDeliveries)).toEqual([]);
  });

  it("drops archived settings that are out of range instead of importing them", async () => {
    const ann = await createTestUser(app.ctx.database);
    await ann.client(app).put(URL, { weekly_report: true });
    const env = registryEnv(app.ctx);
    const archive = await exportUserData(env, ann.userId);
    const rows = archive.sections.notifications?.tables.notification_settings ?? [];
    rows[0] = { ...rows[0], weekly_report_day: 9, reminder_days: [0, 12] };
    await deleteUserData(env, ann.userId);
    await importUserData(env, archive);
    expect(await stored(ann.userId)).toBeNull();
  });
});

describe("send-news as a process", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-news-cli-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(import.meta.dirname, "../../cli.ts"), ...args], {
        env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", DATA_DIR: path.join(dir, "data") },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      child.on("exit", (code) => resolve({ code, out, err }));
    });

  it("queues an issue from the files and exits 0; bad usage exits 2, a bad file 1", async () => {
    const file = path.join(dir, "news.en.md");
    fs.writeFileSync(file, "# Hello from Tonus\n\nSomething new.\n");
    const ok = await run(["send-news", "--en", file]);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain('Queued news issue 1:\n  en: "Hello from Tonus" to 0 subscriber(s)');
    expect((await run(["send-news"])).code).toBe(2);
    expect((await run(["send-news", "--fr", file])).code).toBe(2);
    fs.writeFileSync(file, "no subject\n");
    const bad = await run(["send-news", "--en", file]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('the first line must be the subject, as "# Subject"');
    const database = await openDatabase({ pgliteDir: path.join(dir, "data", "pgdata") });
    try {
      const rows = await database.db.select().from(notificationNews);
      expect(rows.map((r) => r.content)).toEqual([
        { en: { subject: "Hello from Tonus", markdown: "Something new." } },
      ]);
    } finally {
      await database.close();
    }
  }, 180_000);
});
