import {
  API,
  type MeasurementDetail,
  type MeasurementList,
  MeasurementUploadSchema,
  type ShareLinkCreated,
} from "@tonus/contract";
import { analyzeRr } from "@tonus/hrv";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { App } from "../../app.ts";
import {
  auditLog,
  dashboardValuesAll,
  measurements,
  outboxEvents,
  shareLinks,
  users,
} from "../../db/schema.ts";
import { deleteUserData, exportUserData, importUserData, registryEnv } from "../../lib/registry.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TestClient } from "../../test/harness.ts";
import { rrFixture } from "../../test/rr-fixtures.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { MEASUREMENT_ALGORITHM_VERSION } from "./measurements.compute.ts";
import { recomputeStale } from "./measurements.recompute.ts";

const CLEAN_5MIN = rrFixture("ltdb_14157_clean_5min_rr.csv");
const SHORT_100 = rrFixture("welltory_4f2e5c4333_rr.csv");
const RUNS = process.env.TONUS_HEAVY ? 10_000 : 150;

const url = (id: string) => API.measurement.replace(":id", id);
let seq = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++seq).padStart(12, "0")}`;

function upload(overrides: Record<string, unknown> = {}) {
  return {
    client_id: uuid(),
    rr_ms: CLEAN_5MIN,
    source: "strap",
    device: "Polar H10",
    started_at: "2026-11-20T07:30:00Z",
    time_zone: "Europe/Moscow",
    feel: 4,
    mood: 3,
    tags: ["morning", "coffee"],
    ...overrides,
  };
}

describe.each(BACKENDS)("measurements on %s", (backend) => {
  let app: App;
  let owner: TestUser;
  let other: TestUser;
  let client: TestClient;

  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    owner = await createTestUser(app.ctx.database, {
      dateOfBirth: "1990-05-01",
      heightCm: 180,
      weightKg: 75,
      isCustomerOverride: true,
    });
    other = await createTestUser(app.ctx.database);
    client = owner.client(app);
  });

  const rowCount = async () => (await app.ctx.database.db.select().from(measurements)).length;

  async function create(overrides: Record<string, unknown> = {}, as = client): Promise<MeasurementDetail> {
    const res = await as.post(API.measurements, upload(overrides));
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as MeasurementDetail;
  }

  it("recomputes every value from the raw RR and ignores the client's numbers", async () => {
    const res = await client.post(
      API.measurements,
      upload({ rmssd: 999, heart_rate: 1, stress: 0, energy: 100, algorithm_version: "client", id: uuid() }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const m = res.json() as MeasurementDetail;
    const expected = analyzeRr(CLEAN_5MIN);
    const series = expected.corrected ?? expected.raw;
    expect(m.rmssd).toBeCloseTo(series?.timeDomain.rmssd ?? 0, 6);
    expect(m.heart_rate).toBeCloseTo(series?.timeDomain.hrBpm ?? 0, 6);
    expect(m.total_beats).toBe(series?.timeDomain.beats);
    expect(m.hf).toBeCloseTo(series?.frequency?.hfMs2 ?? 0, 3);
    expect(m.algorithm_version).toBe(MEASUREMENT_ALGORITHM_VERSION);
    expect(m.stress).not.toBe(0);
    expect(m.stress).toBeGreaterThan(0);
    expect(m.stress).toBeLessThan(100);
    expect(m.quality).toBe("ok");
    expect(m.rr_ms).toEqual(CLEAN_5MIN);
    expect(m.spectrum?.frequency_hz.length).toBeGreaterThan(10);
    expect(m).toMatchObject({
      source: "strap",
      device: "Polar H10",
      feel: 4,
      mood: 3,
      tags: ["morning", "coffee"],
    });
    expect(m.id).not.toBe(m.client_id);
    // The dashboard got the values in storage units, and the event was written.
    const values = await app.ctx.database.db
      .select()
      .from(dashboardValuesAll)
      .where(eq(dashboardValuesAll.userId, owner.userId));
    const rmssd = values.find((v) => v.metric === "rmssd");
    expect(rmssd?.value).toBeCloseTo((m.rmssd ?? 0) / 1000, 9);
    expect(values.find((v) => v.metric === "heart_rate")?.value).toBeCloseTo(m.heart_rate ?? 0, 9);
    const events = await app.ctx.database.db.select().from(outboxEvents);
    expect(events.filter((e) => e.type === "measurement.created")).toHaveLength(1);
    expect(events[0]?.payload).toMatchObject({ measurement_id: m.id });
  });

  it("stores a retried upload once and answers it with the same measurement", async () => {
    const body = upload();
    const first = await client.post(API.measurements, body);
    expect(first.statusCode).toBe(201);
    const again = await Promise.all([
      client.post(API.measurements, body),
      client.post(API.measurements, body),
      client.post(API.measurements, { ...body, rmssd: 5 }),
    ]);
    for (const res of again) {
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json() as MeasurementDetail).id).toBe((first.json() as MeasurementDetail).id);
    }
    expect(await rowCount()).toBe(1);
    const events = await app.ctx.database.db.select().from(outboxEvents);
    expect(events.filter((e) => e.type === "measurement.created")).toHaveLength(1);
    // The same client id with another series is a conflict, not a silent overwrite.
    const clash = await client.post(API.measurements, { ...body, rr_ms: SHORT_100 });
    expect(clash.statusCode).toBe(409);
    // A reason the offline queue reads: retrying cannot help (unlike a concurrent store's conflict).
    expect(clash.json()).toMatchObject({ code: "conflict", reason: "client_id_taken" });
    // Another user may use the same client id: it is per user.
    expect((await other.client(app).post(API.measurements, body)).statusCode).toBe(201);
    expect(await rowCount()).toBe(2);
  });

  it("takes no successive difference across the upload's breaks and keeps them with the series", async () => {
    const breaks = [50, 120, 200];
    const m = await create({ rr_ms: CLEAN_5MIN, rr_breaks: breaks, source: "camera" });
    const expected = analyzeRr(CLEAN_5MIN, { breaks });
    const series = expected.corrected ?? expected.raw;
    expect(m.rmssd).toBeCloseTo(series?.timeDomain.rmssd ?? 0, 9);
    expect(m.pnn50).toBeCloseTo(series?.timeDomain.pnn50Pct ?? 0, 9);
    expect(series?.timeDomain.pairs).toBe(CLEAN_5MIN.length - 1 - breaks.length);
    const joined = analyzeRr(CLEAN_5MIN);
    expect(m.rmssd).not.toBeCloseTo((joined.corrected ?? joined.raw)?.timeDomain.rmssd ?? 0, 6);
    expect(m.rr_breaks).toEqual(breaks);
    expect(((await client.get(url(m.id))).json() as MeasurementDetail).rr_breaks).toEqual(breaks);
    // Without breaks the detail says so.
    expect((await create()).rr_breaks).toEqual([]);
    // A retry with other breaks is another measurement under the same id: a conflict.
    const clash = await client.post(API.measurements, upload({ client_id: m.client_id, rr_breaks: [51] }));
    expect(clash.statusCode).toBe(409);
    // The recompute keeps using them.
    const { db } = app.ctx.database;
    await db.update(measurements).set({ algorithmVersion: "old" }).where(eq(measurements.id, m.id));
    await recomputeStale(db);
    expect(((await client.get(url(m.id))).json() as MeasurementDetail).rmssd).toBeCloseTo(m.rmssd ?? 0, 9);
  });

  it("refuses breaks out of order, past the series or too many to leave pairs, and stores nothing", async () => {
    const short = CLEAN_5MIN.slice(0, 40);
    for (const rr_breaks of [
      [5, 5],
      [9, 3],
      [0],
      [40],
      [1.5],
      ["3"],
      Array.from({ length: 30 }, (_, i) => i + 1),
    ]) {
      const res = await client.post(API.measurements, upload({ rr_ms: short, rr_breaks }));
      expect(res.statusCode, JSON.stringify(rr_breaks)).toBe(400);
      expect(res.json()).toMatchObject({ code: "validation_failed" });
    }
    expect(await rowCount()).toBe(0);
  });

  it("answers conflicts and refused uploads in Russian for a Russian browser", async () => {
    const ru = { "accept-language": "ru-RU,ru;q=0.9,en;q=0.8" };
    const body = upload();
    await client.post(API.measurements, body);
    const clash = await client.post(API.measurements, { ...body, rr_ms: SHORT_100 }, ru);
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toMatchObject({
      code: "conflict",
      error: "Это противоречит уже сохранённым данным",
    });
    const future = await client.post(API.measurements, upload({ started_at: "2099-01-01T00:00:00Z" }), ru);
    expect(future.json()).toMatchObject({
      code: "validation_failed",
      error: "Проверьте данные и попробуйте ещё раз",
      issues: [{ path: "started_at" }],
    });
    // English keeps the specific message.
    const en = await client.post(API.measurements, { ...body, rr_ms: SHORT_100 });
    expect(en.json()).toMatchObject({ error: "This client_id already names another measurement" });
  });

  it("refuses malformed RR series with a 400 in the error shape and stores nothing", async () => {
    const bad: unknown[] = [
      [],
      CLEAN_5MIN.slice(0, 19),
      [...CLEAN_5MIN.slice(0, 30), -800],
      [...CLEAN_5MIN.slice(0, 30), 0],
      [...CLEAN_5MIN.slice(0, 30), 1e9],
      [...CLEAN_5MIN.slice(0, 30), "800"],
      [...CLEAN_5MIN.slice(0, 30), null],
      Array.from({ length: 5001 }, () => 800),
      Array.from({ length: 1000 }, () => 4000),
      "800,810,790",
      null,
    ];
    for (const rr of bad) {
      const res = await client.post(API.measurements, upload({ rr_ms: rr }));
      expect(res.statusCode, JSON.stringify(rr).slice(0, 80)).toBe(400);
      expect(res.json()).toMatchObject({ code: "validation_failed" });
      expect(typeof (res.json() as { error: unknown }).error).toBe("string");
    }
    for (const started of ["2099-01-01T00:00:00Z", "1999-12-31T23:00:00Z", "yesterday"]) {
      const res = await client.post(API.measurements, upload({ started_at: started }));
      expect(res.statusCode, started).toBe(400);
    }
    for (const extra of [
      { client_id: "not-a-uuid" },
      { source: "telepathy" },
      { time_zone: "Mars/Olympus" },
    ]) {
      expect((await client.post(API.measurements, upload(extra))).statusCode).toBe(400);
    }
    expect(await rowCount()).toBe(0);
    expect(await app.ctx.database.db.select().from(dashboardValuesAll)).toEqual([]);
    expect(await app.ctx.database.db.select().from(outboxEvents)).toEqual([]);
  });

  it("lists by period and tags with paging, edits what the person said, deletes with the values", async () => {
    const a = await create({ started_at: "2026-11-01T08:00:00Z", tags: ["morning"] });
    const b = await create({ started_at: "2026-11-10T08:00:00Z", tags: ["morning", "run"] });
    await create({ started_at: "2026-11-20T08:00:00Z", tags: ["evening"] });
    const list = async (q: string) =>
      (await client.get(`${API.measurements}?${q}`)).json() as MeasurementList;
    expect((await list("")).results.map((m) => m.started_at)).toEqual([
      "2026-11-20T08:00:00.000Z",
      "2026-11-10T08:00:00.000Z",
      "2026-11-01T08:00:00.000Z",
    ]);
    expect((await list("tags=morning")).results.map((m) => m.id)).toEqual([b.id, a.id]);
    expect((await list("tags=morning,run")).results.map((m) => m.id)).toEqual([b.id]);
    const period = await list("from=2026-11-05T00:00:00Z&to=2026-11-15T00:00:00Z");
    expect(period.results.map((m) => m.id)).toEqual([b.id]);
    const page = await list("limit=1&offset=1");
    expect(page).toMatchObject({ count: 3, limit: 1, offset: 1 });
    expect(page.results.map((m) => m.id)).toEqual([b.id]);
    expect((await client.get(`${API.measurements}?limit=0`)).statusCode).toBe(400);

    const edited = await client.request("PATCH", url(a.id), {
      body: { feel: 2, mood: null, tags: ["tired", "tired"], labels: ["after night shift"] },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({
      feel: 2,
      mood: null,
      tags: ["tired"],
      labels: ["after night shift"],
    });
    expect((edited.json() as MeasurementDetail).rmssd).toBe(a.rmssd);
    const computed = await client.request("PATCH", url(a.id), { body: { rmssd: 1 } });
    expect(computed.statusCode).toBe(400);

    expect((await client.delete(url(a.id))).statusCode).toBe(200);
    expect((await client.get(url(a.id))).statusCode).toBe(404);
    expect((await client.delete(url(a.id))).statusCode).toBe(404);
    const left = await app.ctx.database.db.select().from(dashboardValuesAll);
    expect(left.some((v) => v.clientId.startsWith(a.id))).toBe(false);
    expect(left.some((v) => v.clientId.startsWith(b.id))).toBe(true);
  });

  it("withholds the PRO decoding from a free user with a 200 and a locked flag, never a 403 (A5)", async () => {
    for (const [i, started] of ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"].entries()) {
      await create({ started_at: `${started}T07:00:00Z`, rr_ms: i % 2 ? CLEAN_5MIN : CLEAN_5MIN.slice(1) });
    }
    const latest = (await client.get(`${API.measurements}?limit=1`)).json() as MeasurementList;
    const id = latest.results[0]?.id ?? "";
    const paid = (await client.get(url(id))).json() as MeasurementDetail;
    expect(paid.decoding_locked).toBe(false);
    const rmssd = paid.decoding?.find((d) => d.parameter === "rmssd");
    expect(rmssd?.norm).toEqual({ low: 19, high: 75 });
    expect(rmssd?.baseline?.count).toBe(3);
    expect(rmssd?.baseline_zone).not.toBeNull();

    await app.ctx.database.db
      .update(users)
      .set({ isCustomerOverride: false })
      .where(eq(users.id, owner.userId));
    const res = await client.get(url(id));
    expect(res.statusCode).toBe(200);
    const free = res.json() as MeasurementDetail;
    expect(free).toMatchObject({ decoding_locked: true, decoding: null });
    expect(free.rmssd).toBe(paid.rmssd);
  });

  it("marks short and artifact-ridden series with the codes of the spec's texts", async () => {
    const short = await create({ rr_ms: SHORT_100 });
    expect(short.quality).toBe("not_enough_data");
    expect(short.spectrum).toBeNull();
    expect(short.lf).toBeNull();
    expect(short.issues.map((i) => i.code)).toContain("too_short_for_frequency");
    // A premature beat and its compensatory pause every eighth beat: ~25 % of the beats need correcting.
    const noisy = CLEAN_5MIN.map((rr, i) => (i % 8 === 0 ? rr * 0.5 : i % 8 === 1 ? rr * 1.5 : rr));
    const bad = await create({ rr_ms: noisy });
    expect(bad.quality).toBe("bad_data");
    expect(bad.decoding).toBeNull();
    expect(bad.corrected_beats.length).toBeGreaterThan(0);
  });

  it("computes blood-pressure indices from the reading within 30 minutes, also when it comes later", async () => {
    const near = await client.post(API.bpReadings, {
      systolic: 120,
      diastolic: 80,
      pulse: 64,
      measured_at: "2026-11-20T07:50:00Z",
      time_zone: "Europe/Moscow",
    });
    expect(near.statusCode, near.body).toBe(201);
    const m = await create();
    expect(m.bp).toMatchObject({ systolic: 120, diastolic: 80, category: "normal" });
    const hr = m.heart_rate ?? 0;
    expect(m.kerdo).toBeCloseTo((1 - 80 / hr) * 100, 6);
    expect(m.robinson).toBeCloseTo((hr * 120) / 100, 6);
    expect(m.kek).toBeCloseTo(40 * hr, 6);
    expect(m.functional_changes).not.toBeNull();
    expect(m.phys_state).not.toBeNull();

    const lonely = await create({ started_at: "2026-11-21T07:30:00Z" });
    expect(lonely.bp).toBeNull();
    expect(lonely.kerdo).toBeNull();
    expect(lonely.issues.map((i) => i.code)).toContain("no_bp_reading");
    // Too far away: 31 minutes.
    await client.post(API.bpReadings, {
      systolic: 150,
      diastolic: 95,
      measured_at: "2026-11-21T08:01:00Z",
      time_zone: "Europe/Moscow",
    });
    await client.post(API.bpReadings, {
      systolic: 130,
      diastolic: 85,
      measured_at: "2026-11-21T07:20:00Z",
      time_zone: "Europe/Moscow",
    });
    await app.ctx.services.events.dispatchPending();
    const after = (await client.get(url(lonely.id))).json() as MeasurementDetail;
    expect(after.bp).toMatchObject({ systolic: 130, diastolic: 85, category: "high_normal" });
    expect(after.kerdo).toBeCloseTo((1 - 85 / (after.heart_rate ?? 0)) * 100, 6);
    // Deleting the reading takes the indices away again.
    const readingId = after.bp?.reading_id ?? "";
    expect((await client.delete(API.bpReading.replace(":id", readingId))).statusCode).toBe(200);
    await app.ctx.services.events.dispatchPending();
    const gone = (await client.get(url(lonely.id))).json() as MeasurementDetail;
    expect(gone.bp).toBeNull();
    expect(gone.kerdo).toBeNull();
  });

  it("recomputes stale rows in resumable batches (algorithm change, archive import)", async () => {
    const a = await create({ started_at: "2026-11-01T08:00:00Z" });
    const b = await create({ started_at: "2026-11-02T08:00:00Z" });
    const c = await create({ started_at: "2026-11-03T08:00:00Z" });
    const { db } = app.ctx.database;
    await db.update(measurements).set({ algorithmVersion: "rr-0.9.0" }).where(eq(measurements.id, a.id));
    await db
      .update(measurements)
      .set({ algorithmVersion: "", result: null })
      .where(eq(measurements.id, b.id));
    const pending = (await client.get(url(b.id))).json() as MeasurementDetail;
    expect(pending.issues).toEqual([{ code: "pending_recompute" }]);
    const first = await recomputeStale(db, { batch: 1, maxRows: 1 });
    expect(first).toMatchObject({ done: 1, remaining: 1 });
    const rest = await recomputeStale(db, { afterId: first.lastId });
    expect(rest).toMatchObject({ done: 1, remaining: 0, lastId: null });
    for (const m of [a, b, c]) {
      const now = (await client.get(url(m.id))).json() as MeasurementDetail;
      expect(now.algorithm_version).toBe(MEASUREMENT_ALGORITHM_VERSION);
      expect(now.rmssd).toBeCloseTo(m.rmssd ?? 0, 9);
    }
  });

  it("travels in the account archive as recorded and is recomputed after an import", async () => {
    const m = await create({ tags: ["a"], feel: 2, rr_breaks: [10, 90] });
    const { db } = app.ctx.database;
    const valuesBefore = (await db.select().from(dashboardValuesAll)).length;
    const env = registryEnv(app.ctx);
    const archive = JSON.parse(JSON.stringify(await exportUserData(env, owner.userId)));
    await deleteUserData(env, owner.userId);
    expect(await rowCount()).toBe(0);
    expect(await db.select().from(dashboardValuesAll)).toEqual([]);
    // An edited archive cannot plant computed values: they are not imported.
    archive.sections.measurements.tables.measurements[0].result = { values: { rmssd: 1 } };
    await importUserData(env, archive);
    const [imported] = await db.select().from(measurements);
    expect(imported).toMatchObject({
      clientId: m.client_id,
      tags: ["a"],
      feel: 2,
      rrBreaks: [10, 90],
      result: null,
    });
    expect(await recomputeStale(db)).toMatchObject({ done: 1, remaining: 0 });
    const [after] = await db.select().from(measurements);
    const recomputed = after?.result as { values: { rmssd: number } } | null | undefined;
    expect(recomputed?.values.rmssd).toBeCloseTo(m.rmssd ?? 0, 9);
    expect((await db.select().from(dashboardValuesAll)).length).toBe(valuesBefore);
  });

  it("answers other users' measurements with the same 404 as unknown ids and changes nothing (A1)", async () => {
    const mine = await create();
    const intruder = other.client(app);
    const unknown = await intruder.get(url("00000000-0000-4000-8000-999999999999"));
    const strip = (body: string) => {
      const { requestId: _r, ...rest } = JSON.parse(body) as Record<string, unknown>;
      return rest;
    };
    for (const res of [
      await intruder.get(url(mine.id)),
      await intruder.request("PATCH", url(mine.id), { body: { feel: 1 } }),
      await intruder.delete(url(mine.id)),
      await intruder.get(url("not-a-uuid")),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(strip(res.body)).toEqual(strip(unknown.body));
    }
    expect(((await intruder.get(API.measurements)).json() as MeasurementList).results).toEqual([]);
    const anonymous = new TestClient(app);
    expect((await anonymous.get(url(mine.id))).statusCode).toBe(403);
    expect((await anonymous.get(API.measurements)).statusCode).toBe(403);
    const still = (await client.get(url(mine.id))).json() as MeasurementDetail;
    expect(still.feel).toBe(4);
    const share = await intruder.post(API.shareLinks, { kind: "measurement", target_id: mine.id });
    expect(share.statusCode).toBe(404);
  });

  it("opens exactly one measurement with its share link, read-only, until revoked (A2)", async () => {
    const shared = await create();
    const hidden = await create({ started_at: "2026-11-21T07:30:00Z" });
    const res = await client.post(API.shareLinks, { kind: "measurement", target_id: shared.id });
    expect(res.statusCode, res.body).toBe(200);
    const link = res.json() as ShareLinkCreated;
    const withToken = (method: "GET" | "PATCH" | "DELETE" | "POST", target: string) =>
      app.inject({
        method,
        url: target,
        headers: { authorization: `Token ${link.token}` },
        ...(method === "GET" ? {} : { payload: {} }),
      });
    const view = await withToken("GET", API.sharedMeasurement);
    expect(view.statusCode, view.body).toBe(200);
    expect((view.json() as MeasurementDetail).id).toBe(shared.id);
    expect(view.headers["x-robots-tag"]).toContain("noindex");
    expect(view.headers["referrer-policy"]).toBe("no-referrer");
    // Nothing else: not the list, not another measurement, not the owner's own routes, no writes.
    for (const [method, target] of [
      ["GET", API.measurements],
      ["GET", url(shared.id)],
      ["GET", url(hidden.id)],
      ["GET", API.bpReadings],
      ["GET", API.profile],
      ["PATCH", url(shared.id)],
      ["DELETE", url(shared.id)],
      ["POST", API.measurements],
    ] as const) {
      const r = await withToken(method, target);
      expect(r.statusCode, `${method} ${target}`).toBe(403);
    }
    // Without a token the viewer opens nothing, signed in or not.
    expect((await new TestClient(app).get(API.sharedMeasurement)).statusCode).toBe(404);
    expect((await client.get(API.sharedMeasurement)).statusCode).toBe(404);
    // Revoked → the same 404 as an unknown link.
    expect((await client.delete(API.shareLink.replace(":id", link.id))).statusCode).toBe(200);
    const revoked = await withToken("GET", API.sharedMeasurement);
    expect(revoked.statusCode).toBe(404);
    // A deleted measurement is gone for its links too.
    const second = (await client.post(API.shareLinks, { kind: "measurement", target_id: hidden.id })).json();
    await client.delete(url(hidden.id));
    const afterDelete = await app.inject({
      method: "GET",
      url: API.sharedMeasurement,
      headers: { authorization: `Token ${(second as ShareLinkCreated).token}` },
    });
    expect(afterDelete.statusCode).toBe(404);
  });

  it("takes a deleted measurement's share links with it, in the owner's list too", async () => {
    const doomed = await create();
    const kept = await create({ started_at: "2026-11-21T07:30:00Z" });
    const share = async (targetId: string) =>
      (
        await client.post(API.shareLinks, { kind: "measurement", target_id: targetId })
      ).json() as ShareLinkCreated;
    const revoked = await share(doomed.id);
    expect((await client.delete(API.shareLink.replace(":id", revoked.id))).statusCode).toBe(200);
    const live = await share(doomed.id);
    const other = await share(kept.id);
    const listed = async () =>
      ((await client.get(API.shareLinks)).json() as { results: { id: string }[] }).results
        .map((l) => l.id)
        .sort();
    expect(await listed()).toEqual([revoked.id, live.id, other.id].sort());

    expect((await client.delete(url(doomed.id))).statusCode).toBe(200);
    expect(await listed()).toEqual([other.id]);
    const rows = await app.ctx.database.db.select().from(shareLinks);
    expect(rows.map((r) => r.id)).toEqual([other.id]);
    const audit = await app.ctx.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "share.revoked"));
    expect(
      audit
        .filter((a) => (a.meta as { reason?: string }).reason === "target_deleted")
        .map((a) => a.objectId)
        .sort(),
    ).toEqual([revoked.id, live.id].sort());
    const open = (token: string) =>
      app.inject({ method: "GET", url: API.sharedMeasurement, headers: { authorization: `Token ${token}` } });
    expect((await open(live.token)).statusCode).toBe(404);
    expect((await open(other.token)).statusCode).toBe(200);
  });

  it(
    "answers hostile list queries (from, to, tags, limit, offset) with a 4xx or a list, never a 5xx (Z1)",
    async () => {
      await create({ started_at: "2026-11-10T08:00:00Z", tags: ["morning"] });
      // Percent-encoded, so any byte can be sent: lone surrogates' UTF-8, NUL, invalid UTF-8.
      const raw = (s: string) =>
        [...new TextEncoder().encode(s)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
      const INSTANTS = [
        "2026-02-30T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "0000-01-01T00:00:00Z",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999Z",
        "275760-09-13T00:00:00Z",
        "2026-11-10T08:00:00%2B14:00",
        "2026-11-10T08:00:00-23:59",
        "2026-11-10T24:00:00Z",
        "2026-11-10T08:00:60Z",
        "2026-11-10",
        "1e400",
        "now",
      ];
      const NUMBERS = [
        "NaN",
        "Infinity",
        "-Infinity",
        "1e308",
        "-0",
        "2e53",
        "0x10",
        "1.5",
        "-1",
        "",
        "%207",
        "007",
      ];
      const TEXTS = [
        "%00",
        "a%00b",
        "%07",
        "%1B[31m",
        "%FF%FE",
        "%ED%A0%80",
        "%C0%AF",
        ",,,",
        "a,".repeat(500),
        "x".repeat(5000),
        "9".repeat(400),
        "%2C%2C",
        "__proto__",
        "constructor",
      ];
      const KEYS = ["from", "to", "tags", "limit", "offset", "tags[]", "limit[0]", "__proto__", "unknown"];
      const value = fc.oneof(
        fc.constantFrom(...INSTANTS, ...NUMBERS, ...TEXTS),
        fc.string({ maxLength: 60 }).map(raw),
        fc.string({ unit: "binary", maxLength: 40 }).map(raw),
      );
      const pair = fc.record({ key: fc.constantFrom(...KEYS), value });
      // Every listed value under every key, alone and twice over (a duplicated parameter), then random
      // combinations.
      const fixed = KEYS.flatMap((key) =>
        [...INSTANTS, ...NUMBERS, ...TEXTS].flatMap((v) => [
          [{ key, value: v }],
          [
            { key, value: v },
            { key, value: v },
          ],
        ]),
      );
      const random = fc.sample(fc.array(pair, { minLength: 1, maxLength: 4 }), { numRuns: RUNS, seed: 7 });
      const statuses = new Map<number, number>();
      for (const pairs of [...fixed, ...random]) {
        const query = pairs.map(({ key, value }) => `${key}=${value}`).join("&");
        const res = await client.request("GET", `${API.measurements}?${query}`);
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        expect(res.statusCode, `?${query.slice(0, 300)} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
        if (res.statusCode >= 400) {
          const err = res.json() as { error?: unknown; code?: unknown };
          expect(typeof err.error === "string" && typeof err.code === "string", res.body).toBe(true);
        } else expect(res.statusCode).toBe(200);
      }
      // Both kinds were exercised: refused queries and queries answered with a list.
      expect(statuses.get(400) ?? 0).toBeGreaterThan(RUNS / 10);
      expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    },
    process.env.TONUS_HEAVY ? 1_800_000 : 180_000,
  );

  it("answers bodies outside the contract's JSON Schema with a 4xx and stores nothing (Z)", async () => {
    const json = z.toJSONSchema(MeasurementUploadSchema, { io: "input", unrepresentable: "any" }) as {
      properties: Record<string, unknown>;
    };
    const keys = Object.keys(json.properties);
    const valid = upload({ rr_ms: CLEAN_5MIN.slice(0, 40) });
    const hostileValue = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, -0, -1, 1e308, null, true, [], {}),
      fc.array(fc.oneof(fc.double(), fc.integer(), fc.string()), { maxLength: 60 }),
      fc.string({ minLength: 0, maxLength: 300 }),
      fc.constant("x".repeat(100_000)),
    );
    const body = fc.oneof(
      fc.record({ key: fc.constantFrom(...keys), value: hostileValue }).map(({ key, value }) => ({
        ...valid,
        [key]: value,
      })),
      fc.constantFrom(...keys).map((key) => {
        const { [key as keyof typeof valid]: _drop, ...rest } = valid;
        return rest;
      }),
      fc.jsonValue(),
    );
    const bodies = fc.sample(body, { numRuns: RUNS, seed: 42 });
    let checked = 0;
    for (const b of bodies) {
      // Only bodies the contract refuses; JSON.stringify turns NaN/Infinity into null, as a client would.
      const wire = JSON.stringify(b) ?? "null";
      if (MeasurementUploadSchema.safeParse(JSON.parse(wire)).success) continue;
      const res = await client.request("POST", API.measurements, {
        payload: wire,
        headers: { "content-type": "application/json" },
      });
      expect(res.statusCode, `${wire.slice(0, 200)} → ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      const err = res.json() as { error?: unknown; code?: unknown };
      expect(typeof err.error === "string" && typeof err.code === "string").toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(RUNS / 2);
    expect(await rowCount()).toBe(0);
    expect(await app.ctx.database.db.select().from(dashboardValuesAll)).toEqual([]);
  });
});
