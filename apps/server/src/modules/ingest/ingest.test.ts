import { randomUUID } from "node:crypto";
import {
  API,
  BP_LOG_SHARE_TARGET,
  INGEST_LIMITS,
  type IngestRecordResult,
  IngestRecordSchema,
  type IngestResponse,
  type ShareLinkCreated,
} from "@tonus/contract";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { App } from "../../app.ts";
import { bpReadings, dashboardValues, idempotencyKeys, measurements } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { SHORT_RR } from "../../test/rr-fixtures.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";

const HEAVY = Boolean(process.env.TONUS_HEAVY);
const FUZZ_RUNS = HEAVY ? 10_000 : 150;
/** Retries of one batch under fresh keys (each one runs the batch again; client ids keep it single). */
const FRESH_KEY_RETRIES = HEAVY ? 1000 : 25;

const RR = SHORT_RR;

const sample = (overrides: Record<string, unknown> = {}) => ({
  type: "sample",
  client_id: randomUUID(),
  metric: "heart_rate",
  at: "2026-11-20T07:00:00Z",
  value: 61,
  ...overrides,
});
const rrMeasurement = (overrides: Record<string, unknown> = {}) => ({
  type: "rr_measurement",
  client_id: randomUUID(),
  rr_ms: RR,
  source: "watch",
  device: "Watch",
  started_at: "2026-11-20T06:00:00Z",
  time_zone: "Europe/Moscow",
  ...overrides,
});
const bpReading = (overrides: Record<string, unknown> = {}) => ({
  type: "bp_reading",
  client_id: randomUUID(),
  systolic: 121,
  diastolic: 79,
  pulse: 64,
  measured_at: "2026-11-20T05:00:00Z",
  time_zone: "Europe/Moscow",
  ...overrides,
});

describe.each(BACKENDS)("ingest API on %s", (backend) => {
  let app: App;
  let owner: TestUser;
  let token: string;

  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());

  async function tokenOf(user: TestUser): Promise<string> {
    const res = await user.client(app).post(API.apiTokens, { name: "companion" });
    expect(res.statusCode).toBe(200);
    return (res.json() as { key: string }).key;
  }

  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    owner = await createTestUser(app.ctx.database, { isCustomerOverride: true });
    token = await tokenOf(owner);
  });

  const send = (records: unknown, key: string | null = randomUUID(), auth = `Token ${token}`) =>
    app.inject({
      method: "POST",
      url: API.ingest,
      headers: {
        "content-type": "application/json",
        ...(auth ? { authorization: auth } : {}),
        ...(key === null ? {} : { "idempotency-key": key }),
      },
      payload: JSON.stringify(Array.isArray(records) ? { records } : records),
    });
  const db = () => app.ctx.database.db;
  const count = async () => ({
    // Measurements and readings write their own dashboard values; the samples are the rest.
    samples: (await db().select().from(dashboardValues)).filter(
      (v) => !["measurement", "bp_log"].includes(v.source),
    ).length,
    measurements: (await db().select().from(measurements)).length,
    readings: (await db().select().from(bpReadings)).length,
  });

  it("stores the valid records of a mixed batch and answers each bad one with its index and code", async () => {
    const records: unknown[] = [
      sample(),
      sample({ metric: "weight", value: 72.5, source: "withings" }),
      rrMeasurement({ rmssd: 1 }),
      bpReading(),
      sample({ metric: "telepathy" }),
      sample({ value: 900 }),
      sample({ at: "2099-01-01T00:00:00Z" }),
      sample({ client_id: "not-a-uuid" }),
      { type: "mood_swing", client_id: randomUUID() },
      "not an object",
      bpReading({ systolic: 70, diastolic: 90 }),
      rrMeasurement({ started_at: "2099-01-01T00:00:00Z" }),
      sample({ source: "measurement" }),
      sample({ metric: "steps", value: 1234, extra: true }),
    ];
    const res = await send(records);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as IngestResponse;
    expect(body.results.map((r) => r.index)).toEqual(records.map((_, i) => i));
    expect(body.results.map((r) => r.status)).toEqual([
      "stored",
      "stored",
      "created",
      "created",
      ...Array(10).fill("rejected"),
    ]);
    expect(body).toMatchObject({ accepted: 4, rejected: 10 });
    for (const r of body.results.filter((x) => x.status === "rejected")) {
      expect(r.code, JSON.stringify(r)).toBe("validation_failed");
      expect(r.error).toEqual(expect.any(String));
      expect(r.issues?.length).toBeGreaterThan(0);
    }
    expect(body.results[5]?.issues?.[0]?.path).toBe("value");
    expect(body.results[6]?.issues?.[0]?.path).toBe("at");
    expect(body.results[9]?.client_id).toBeNull();
    expect(await count()).toEqual({ samples: 2, measurements: 1, readings: 1 });
    // The server computed the measurement from the RR; the client's rmssd was ignored.
    const [m] = await db().select().from(measurements);
    expect(m?.id).toBe(body.results[2]?.id);
    const computed = m?.result as { values: { rmssd: number } } | undefined;
    expect(computed?.values.rmssd).toBeGreaterThan(5);
    const weight = (await db().select().from(dashboardValues)).find((v) => v.metric === "weight");
    expect(weight).toMatchObject({ value: 72.5, source: "withings", userId: owner.userId });
  });

  it("replays a batch sent again under its key and stores nothing new under a fresh key", async () => {
    const records = [sample(), rrMeasurement(), bpReading(), sample({ value: 500 })];
    const first = await send(records, "batch-1");
    const replay = await send(records, "batch-1");
    expect(replay.statusCode).toBe(200);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.json()).toEqual(first.json());
    const fresh = (await send(records, "batch-2")).json() as IngestResponse;
    expect(fresh.results.map((r) => r.status)).toEqual(["stored", "duplicate", "duplicate", "rejected"]);
    const ids = (r: IngestResponse) => r.results.map((x) => x.id);
    expect(ids(fresh)).toEqual(ids(first.json() as IngestResponse));
    expect(await count()).toEqual({ samples: 1, measurements: 1, readings: 1 });
    // The key names that batch only: another batch under it is refused, and nothing else happens.
    const other = await send([sample()], "batch-1");
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: "idempotency_mismatch" });
    const missing = await send([sample()], null);
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: "validation_failed" });
    expect(await count()).toEqual({ samples: 1, measurements: 1, readings: 1 });
  });

  it("stores a batch retried 1,000 times once", async () => {
    const records = [
      ...Array.from({ length: 46 }, (_, i) =>
        sample({ at: new Date(Date.UTC(2026, 10, 20, 7, i)).toISOString(), value: 60 + (i % 20) }),
      ),
      sample({ metric: "steps", value: 4000 }),
      rrMeasurement(),
      bpReading(),
      bpReading({ measured_at: "2026-11-20T09:00:00Z" }),
    ];
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 1000) {
          next++;
          const res = await send(records, "retried-batch");
          // A retry that overtakes the first send is told to wait (409); the client retries it later.
          if (res.statusCode === 409) next--;
          else statuses.push(res.statusCode);
        }
      }),
    );
    expect(statuses).toHaveLength(1000);
    expect(new Set(statuses)).toEqual(new Set([200]));
    for (let i = 0; i < FRESH_KEY_RETRIES; i++) expect((await send(records)).statusCode).toBe(200);
    expect(await count()).toEqual({ samples: 47, measurements: 1, readings: 2 });
    expect((await db().select().from(idempotencyKeys)).length).toBe(1 + FRESH_KEY_RETRIES);
  }, 300_000);

  it("answers a reused client id with other contents as a conflict of that record only", async () => {
    const m = rrMeasurement();
    const r = bpReading();
    const s = sample();
    await send([m, r, s]);
    const res = await send([
      { ...m, rr_ms: RR.slice(0, 60) },
      { ...r, systolic: 150 },
      { ...s, value: 70 },
      sample({ client_id: "00000000-0000-4000-8000-000000000001" }),
      sample({ client_id: "00000000-0000-4000-8000-000000000001" }),
      sample({ client_id: "00000000-0000-4000-8000-000000000002", value: 62 }),
      sample({ client_id: "00000000-0000-4000-8000-000000000002", value: 63 }),
    ]);
    const results = (res.json() as IngestResponse).results;
    expect(results.map((x) => [x.status, x.code])).toEqual([
      ["rejected", "conflict"],
      ["rejected", "conflict"],
      // A sample is an upsert by its id: a new value under an old id is a correction.
      ["stored", undefined],
      ["stored", undefined],
      ["stored", undefined],
      ["stored", undefined],
      ["rejected", "conflict"],
    ]);
    expect(await count()).toEqual({ samples: 3, measurements: 1, readings: 1 });
    const corrected = (await db().select().from(dashboardValues)).find((v) => v.clientId === s.client_id);
    expect(corrected?.value).toBe(70);
  });

  it("takes only the person's API token and writes only their data (A1)", async () => {
    const other = await createTestUser(app.ctx.database);
    const otherToken = await tokenOf(other);
    const refusals = [
      await send([sample()], randomUUID(), ""),
      await send([sample()], randomUUID(), `Token ${app.ctx.config.APP_TOKEN}`),
      await send([sample()], randomUUID(), "Token tok_unknown"),
      // A signed-in browser without a token: cookies are ignored here.
      await owner.client(app).post(API.ingest, { records: [sample()] }, { "idempotency-key": randomUUID() }),
    ];
    const link = (
      await owner.client(app).post(API.shareLinks, { kind: "bp_log", target_id: BP_LOG_SHARE_TARGET })
    ).json() as ShareLinkCreated;
    refusals.push(await send([sample()], randomUUID(), `Token ${link.token}`));
    for (const res of refusals) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toMatchObject({ code: "not_authenticated" });
    }
    // The same key and client ids from two people are two people's data.
    const records = [sample({ client_id: "00000000-0000-4000-8000-00000000000a" })];
    expect((await send(records, "shared-key")).statusCode).toBe(200);
    const theirs = await send(records, "shared-key", `Token ${otherToken}`);
    expect(theirs.headers["idempotent-replayed"]).toBeUndefined();
    const rows = await db().select().from(dashboardValues);
    expect(rows.map((v) => v.userId).sort()).toEqual([owner.userId, other.userId].sort());
    // A revoked token stops at once.
    const tokens = (await owner.client(app).get(API.apiTokens)).json() as { results: { id: string }[] };
    await owner.client(app).delete(API.apiToken.replace(":id", tokens.results[0]?.id ?? ""));
    expect((await send([sample()])).statusCode).toBe(403);
  });

  it("refuses malformed batches as a whole with a 400 and stores nothing", async () => {
    const tooMany = Array.from({ length: INGEST_LIMITS.maxRecords + 1 }, () => sample());
    const tooManyRr = Array.from({ length: INGEST_LIMITS.maxMeasurements + 1 }, () => rrMeasurement());
    for (const body of [[], tooMany, tooManyRr, { records: "x" }, { batch: [sample()] }, sample(), null]) {
      const res = await send(body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json()).toMatchObject({ code: "validation_failed" });
    }
    expect(await count()).toEqual({ samples: 0, measurements: 0, readings: 0 });
  });

  it("answers hostile records and bodies without a 5xx; every refused record is reported, nothing else stored (Z)", async () => {
    const json = z.toJSONSchema(IngestRecordSchema, { io: "input", unrepresentable: "any" }) as {
      oneOf: { properties: Record<string, unknown> }[];
    };
    const valid = [sample(), rrMeasurement({ rr_ms: RR.slice(0, 40) }), bpReading()];
    const keys = json.oneOf.map((o) => Object.keys(o.properties));
    const hostileValue = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(
        Number.NaN,
        Number.POSITIVE_INFINITY,
        2 ** 53,
        -0,
        -1,
        1e308,
        null,
        true,
        [],
        {},
        "__proto__",
      ),
      fc.string({ maxLength: 300 }),
      fc.constant("x".repeat(100_000)),
    );
    const record = fc.oneof(
      fc.integer({ min: 0, max: 2 }).map((which) => ({ ...valid[which], client_id: randomUUID() })),
      fc
        .record({ which: fc.integer({ min: 0, max: 2 }), k: fc.nat(), value: hostileValue })
        .map(({ which, k, value }) => {
          const base = { ...valid[which], client_id: randomUUID() };
          const names = keys[which] ?? [];
          return { ...base, [names[k % names.length] ?? "type"]: value };
        }),
      fc.jsonValue(),
    );
    const body = fc.oneof(
      fc.array(record, { minLength: 1, maxLength: 5 }).map((records) => ({ records })),
      fc.jsonValue(),
      fc.dictionary(fc.constantFrom("records", "__proto__", "constructor"), fc.jsonValue()),
    );
    let storedSamples = 0;
    let created = 0;
    for (const b of fc.sample(body, { numRuns: FUZZ_RUNS, seed: 7 })) {
      const wire = JSON.stringify(b) ?? "null";
      const res = await app.inject({
        method: "POST",
        url: API.ingest,
        headers: {
          "content-type": "application/json",
          authorization: `Token ${token}`,
          "idempotency-key": randomUUID(),
        },
        payload: wire,
      });
      expect(res.statusCode, `${wire.slice(0, 200)} → ${res.body}`).toBeLessThan(500);
      if (res.statusCode !== 200) {
        expect(res.statusCode).toBeGreaterThanOrEqual(400);
        const err = res.json() as { error?: unknown; code?: unknown };
        expect(typeof err.error === "string" && typeof err.code === "string", res.body).toBe(true);
        continue;
      }
      const sent = (JSON.parse(wire) as { records: unknown[] }).records;
      const results = (res.json() as IngestResponse).results;
      expect(results).toHaveLength(sent.length);
      results.forEach((r: IngestRecordResult, i) => {
        expect(r.index).toBe(i);
        const accepted = IngestRecordSchema.safeParse(sent[i]).success;
        if (!accepted) expect(r.status, JSON.stringify(sent[i]).slice(0, 200)).toBe("rejected");
        if (r.status === "rejected") expect(typeof r.code).toBe("string");
        if (r.status === "stored") storedSamples++;
        if (r.status === "created") created++;
      });
    }
    expect(storedSamples).toBeGreaterThan(0);
    const stored = await count();
    expect(stored.samples).toBe(storedSamples);
    expect(stored.measurements + stored.readings).toBe(created);
  }, 600_000);
});
