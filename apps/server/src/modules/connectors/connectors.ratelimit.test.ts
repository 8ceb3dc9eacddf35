/**
 * Rate limits of each provider, against local stand-ins of the providers (standin/). The stand-ins are
 * not the providers: they answer in each provider's documented way of saying "too many requests" —
 * Fitbit's `Fitbit-Rate-Limit-*` headers and 429 with `Retry-After`, WHOOP's `X-RateLimit-*` headers and
 * 429, Polar AccessLink's `RateLimit-*` headers and 429, Withings' status 601 inside an HTTP 200,
 * Google's 429 `RESOURCE_EXHAUSTED` without a wait — and refuse a client that keeps asking after its
 * window is used up. Everything else is real: the app, PGlite and PostgreSQL, the write path. Time is
 * virtual: the sync's clock and the request pacer's sleeps only move when the test moves them.
 */
import type { ConnectorProvider, SyncReport } from "@tonus/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { createPacer } from "./connectors.http.ts";
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

/** A virtual clock and a pacer whose sleeps advance it: one process's view of time in a test. */
function virtualTime() {
  let nowMs = Date.now();
  const pacer = createPacer(
    () => nowMs,
    async (ms) => {
      nowMs += ms;
    },
  );
  return {
    pacer,
    now: () => nowMs,
    clock: () => new Date(nowMs),
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

describe.each(BACKENDS)("connector rate limits on %s", (backend) => {
  let app: App;
  const standins = {} as Record<ConnectorProvider, Standin>;
  let user: TestUser;

  // The legacy Fitbit Web API was turned off on 2026-10-30 (providers/fitbit.ts); its rate-limit
  // handling is tested as it worked before that day.
  const fitbitRetiredOn = fitbit.retiredOn;
  beforeAll(async () => {
    fitbit.retiredOn = undefined;
    let env: Record<string, string> = {};
    for (const p of PROVIDERS) {
      standins[p] = await startTestStandin(p);
      env = { ...env, ...providerEnv(p, standins[p]) };
    }
    app = await buildTestApp(await getTestDatabase(backend), env, { workJobs: false });
  });
  afterAll(async () => {
    fitbit.retiredOn = fitbitRetiredOn;
    await app.close();
    for (const s of Object.values(standins)) await s.close();
  });
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    for (const s of Object.values(standins)) {
      s.faults.reopenWindow();
      s.faults.exhaustWindowAfter = null;
      s.faults.rateLimitNext = null;
      s.faults.refusedWhileExhausted = 0;
      s.faults.beforeData = null;
    }
    user = await createTestUser(app.ctx.database, { timezone: "UTC", isCustomerOverride: true });
  });

  const newPerson = () => createTestUser(app.ctx.database, { timezone: "UTC", isCustomerOverride: true });

  async function connect(person: TestUser, provider: ConnectorProvider) {
    await connectThrough(person.client(app), provider);
    const connection = await connectionOf(app, person.userId, provider);
    if (!connection) throw new Error("not connected");
    return connection;
  }

  /** Another person's uninterrupted sync of the same data: the rows and report to end with. */
  async function reference(provider: ConnectorProvider) {
    const person = await newPerson();
    const connection = await connect(person, provider);
    const outcome = await syncConnection(testDeps(app).deps, connection.id);
    expect(outcome.kind, JSON.stringify(outcome)).toBe("done");
    return {
      report: (outcome as { report: SyncReport }).report,
      values: await storedValues(
        app,
        person.userId,
        provider === "google_health" ? "fitbit.google_health" : provider,
      ),
      bpLog: await storedValues(app, person.userId, "bp_log"),
    };
  }

  it.each([
    ["Fitbit", "Fitbit-Rate-Limit-Remaining", "fitbit"],
    ["WHOOP", "X-RateLimit-Remaining", "whoop"],
  ] as const)(
    "stops asking %s once %s says 0, waits for the reset, then resumes to the rows of an uninterrupted sync",
    async (_name, _header, provider) => {
      const expected = await reference(provider);
      const connection = await connect(user, provider);
      const time = virtualTime();
      standins[provider].faults.exhaustWindowAfter = { requests: 3, resetS: 1234 };
      const before = standins[provider].dataRequests();
      const deps = testDeps(app, time.clock, time.pacer).deps;
      const deferred = await syncConnection(deps, connection.id);
      const startedAt = time.now();
      expect(deferred).toMatchObject({ kind: "deferred", code: "rate_limited" });
      const retryAt = (deferred as { retryAt: Date }).retryAt.getTime();
      // The reset counts from the answer that used the window up (the pacer may have moved the clock).
      expect(retryAt).toBeGreaterThanOrEqual(startedAt + 1233_000);
      expect(retryAt).toBeLessThanOrEqual(startedAt + 1234_000);
      // Not one request after the window was used up: the provider refused none.
      expect(standins[provider].dataRequests() - before).toBe(3);
      expect(standins[provider].faults.refusedWhileExhausted).toBe(0);
      expect(await connectionOf(app, user.userId, provider)).toMatchObject({
        syncState: "waiting",
        lastErrorCode: "rate_limited",
        failures: 0,
      });
      // Before the reset the job does nothing; after it, the sync resumes from its cursors.
      expect(await syncConnection(deps, connection.id)).toEqual({ kind: "skipped", reason: "waiting" });
      standins[provider].faults.reopenWindow();
      time.advance(1235_000);
      const resumed = await syncConnection(deps, connection.id);
      expect(resumed).toMatchObject({
        kind: "done",
        report: { imported: expected.report.imported, rejected: 0 },
      });
      // The resumed run reads its streams' overlap again (skipped: stored already): counted, not stored.
      const report = (resumed as { report: SyncReport }).report;
      expect(report.read).toBe(report.imported + report.skipped + report.rejected);
      expect(await storedValues(app, user.userId, provider)).toEqual(expected.values);
      expect(standins[provider].faults.refusedWhileExhausted).toBe(0);
    },
  );

  it("pauses every WHOOP connection of the process when the app's window is used up (the limit is per app)", async () => {
    const first = await connect(user, "whoop");
    const other = await newPerson();
    const second = await connect(other, "whoop");
    const time = virtualTime();
    standins.whoop.faults.exhaustWindowAfter = { requests: 2, resetS: 45 };
    expect(await syncConnection(testDeps(app, time.clock, time.pacer).deps, first.id)).toMatchObject({
      kind: "deferred",
      code: "rate_limited",
    });
    // Another person's sync in the same process asks WHOOP nothing until the reset.
    const before = standins.whoop.dataRequests();
    const deferred = await syncConnection(testDeps(app, time.clock, time.pacer).deps, second.id);
    expect(deferred).toMatchObject({ kind: "deferred", code: "rate_limited" });
    expect((deferred as { retryAt: Date }).retryAt.getTime()).toBeLessThanOrEqual(time.now() + 45_000);
    expect(standins.whoop.dataRequests()).toBe(before);
    expect(standins.whoop.faults.refusedWhileExhausted).toBe(0);
    standins.whoop.faults.reopenWindow();
    time.advance(46_000);
    expect(await syncConnection(testDeps(app, time.clock, time.pacer).deps, second.id)).toMatchObject({
      kind: "done",
    });
  });

  it("waits for WHOOP's X-RateLimit-Reset after a 429 that carries no Retry-After", async () => {
    const connection = await connect(user, "whoop");
    const time = virtualTime();
    standins.whoop.faults.rateLimitNext = 17;
    const deferred = await syncConnection(testDeps(app, time.clock, time.pacer).deps, connection.id);
    expect(deferred).toEqual({
      kind: "deferred",
      code: "rate_limited",
      retryAt: new Date(time.now() + 17_000),
    });
  });

  it("backs off exponentially on Google's 429 RESOURCE_EXHAUSTED, which says no wait, then resumes", async () => {
    const expected = await reference("google_health");
    const connection = await connect(user, "google_health");
    const time = virtualTime();
    const deps = testDeps(app, time.clock, time.pacer).deps;
    standins.google_health.faults.rateLimitNext = 0;
    expect(await syncConnection(deps, connection.id)).toEqual({
      kind: "deferred",
      code: "rate_limited",
      retryAt: new Date(time.now() + 60_000),
    });
    time.advance(61_000);
    standins.google_health.faults.rateLimitNext = 0;
    expect(await syncConnection(deps, connection.id)).toEqual({
      kind: "deferred",
      code: "rate_limited",
      retryAt: new Date(time.now() + 120_000),
    });
    expect(await connectionOf(app, user.userId, "google_health")).toMatchObject({
      failures: 2,
      lastErrorCode: "rate_limited",
    });
    time.advance(121_000);
    expect(await syncConnection(deps, connection.id)).toMatchObject({
      kind: "done",
      report: { imported: expected.report.imported },
    });
    expect(await storedValues(app, user.userId, "fitbit.google_health")).toEqual(expected.values);
    expect(await connectionOf(app, user.userId, "google_health")).toMatchObject({ failures: 0 });
  });

  it("defers on Withings' status 601 inside an HTTP 200, pauses the app, and resumes with every reading once", async () => {
    const expected = await reference("withings");
    const connection = await connect(user, "withings");
    const other = await connect(await newPerson(), "withings");
    const time = virtualTime();
    let seen = 0;
    standins.withings.faults.beforeData = async () => {
      if (++seen === 3) standins.withings.faults.rateLimitNext = 0;
    };
    const deferred = await syncConnection(testDeps(app, time.clock, time.pacer).deps, connection.id);
    standins.withings.faults.beforeData = null;
    expect(deferred).toEqual({
      kind: "deferred",
      code: "rate_limited",
      retryAt: new Date(time.now() + 60_000),
    });
    expect(await connectionOf(app, user.userId, "withings")).toMatchObject({ failures: 0 });
    // Withings' limit is the app's: another person's sync waits too, without a request.
    const before = standins.withings.dataRequests();
    expect(await syncConnection(testDeps(app, time.clock, time.pacer).deps, other.id)).toMatchObject({
      kind: "deferred",
      code: "rate_limited",
    });
    expect(standins.withings.dataRequests()).toBe(before);
    time.advance(61_000);
    const resumed = await syncConnection(testDeps(app, time.clock, time.pacer).deps, connection.id);
    expect(resumed).toMatchObject({ kind: "done", report: { imported: expected.report.imported } });
    expect(await storedValues(app, user.userId, "withings")).toEqual(expected.values);
    // The blood-pressure readings written before the 601 are not written twice.
    expect(await storedValues(app, user.userId, "bp_log")).toEqual(expected.bpLog);
  });

  it("defers on Polar's 429 in the middle of an activity transaction and commits it only after the resumed sync", async () => {
    const connection = await connect(user, "polar");
    const time = virtualTime();
    const polar = standins.polar;
    polar.faults.beforeData = async (path) => {
      if (/activity-transactions\/\d+\/activities\//.test(path)) polar.faults.rateLimitNext = 300;
    };
    const deferred = await syncConnection(testDeps(app, time.clock, time.pacer).deps, connection.id);
    polar.faults.beforeData = null;
    expect(deferred).toEqual({
      kind: "deferred",
      code: "rate_limited",
      retryAt: new Date(time.now() + 300_000),
    });
    const commits = () => polar.requests.filter((r) => r.method === "PUT").length;
    expect(commits()).toBe(0);
    time.advance(301_000);
    const resumed = await syncConnection(testDeps(app, time.clock, time.pacer).deps, connection.id);
    // Sleep and Nightly Recharge are read whole again (skipped); the activity arrives once.
    expect(resumed).toMatchObject({ kind: "done", report: { imported: 15, rejected: 0 } });
    expect(commits()).toBe(1);
    const d = polar.fixture.days.map((x) => x.day);
    const v = await storedValues(app, user.userId, "polar");
    expect(v.steps).toEqual(d.map((day, i) => ({ at: `${day}T12:00:00.000Z`, value: 9500 + i })));
    expect(v.sleep).toHaveLength(3);
  });

  it("stops asking Polar once RateLimit-Usage reaches RateLimit-Limit, until RateLimit-Reset", async () => {
    const connection = await connect(user, "polar");
    const time = virtualTime();
    standins.polar.faults.exhaustWindowAfter = { requests: 1, resetS: 600 };
    const deferred = await syncConnection(testDeps(app, time.clock, time.pacer).deps, connection.id);
    expect(deferred).toMatchObject({ kind: "deferred", code: "rate_limited" });
    expect((deferred as { retryAt: Date }).retryAt.getTime()).toBeLessThanOrEqual(time.now() + 600_000);
    expect((deferred as { retryAt: Date }).retryAt.getTime()).toBeGreaterThan(time.now() + 590_000);
    expect(standins.polar.faults.refusedWhileExhausted).toBe(0);
  });

  it.each([
    ["WHOOP", "whoop", 600],
    ["Withings", "withings", 500],
  ] as const)(
    "spaces requests to %s (%s) by its documented per-app limit, %i ms apart",
    async (_name, provider, intervalMs) => {
      const connection = await connect(user, provider);
      const time = virtualTime();
      const sentAt: number[] = [];
      standins[provider].faults.beforeData = async () => {
        sentAt.push(time.now());
      };
      expect((await syncConnection(testDeps(app, time.clock, time.pacer).deps, connection.id)).kind).toBe(
        "done",
      );
      expect(sentAt.length).toBeGreaterThan(3);
      const gaps = sentAt.slice(1).map((t, i) => t - (sentAt[i] as number));
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(intervalMs);
    },
  );

  it("does not hold back requests to a provider without a documented spacing (Oura)", async () => {
    const connection = await connect(user, "oura");
    const time = virtualTime();
    const startedAt = time.now();
    expect((await syncConnection(testDeps(app, time.clock, time.pacer).deps, connection.id)).kind).toBe(
      "done",
    );
    expect(time.now()).toBe(startedAt);
  });
});
