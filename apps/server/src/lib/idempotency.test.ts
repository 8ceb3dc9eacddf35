import { API, type MeasurementDetail } from "@tonus/contract";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../app.ts";
import { idempotencyKeys, measurements } from "../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../test/databases.ts";
import { buildTestApp } from "../test/harness.ts";
import { SHORT_RR } from "../test/rr-fixtures.ts";
import { createTestUser, type TestUser } from "../test/users.ts";
import {
  IDEMPOTENCY_PRUNE_JOB,
  idempotencyLockId,
  pruneIdempotencyKeys,
  requestFingerprint,
  runIdempotent,
} from "./idempotency.ts";
import { deleteUserData, registryEnv } from "./registry.ts";

/**
 * RELIABILITY F2 on the measurement upload: the Idempotency-Key contract of the IETF draft (replay,
 * 422 for another request under the same key, 409 while the first is still running, ≥ 24 h retention).
 */

const RR = SHORT_RR;

let seq = 0;
const upload = (overrides: Record<string, unknown> = {}) => ({
  client_id: `00000000-0000-4000-8000-${String(++seq).padStart(12, "0")}`,
  rr_ms: RR,
  source: "app",
  started_at: "2026-11-20T07:30:00Z",
  time_zone: "UTC",
  ...overrides,
});

describe.each(BACKENDS)("Idempotency-Key on %s (F2)", (backend) => {
  let app: App;
  let owner: TestUser;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    owner = await createTestUser(app.ctx.database);
  });

  const post = (body: unknown, key?: string) =>
    owner.client(app).post(API.measurements, body, key === undefined ? {} : { "idempotency-key": key });
  const rows = async () => (await app.ctx.database.db.select().from(measurements)).length;
  const keys = async () => app.ctx.database.db.select().from(idempotencyKeys);

  it("replays the stored answer for the same key and body, marked as a replay, and stores once", async () => {
    const body = upload();
    const first = await post(body, "key-1");
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    // Keys in another order are the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await post(reordered, "key-1");
    expect(again.statusCode).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toEqual(first.json());
    expect(await rows()).toBe(1);
    expect(await keys()).toHaveLength(1);
    // Without the key the client id still dedupes (a plain retry: 200 with the same measurement).
    const plain = await post(body);
    expect(plain.statusCode).toBe(200);
    expect((plain.json() as MeasurementDetail).id).toBe((first.json() as MeasurementDetail).id);
  });

  it("refuses the same key with a different body with a 422 and changes nothing", async () => {
    expect((await post(upload(), "key-2")).statusCode).toBe(201);
    const other = await post(upload(), "key-2");
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: "idempotency_mismatch" });
    expect(await rows()).toBe(1);
    // Another user may use the same key for their own request.
    const stranger = await createTestUser(app.ctx.database);
    const theirs = await stranger
      .client(app)
      .post(API.measurements, upload(), { "idempotency-key": "key-2" });
    expect(theirs.statusCode).toBe(201);
  });

  it("answers 409 while a request with the same key is still being worked on", async () => {
    const body = upload();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const fingerprint = requestFingerprint({
      method: "POST",
      routeOptions: { url: API.measurements } as never,
      body,
    });
    const claim = { db: app.ctx.database.db, userId: owner.userId, key: "key-3", fingerprint };
    const slow = runIdempotent(claim, async () => {
      started();
      await held;
      return { status: 201, body: { held: true } };
    });
    await running;
    await expect(runIdempotent(claim, async () => ({ status: 201, body: {} }))).rejects.toMatchObject({
      code: "idempotency_in_progress",
      status: 409,
    });
    // Over HTTP (PostgreSQL: PGlite's one connection makes every other request wait for the open
    // transaction, so there the second request only ever sees the finished answer).
    if (backend === "postgres") {
      const second = await post(body, "key-3");
      expect(second.statusCode).toBe(409);
      expect(second.json()).toMatchObject({ code: "idempotency_in_progress" });
      expect(second.headers["retry-after"]).toBe("1");
    }
    release();
    await slow;
    // Once the first is done its answer is replayed.
    const third = await post(body, "key-3");
    expect(third.statusCode).toBe(201);
    expect(third.json()).toEqual({ held: true });
    expect(await rows()).toBe(0);
  });

  it.runIf(backend === "postgres")(
    "answers 409 while another server's transaction holds the key (advisory lock)",
    async () => {
      const other = new pg.Client({ connectionString: app.ctx.database.connectionString });
      await other.connect();
      try {
        await other.query("select pg_advisory_lock($1::bigint)", [idempotencyLockId(owner.userId, "key-4")]);
        const res = await post(upload(), "key-4");
        expect(res.statusCode).toBe(409);
        await other.query("select pg_advisory_unlock($1::bigint)", [
          idempotencyLockId(owner.userId, "key-4"),
        ]);
        expect((await post(upload(), "key-4")).statusCode).toBe(201);
      } finally {
        await other.end();
      }
    },
  );

  it("gives two simultaneous requests one answer: the other waits its turn (409) or gets the replay", async () => {
    const body = upload();
    const results = await Promise.all([post(body, "key-5"), post(body, "key-5")]);
    const fresh = results.filter((r) => r.statusCode === 201 && !r.headers["idempotent-replayed"]);
    expect(fresh).toHaveLength(1);
    for (const r of results) {
      if (r === fresh[0]) continue;
      if (r.statusCode === 409) expect(r.json()).toMatchObject({ code: "idempotency_in_progress" });
      else expect(r.json()).toEqual(fresh[0]?.json());
    }
    expect(await rows()).toBe(1);
  });

  it("stores nothing for a refused request, so the key can carry the corrected one", async () => {
    const bad = await post(upload({ started_at: "2099-01-01T00:00:00Z" }), "key-6");
    expect(bad.statusCode).toBe(400);
    expect(await keys()).toHaveLength(0);
    expect((await post(upload(), "key-6")).statusCode).toBe(201);
  });

  it("refuses malformed keys with a 400", async () => {
    for (const key of ["", "with space", "x".repeat(256), "ключ"]) {
      const res = await owner
        .client(app)
        .request("POST", API.measurements, { body: upload(), headers: { "idempotency-key": key } });
      expect(res.statusCode, JSON.stringify(key)).toBe(400);
      expect(res.json()).toMatchObject({ code: "validation_failed" });
    }
    expect(await rows()).toBe(0);
  });

  it("keeps answers for 24 hours, prunes them after, and deletes them with the account", async () => {
    const body = upload();
    await post(body, "key-7");
    const db = app.ctx.database.db;
    await db.execute(sql`update idempotency_keys set created_at = now() - interval '23 hours'`);
    expect(await pruneIdempotencyKeys(db)).toBe(0);
    expect((await post(body, "key-7")).headers["idempotent-replayed"]).toBe("true");
    await db.execute(sql`update idempotency_keys set created_at = now() - interval '25 hours'`);
    expect(await pruneIdempotencyKeys(db)).toBe(1);
    // After pruning the key is new again; the client id still keeps the measurement single.
    const late = await post(body, "key-7");
    expect(late.statusCode).toBe(200);
    expect(await rows()).toBe(1);
    expect(app.ctx.services.jobs.boss).toBeDefined();
    const schedules = await app.ctx.services.jobs.boss.getSchedules();
    expect(schedules.map((s) => s.name)).toContain(IDEMPOTENCY_PRUNE_JOB);
    await deleteUserData(registryEnv(app.ctx), owner.userId);
    expect(await keys()).toHaveLength(0);
  });
});
