import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { hmacHex } from "../../lib/crypto.ts";
import { tableChecksums } from "../../test/checksums.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TEST_SECRET } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";

const HEAVY = Boolean(process.env.TONUS_HEAVY);
const PROFILE = "/dashboard_api/v1/user/profile/";
const ALLOWED_COLUMNS = new Set([
  "name",
  "gender",
  "date_of_birth",
  "height_cm",
  "weight_kg",
  "units",
  "newsletter_language",
  "timezone",
]);
const FORBIDDEN_KEYS = [
  "billing_status",
  "id",
  "user_id",
  "email",
  "username",
  "is_paid",
  "is_customer",
  "is_customer_override",
  "plan",
  "upgradable",
  "role",
  "hmac",
  "userpic",
  "userpic_path",
  "password_hash",
  "is_ios_user",
  "__proto__",
  "constructor",
  "prototype",
];

async function userRow(app: App, userId: string): Promise<Record<string, unknown>> {
  const { rows } = await app.ctx.database.query<Record<string, unknown>>(
    "select * from users where id = $1",
    [userId],
  );
  return rows[0] ?? {};
}

describe.each(BACKENDS)("profile on %s", (backend) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => resetDatabase(app.ctx.database));

  it("answers every profile field, with the HMAC of the user id and the entitlement fields", async () => {
    const user = await createTestUser(app.ctx.database, { name: "Anna" });
    const res = await user.client(app).get(PROFILE);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      id: user.userId,
      email: user.email,
      name: "Anna",
      userpic: null,
      billing_status: "none",
      units: "metric",
      role: "user",
      is_customer: false,
      plan: null,
      upgradable: true,
    });
    // No INTERCOM_SECRET configured: no identity hash, and never one made with the server's own secret.
    expect(body.hmac).toBe("");
    expect(body.hmac).not.toBe(hmacHex(TEST_SECRET, user.userId));
  });

  it("refuses a signed-out caller with 403 not_authenticated", async () => {
    const res = await app.inject({ method: "GET", url: PROFILE });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe("not_authenticated");
  });

  it("stores heights in cm and weights in kg whatever the display units", async () => {
    const user = await createTestUser(app.ctx.database);
    const client = user.client(app);
    const update = {
      name: "Boris",
      gender: "male",
      date_of_birth: "1990-05-17",
      height: 180.5,
      weight: 72.25,
      units: "imperial",
      newsletter_language: "ru",
      timezone: "Europe/Moscow",
    };
    const put = await client.put(PROFILE, update);
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject(update);
    expect((await client.get(PROFILE)).json()).toMatchObject(update);
    const row = await userRow(app, user.userId);
    expect(row).toMatchObject({ height_cm: 180.5, weight_kg: 72.25, units: "imperial" });
  });

  it("refuses values outside the allowed ranges", async () => {
    const client = (await createTestUser(app.ctx.database)).client(app);
    for (const body of [
      { height: 10 },
      { weight: 1000 },
      { date_of_birth: "1800-01-01" },
      { units: "furlongs" },
    ]) {
      const res = await client.put(PROFILE, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe("validation_failed");
    }
  });

  it("never writes a column outside the allowlist, whatever extra keys are sent (A3)", async () => {
    const user = await createTestUser(app.ctx.database, { billingStatus: "failed" });
    const client = user.client(app);
    const value = fc.oneof(fc.string(), fc.boolean(), fc.integer(), fc.constant(null), fc.constant("active"));
    const allowed = fc.record(
      {
        name: fc.string({ maxLength: 20 }),
        units: fc.constantFrom("metric", "imperial"),
        height: fc.integer({ min: 50, max: 260 }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        allowed,
        fc.uniqueArray(fc.constantFrom(...FORBIDDEN_KEYS), { maxLength: 4 }),
        fc.array(value, { minLength: 4, maxLength: 4 }),
        async (good, keys, values) => {
          const before = await userRow(app, user.userId);
          const pairs = keys.map((k, i) => `${JSON.stringify(k)}:${JSON.stringify(values[i] ?? null)}`);
          const payload = `{${[JSON.stringify(good).slice(1, -1), ...pairs].filter(Boolean).join(",")}}`;
          const res = await client.request("PUT", PROFILE, {
            payload,
            headers: { "content-type": "application/json" },
          });
          expect([200, 400]).toContain(res.statusCode);
          if (keys.length > 0 && res.statusCode === 200) {
            // Keys JSON.parse drops (`__proto__`) may be accepted; nothing else extra may be.
            expect(keys.every((k) => k === "__proto__")).toBe(true);
          }
          const after = await userRow(app, user.userId);
          for (const column of Object.keys(before)) {
            if (!ALLOWED_COLUMNS.has(column)) expect(after[column], column).toEqual(before[column]);
          }
          if (res.statusCode === 400) expect(after).toEqual(before);
        },
      ),
      { numRuns: HEAVY ? 10_000 : 300 },
    );
  }, 600_000);

  it("answers malformed profile bodies with a 4xx in the error shape, never a 5xx", async () => {
    const client = (await createTestUser(app.ctx.database)).client(app);
    const before = await tableChecksums(app.ctx.database);
    const body = fc.oneof(
      fc.string(),
      fc.json(),
      fc.constantFrom(
        "",
        "{",
        "[]",
        "null",
        '{"name":',
        '{"height":"1e999"}',
        '{"date_of_birth":"2020-02-30"}',
      ),
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const res = await client.request("PUT", PROFILE, {
          payload,
          headers: { "content-type": "application/json" },
        });
        expect(res.statusCode, payload).toBeLessThan(500);
        if (res.statusCode >= 400) expect(typeof res.json().code).toBe("string");
      }),
      { numRuns: HEAVY ? 3000 : 200 },
    );
    // Valid JSON objects of allowed keys may change the row; everything else leaves other tables alone.
    const after = await tableChecksums(app.ctx.database);
    expect({ ...after, users: "" }).toEqual({ ...before, users: "" });
  });

  it("shows and changes only the caller's own profile (A1)", async () => {
    const a = await createTestUser(app.ctx.database, { name: "A" });
    const b = await createTestUser(app.ctx.database, { name: "B" });
    const before = await userRow(app, b.userId);
    const res = await a.client(app).put(PROFILE, { name: "changed by A" });
    expect(res.json()).toMatchObject({ id: a.userId, name: "changed by A" });
    expect(await userRow(app, b.userId)).toEqual(before);
    expect((await b.client(app).get(PROFILE)).json()).toMatchObject({ id: b.userId, name: "B" });
  });
});

describe.each(BACKENDS)("entitlements on %s (A5)", (backend) => {
  let sandbox: App;
  let off: App;
  beforeAll(async () => {
    const database = await getTestDatabase(backend);
    sandbox = await buildTestApp(database, { BILLING_MODE: "sandbox" });
    off = await buildTestApp(database, { BILLING_MODE: "off" });
  });
  afterAll(async () => {
    await sandbox.close();
    await off.close();
  });
  beforeEach(async () => resetDatabase(sandbox.ctx.database));

  it("makes every user a customer on the personal plan when billing is off", async () => {
    const user = await createTestUser(off.ctx.database);
    const body = (await user.client(off).get(PROFILE)).json();
    expect(body).toMatchObject({ is_customer: true, plan: "personal", upgradable: false });
  });

  it("makes a user a customer only when an operator marked them, with billing on", async () => {
    const free = await createTestUser(sandbox.ctx.database);
    const marked = await createTestUser(sandbox.ctx.database, { isCustomerOverride: true });
    expect((await free.client(sandbox).get(PROFILE)).json()).toMatchObject({
      is_customer: false,
      plan: null,
      upgradable: true,
    });
    expect((await marked.client(sandbox).get(PROFILE)).json()).toMatchObject({
      is_customer: true,
      upgradable: false,
    });
  });
});
