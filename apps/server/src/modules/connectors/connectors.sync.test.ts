/**
 * Cloud connector syncs against local stand-ins of the providers (standin/): they are not the
 * providers, but answer with responses written by hand from each provider's published documentation
 * (formats cited in providers/*.ts). Everything else is real: the app, PGlite and PostgreSQL, the write
 * path and its summaries, the bp log, the job runner.
 */
import type { ConnectorProvider, SyncReport } from "@tonus/contract";
import { API } from "@tonus/contract";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { bpReadings, connectorConnections } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { findProvider } from "./connectors.providers.ts";
import { syncConnection } from "./connectors.sync.ts";
import { fitbit } from "./providers/fitbit.ts";
import type { Standin } from "./standin/standin.ts";
import {
  connectionOf,
  connectThrough,
  providerEnv,
  startTestStandin,
  storedValues,
  testDeps,
} from "./standin/testkit.ts";

const PROVIDERS: ConnectorProvider[] = ["oura", "withings", "polar", "fitbit", "google_health", "whoop"];

describe.each(BACKENDS)("connector syncs on %s", (backend) => {
  let app: App;
  const standins = {} as Record<ConnectorProvider, Standin>;
  let user: TestUser;

  // The legacy Fitbit Web API was turned off on 2026-10-30 (providers/fitbit.ts); these tests exercise
  // the connector as it worked before that day. Its retirement has a test of its own.
  const fitbitRetiredOn = fitbit.retiredOn;
  beforeAll(() => {
    fitbit.retiredOn = undefined;
  });
  afterAll(() => {
    fitbit.retiredOn = fitbitRetiredOn;
  });
  beforeAll(async () => {
    let env: Record<string, string> = {};
    for (const p of PROVIDERS) {
      standins[p] = await startTestStandin(p);
      env = { ...env, ...providerEnv(p, standins[p]) };
    }
    // Jobs are sent, not worked: each test drives its syncs itself.
    app = await buildTestApp(await getTestDatabase(backend), env, { workJobs: false });
  });
  afterAll(async () => {
    await app.close();
    for (const s of Object.values(standins)) await s.close();
  });
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    user = await createTestUser(app.ctx.database, { timezone: "UTC", isCustomerOverride: true });
  });

  async function connectAndSync(provider: ConnectorProvider) {
    const { location } = await connectThrough(user.client(app), provider);
    expect(location).toMatch(/connect=ok/);
    const connection = await connectionOf(app, user.userId, provider);
    if (!connection) throw new Error("no connection stored");
    const { deps } = testDeps(app);
    const outcome = await syncConnection(deps, connection.id);
    expect(outcome.kind, JSON.stringify(outcome)).toBe("done");
    return { connection, report: (outcome as { report: SyncReport }).report, deps };
  }

  const days = (p: ConnectorProvider) => standins[p].fixture.days;

  it("maps Oura sleep, HRV, activity, SpO2 and heart rate to dashboard metrics in storage units", async () => {
    const { report } = await connectAndSync("oura");
    const [d0, d1, d2] = days("oura").map((d) => d.day);
    const v = await storedValues(app, user.userId, "oura");
    expect(v.sleep).toEqual([
      { at: `${d0}T07:00:00.000Z`, value: 25_200 },
      { at: `${d1}T07:00:00.000Z`, value: 25_800 },
      { at: `${d1}T14:30:00.000Z`, value: 1200 },
      { at: `${d2}T07:00:00.000Z`, value: 26_400 },
    ]);
    expect(v.rmssd?.map((x) => x.value)).toEqual([0.04, 0.041, 0.042]);
    expect(v.resting_heart_rate?.map((x) => x.value)).toEqual([50, 51, 52]);
    expect(v.respiratory_rate?.map((x) => x.value)).toEqual([14.5, 14.5, 15, 14.5]);
    expect(v.steps).toEqual([
      { at: `${d0}T12:00:00.000Z`, value: 8000 },
      { at: `${d1}T12:00:00.000Z`, value: 8100 },
      { at: `${d2}T12:00:00.000Z`, value: 8200 },
    ]);
    expect(v.active_energy?.map((x) => x.value)).toEqual([400 * 4184, 410 * 4184, 420 * 4184]);
    expect(v.spo2?.map((x) => x.value)).toEqual([96.5, 96.5]);
    expect(v.heart_rate).toHaveLength(12);
    expect(v.heart_rate?.[0]).toEqual({ at: `${d0}T12:00:00.000Z`, value: 60 });
    expect(report).toEqual({
      read: 36,
      imported: 34,
      skipped: 0,
      rejected: 2,
      rejected_reasons: { out_of_range: 1, malformed: 1 },
    });
  });

  it("adds nothing on a second sync", async () => {
    const { connection, deps } = await connectAndSync("oura");
    const before = await storedValues(app, user.userId, "oura");
    const again = await syncConnection(deps, connection.id);
    expect(again.kind).toBe("done");
    const report = (again as { report: SyncReport }).report;
    expect(report.imported).toBe(0);
    expect(report.read).toBeGreaterThan(0);
    expect(report.read).toBe(report.skipped + report.rejected);
    expect(await storedValues(app, user.userId, "oura")).toEqual(before);
    const row = await connectionOf(app, user.userId, "oura");
    expect(row?.lastSyncReport).toEqual(report);
    expect(row?.syncState).toBe("idle");
  });

  it("shows the synced night on the dashboard chart in hours", async () => {
    await connectAndSync("oura");
    const d2 = days("oura")[2]?.day ?? "";
    const q = new URLSearchParams({ item: "sleep", from: d2, to: d2, period: "day" });
    const chart = (await user.client(app).get(`${API.chartData}?${q}`)).json() as {
      series: { unit: string; points: { t: string; value: number }[] }[];
    };
    expect(chart.series[0]?.unit).toBe("h");
    expect(chart.series[0]?.points).toEqual([
      expect.objectContaining({ t: d2, value: expect.closeTo(26_400 / 3600, 3) }),
    ]);
  });

  it("maps WHOOP recoveries and sleeps, leaving unscored ones for later", async () => {
    const { report } = await connectAndSync("whoop");
    const d = days("whoop").map((x) => x.day);
    const v = await storedValues(app, user.userId, "whoop");
    expect(v.resting_heart_rate).toEqual(d.map((day, i) => ({ at: `${day}T07:30:00.000Z`, value: 52 + i })));
    expect(v.rmssd?.map((x) => x.value)).toEqual([0.0485, 0.0485, 0.0485]);
    expect(v.spo2?.map((x) => x.value)).toEqual([95.5, 95.5, 95.5]);
    expect(v.skin_temperature?.map((x) => x.value)).toEqual([33.7, 33.7, 33.7]);
    // Light + slow-wave + REM: 4 h + 1 h 40 min + 1 h 50 min.
    expect(v.sleep).toEqual(d.map((day) => ({ at: `${day}T07:00:00.000Z`, value: 27_000 })));
    expect(v.respiratory_rate?.map((x) => x.value)).toEqual([16.1, 16.1, 16.1]);
    expect(report).toMatchObject({ read: 18, imported: 18, rejected: 0 });
  });

  it("maps Withings measures, activity and sleep, and puts blood pressure in the log once", async () => {
    const { connection, deps, report } = await connectAndSync("withings");
    const d = days("withings").map((x) => x.day);
    const v = await storedValues(app, user.userId, "withings");
    expect(v.weight).toEqual(
      d.map((day, i) => ({ at: `${day}T07:00:00.000Z`, value: expect.closeTo(72.5 + i / 10, 9) })),
    );
    expect(v.body_fat?.map((x) => x.value)).toEqual([21.5, 21.5, 21.5]);
    expect(v.fat_mass?.map((x) => x.value)).toEqual([15.6, 15.6, 15.6].map((x) => expect.closeTo(x, 9)));
    expect(v.muscle_mass?.map((x) => x.value)).toEqual([54.1, 54.1, 54.1].map((x) => expect.closeTo(x, 9)));
    expect(v.bone_mass?.map((x) => x.value)).toEqual([2.9, 2.9, 2.9].map((x) => expect.closeTo(x, 9)));
    expect(v.spo2).toEqual(d.map((day) => ({ at: `${day}T10:00:00.000Z`, value: 97 })));
    expect(v.steps?.map((x) => x.value)).toEqual([9000, 9001, 9002]);
    expect(v.active_energy?.map((x) => x.value)).toEqual([350.5 * 4184, 351.5 * 4184, 352.5 * 4184]);
    expect(v.sleep).toEqual(d.map((day, i) => ({ at: `${day}T06:30:00.000Z`, value: 27_000 - i * 60 })));
    expect(v.respiratory_rate?.map((x) => x.value)).toEqual([15, 15, 15]);
    // The ScanWatch's spot checks are heart rate; the BPM's pulse belongs to its reading, not to the chart.
    expect(v.heart_rate).toEqual(d.map((day) => ({ at: `${day}T10:00:00.000Z`, value: 62 })));
    const readings = await app.ctx.database.db
      .select()
      .from(bpReadings)
      .where(eq(bpReadings.userId, user.userId));
    expect(readings.map((r) => [r.systolic, r.diastolic, r.pulse]).sort()).toEqual([
      [120, 80, 65],
      [121, 80, 65],
      [122, 80, 65],
    ]);
    expect(new Set(readings.map((r) => r.clientId)).size).toBe(3);
    const log = await storedValues(app, user.userId, "bp_log");
    expect(log.bp_systolic?.map((x) => x.value)).toEqual([120, 121, 122]);
    expect(report).toEqual({
      read: 37,
      imported: 36,
      skipped: 0,
      rejected: 1,
      rejected_reasons: { ambiguous_owner: 1 },
    });
    // Withings is read by `lastupdate` now; a fresh first read of the same data still stores no reading twice.
    await app.ctx.database.db
      .update(connectorConnections)
      .set({ cursors: {} })
      .where(eq(connectorConnections.id, connection.id));
    const again = await syncConnection(deps, connection.id);
    expect(again).toMatchObject({ kind: "done", report: { imported: 0, skipped: 36 } });
    expect(
      await app.ctx.database.db.select().from(bpReadings).where(eq(bpReadings.userId, user.userId)),
    ).toHaveLength(3);
  });

  it("registers the person with Polar, maps sleep, Nightly Recharge and daily activity, and commits the transaction", async () => {
    const { connection, deps, report } = await connectAndSync("polar");
    const registration = standins.polar.requests.find((r) => r.method === "POST" && r.path === "/v3/users");
    expect(registration).toBeDefined();
    expect(connection.externalUserId).toBe("4711");
    const d = days("polar").map((x) => x.day);
    const v = await storedValues(app, user.userId, "polar");
    expect(v.sleep).toEqual(d.map((day, i) => ({ at: `${day}T06:58:00.000Z`, value: 27_000 + i * 60 })));
    expect(v.rmssd?.map((x) => x.value)).toEqual([0.042, 0.043, 0.044]);
    expect(v.respiratory_rate?.map((x) => x.value)).toEqual([14.2, 14.2, 14.2]);
    expect(v.steps).toEqual(d.map((day, i) => ({ at: `${day}T12:00:00.000Z`, value: 9500 + i })));
    expect(v.active_energy?.map((x) => x.value)).toEqual([600 * 4184, 601 * 4184, 602 * 4184]);
    expect(report).toMatchObject({ read: 15, imported: 15 });
    expect(
      standins.polar.requests.some((r) => r.method === "PUT" && /activity-transactions\/\d+$/.test(r.path)),
    ).toBe(true);
    // Committed: the next transaction is empty (204) and nothing new is stored.
    const again = await syncConnection(deps, connection.id);
    expect(again).toMatchObject({ kind: "done", report: { imported: 0 } });
  });

  it("maps Fitbit's daily series, sleep log and weight log (PKCE on the way in)", async () => {
    const { report } = await connectAndSync("fitbit");
    const d = days("fitbit").map((x) => x.day);
    const v = await storedValues(app, user.userId, "fitbit");
    expect(v.steps).toEqual(d.map((day, i) => ({ at: `${day}T12:00:00.000Z`, value: 8123 + i })));
    expect(v.active_energy?.map((x) => x.value)).toEqual([500 * 4184, 501 * 4184, 502 * 4184]);
    expect(v.resting_heart_rate?.map((x) => x.value)).toEqual([58, 59, 60]);
    expect(v.rmssd?.map((x) => x.value)).toEqual(
      [0.034938, 0.035938, 0.036938].map((x) => expect.closeTo(x, 9)),
    );
    expect(v.spo2?.map((x) => x.value)).toEqual([97.5, 97.5, 97.5]);
    expect(v.respiratory_rate?.map((x) => x.value)).toEqual([17.8, 17.8, 17.8]);
    // Local times without an offset, read in the person's zone (UTC here).
    expect(v.sleep).toEqual(d.map((day, i) => ({ at: `${day}T06:45:30.000Z`, value: (420 + i) * 60 })));
    expect(v.weight).toEqual(
      d.map((day, i) => ({ at: `${day}T07:15:00.000Z`, value: expect.closeTo(71.4 + i / 10, 9) })),
    );
    expect(v.body_fat?.map((x) => x.value)).toEqual([18.5, 18.5, 18.5]);
    expect(report).toMatchObject({ read: 27, imported: 27 });
  });

  it("maps Google Health steps and resting heart rate as a Fitbit sub-source", async () => {
    const { report } = await connectAndSync("google_health");
    const d = days("google_health").map((x) => x.day);
    const v = await storedValues(app, user.userId, "fitbit.google_health");
    expect(v.steps).toEqual(
      d.flatMap((day) => [
        { at: `${day}T10:00:00.000Z`, value: 100 },
        { at: `${day}T11:00:00.000Z`, value: 120 },
        { at: `${day}T18:00:00.000Z`, value: 140 },
      ]),
    );
    expect(v.resting_heart_rate).toEqual(d.map((day, i) => ({ at: `${day}T12:00:00.000Z`, value: 57 + i })));
    expect(report).toMatchObject({ read: 12, imported: 12 });
  });

  it("backs off on 429 for Retry-After, resumes from its cursor and ends with the rows of an uninterrupted sync", async () => {
    // The reference: another person's uninterrupted sync of the same data.
    const reference = await connectAndSync("oura");
    const referenceValues = await storedValues(app, user.userId, "oura");
    user = await createTestUser(app.ctx.database, { timezone: "UTC", isCustomerOverride: true });
    await connectThrough(user.client(app), "oura");
    const connection = await connectionOf(app, user.userId, "oura");
    if (!connection) throw new Error("not connected");
    const startedAt = new Date();
    const first = testDeps(app, () => startedAt);
    const before = standins.oura.dataRequests();
    standins.oura.faults.beforeData = async () => {
      if (standins.oura.dataRequests() === before + 6) standins.oura.faults.rateLimitNext = 7;
    };
    const deferred = await syncConnection(first.deps, connection.id);
    standins.oura.faults.beforeData = null;
    expect(deferred).toEqual({
      kind: "deferred",
      code: "rate_limited",
      retryAt: new Date(startedAt.getTime() + 7000),
    });
    expect(first.enqueued).toEqual([
      { connectionId: connection.id, startAfter: new Date(startedAt.getTime() + 7000) },
    ]);
    const waiting = await connectionOf(app, user.userId, "oura");
    expect(waiting).toMatchObject({ syncState: "waiting", lastErrorCode: "rate_limited", failures: 0 });
    expect(Object.keys(waiting?.cursors ?? {}).length).toBeGreaterThan(0);
    const partial = await storedValues(app, user.userId, "oura");
    expect(Object.values(partial).flat().length).toBeLessThan(Object.values(referenceValues).flat().length);
    // Before the time is up the job does nothing; after it, the sync resumes.
    expect(await syncConnection(first.deps, connection.id)).toEqual({ kind: "skipped", reason: "waiting" });
    const later = testDeps(app, () => new Date(startedAt.getTime() + 8000));
    const resumed = await syncConnection(later.deps, connection.id);
    expect(resumed).toEqual({ kind: "done", report: reference.report });
    expect(await storedValues(app, user.userId, "oura")).toEqual(referenceValues);
    expect(await connectionOf(app, user.userId, "oura")).toMatchObject({
      syncState: "idle",
      lastErrorCode: null,
      retryAt: null,
    });
  });

  it("refreshes an access token the provider refuses, and one about to expire before using it", async () => {
    const { connection, deps } = await connectAndSync("oura");
    const tokensBefore = await app.ctx.database.query<{ access_token: string }>(
      "select access_token from connector_tokens where connection_id = $1",
      [connection.id],
    );
    standins.oura.faults.expireAccessTokens();
    const mark = standins.oura.requests.length;
    expect((await syncConnection(deps, connection.id)).kind).toBe("done");
    const seen = standins.oura.requests.slice(mark);
    expect(seen.filter((r) => r.grantType === "refresh_token")).toHaveLength(1);
    const tokensAfter = await app.ctx.database.query<{ access_token: string }>(
      "select access_token from connector_tokens where connection_id = $1",
      [connection.id],
    );
    expect(tokensAfter.rows[0]?.access_token).not.toBe(tokensBefore.rows[0]?.access_token);
    // An access token that expires within the minute is refreshed before the first data request.
    await app.ctx.database.query(
      "update connector_tokens set expires_at = now() + interval '10 seconds' where connection_id = $1",
      [connection.id],
    );
    const mark2 = standins.oura.requests.length;
    expect((await syncConnection(deps, connection.id)).kind).toBe("done");
    expect(standins.oura.requests[mark2]?.grantType).toBe("refresh_token");
  });

  it("marks the connection 'reconnect needed' when the refresh token is refused, and connecting again resumes it", async () => {
    const { connection, deps } = await connectAndSync("fitbit");
    standins.fitbit.faults.expireAccessTokens();
    standins.fitbit.faults.refuseRefresh = true;
    try {
      expect(await syncConnection(deps, connection.id)).toEqual({ kind: "reconnect_needed" });
    } finally {
      standins.fitbit.faults.refuseRefresh = false;
    }
    const client = user.client(app);
    const state = (await client.get("/dashboard_api/v1/connectors/fitbit/")).json() as {
      connection: Record<string, unknown>;
    };
    expect(state.connection).toMatchObject({
      status: "reconnect_needed",
      last_error: { code: "reconnect_needed" },
    });
    const sync = await client.post("/dashboard_api/v1/connectors/fitbit/sync/");
    expect(sync.statusCode).toBe(409);
    expect(sync.json()).toMatchObject({ code: "connector_reconnect_needed" });
    expect(await syncConnection(deps, connection.id)).toEqual({ kind: "skipped", reason: "inactive" });
    // Same Fitbit account again: active, cursors kept, nothing imported twice.
    const cursors = (await connectionOf(app, user.userId, "fitbit"))?.cursors;
    await connectThrough(client, "fitbit");
    const renewed = await connectionOf(app, user.userId, "fitbit");
    expect(renewed).toMatchObject({ id: connection.id, status: "active", lastErrorCode: null });
    expect(renewed?.cursors).toEqual(cursors);
    expect(await syncConnection(deps, connection.id)).toMatchObject({
      kind: "done",
      report: { imported: 0 },
    });
  });

  it("backs off exponentially when the provider fails, and leaves out a stream it forbids", async () => {
    const { connection } = await connectAndSync("oura");
    const t0 = new Date(Date.now() + 60_000);
    const a = testDeps(app, () => t0);
    standins.oura.faults.failNext = 503;
    expect(await syncConnection(a.deps, connection.id)).toEqual({
      kind: "deferred",
      code: "provider_unavailable",
      retryAt: new Date(t0.getTime() + 60_000),
    });
    const t1 = new Date(t0.getTime() + 61_000);
    standins.oura.faults.failNext = 502;
    expect(await syncConnection(testDeps(app, () => t1).deps, connection.id)).toMatchObject({
      kind: "deferred",
      retryAt: new Date(t1.getTime() + 120_000),
    });
    expect(await connectionOf(app, user.userId, "oura")).toMatchObject({
      failures: 2,
      lastErrorCode: "provider_unavailable",
    });
    // The person did not grant heart rate: that stream is left out, the rest syncs and the errors clear.
    standins.oura.faults.forbid.add("/v2/usercollection/heartrate");
    try {
      const t2 = new Date(t1.getTime() + 121_000);
      expect(await syncConnection(testDeps(app, () => t2).deps, connection.id)).toMatchObject({
        kind: "done",
      });
    } finally {
      standins.oura.faults.forbid.clear();
    }
    expect(await connectionOf(app, user.userId, "oura")).toMatchObject({
      failures: 0,
      lastErrorCode: null,
      syncState: "idle",
    });
  });

  it("never runs two syncs of one connection at once", async () => {
    const { connection, deps } = await connectAndSync("oura");
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    standins.oura.faults.beforeData = async () => {
      entered();
      await held;
    };
    const first = syncConnection(deps, connection.id);
    await inside;
    // Another process's deps (its own lock instance) on PostgreSQL, the same process on PGlite.
    const other = testDeps(app).deps;
    expect(await syncConnection(backend === "postgres" ? other : deps, connection.id)).toEqual({
      kind: "skipped",
      reason: "running",
    });
    standins.oura.faults.beforeData = null;
    release();
    expect((await first).kind).toBe("done");
  });
});

// The catalogue's data types of a cloud route are its provider's `metrics` (sources.truth.test.ts): each
// one must really come out of a sync of the provider's documented answers. Fresh stand-ins, as Polar's
// activity arrives once.
describe.each(BACKENDS)("what each provider's sync stores on %s", (backend) => {
  let app: App;
  const standins = {} as Record<ConnectorProvider, Standin>;
  const fitbitRetiredOn = fitbit.retiredOn;
  beforeAll(async () => {
    fitbit.retiredOn = undefined;
    let env: Record<string, string> = {};
    for (const p of PROVIDERS) {
      standins[p] = await startTestStandin(p);
      env = { ...env, ...providerEnv(p, standins[p]) };
    }
    app = await buildTestApp(await getTestDatabase(backend), env, { workJobs: false });
    await resetDatabase(app.ctx.database);
  });
  afterAll(async () => {
    fitbit.retiredOn = fitbitRetiredOn;
    await app.close();
    for (const s of Object.values(standins)) await s.close();
  });

  it.each(PROVIDERS)("stores every metric %s declares it reads", async (provider) => {
    const user = await createTestUser(app.ctx.database, { timezone: "UTC", isCustomerOverride: true });
    await connectThrough(user.client(app), provider);
    const connection = await connectionOf(app, user.userId, provider);
    if (!connection) throw new Error("not connected");
    expect((await syncConnection(testDeps(app).deps, connection.id)).kind).toBe("done");
    const def = findProvider(provider);
    const stored = Object.keys(await storedValues(app, user.userId, def?.source ?? provider));
    expect(stored.sort()).toEqual([...(def?.metrics ?? [])].sort());
    const readings = Object.keys(await storedValues(app, user.userId, "bp_log"));
    expect(readings.length > 0).toBe(def?.bloodPressure === true);
  });
});
