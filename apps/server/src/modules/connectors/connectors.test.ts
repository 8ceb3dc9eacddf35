/**
 * Connector routes and the OAuth2 client flow against local stand-ins of the providers (standin/): not
 * the providers, but servers answering with responses written by hand from each provider's published
 * documentation (formats cited in providers/*.ts). The app, PGlite/PostgreSQL and the job runner are real.
 */
import { CONNECTORS_API, type Connector, type ConnectorList, type ConnectorProvider } from "@tonus/contract";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { auditLog, connectorAuthorizations, connectorConnections, connectorTokens } from "../../db/schema.ts";
import { deleteUserData, exportUserData, registryEnv } from "../../lib/registry.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TEST_ORIGIN, TestClient } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { createSecretBox } from "./connectors.crypto.ts";
import { SYNC_JOB, scheduleDueSyncs } from "./connectors.jobs.ts";
import { tokenContext } from "./connectors.tokens.ts";
import { fitbit } from "./providers/fitbit.ts";
import type { Standin } from "./standin/standin.ts";
import {
  callbackOf,
  connectionOf,
  connectThrough,
  path,
  providerEnv,
  startTestStandin,
  testDeps,
} from "./standin/testkit.ts";

const RUNS = process.env.TONUS_HEAVY ? 10_000 : 60;
/** The property tests' time: 10,000 requests take minutes on a busy 2-core machine. */
const PROPERTY_TIMEOUT = process.env.TONUS_HEAVY ? 900_000 : 180_000;
const ALL: ConnectorProvider[] = ["oura", "withings", "polar", "fitbit", "google_health", "whoop"];
/** Configured in these tests; WHOOP is left unconfigured to show what that looks like. */
const CONFIGURED: ConnectorProvider[] = ["oura", "withings", "polar", "fitbit", "google_health"];

describe.each(BACKENDS)("connector routes and OAuth on %s", (backend) => {
  let app: App;
  const standins = {} as Record<ConnectorProvider, Standin>;
  let alice: TestUser;
  let client: TestClient;

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
    for (const p of CONFIGURED) {
      standins[p] = await startTestStandin(p);
      env = { ...env, ...providerEnv(p, standins[p]) };
    }
    app = await buildTestApp(await getTestDatabase(backend), env, { workJobs: false });
  });
  afterAll(async () => {
    await app.close();
    for (const s of Object.values(standins)) await s.close();
  });
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    alice = await createTestUser(app.ctx.database, { timezone: "UTC" });
    client = alice.client(app);
  });

  it("lists every provider, says which this installation can connect, and needs a signed-in person", async () => {
    const res = await client.get(CONNECTORS_API.list);
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const list = res.json() as ConnectorList;
    expect(list.results.map((c) => c.provider)).toEqual(ALL);
    expect(list.results.filter((c) => c.configured).map((c) => c.provider)).toEqual(CONFIGURED);
    const whoop = list.results.find((c) => c.provider === "whoop");
    expect(whoop).toMatchObject({ configured: false, has_export_file: true, connection: null });
    expect(list.results.find((c) => c.provider === "withings")?.blood_pressure).toBe(true);
    expect((await new TestClient(app).get(CONNECTORS_API.list)).statusCode).toBe(403);
    expect((await client.get(path(CONNECTORS_API.one, "garmin"))).statusCode).toBe(404);
  });

  it("starts the authorization-code flow with the exact redirect URI, a fresh state and PKCE where supported", async () => {
    const oura = new URL(
      ((await client.post(path(CONNECTORS_API.connect, "oura"), {})).json() as { authorization_url: string })
        .authorization_url,
    );
    expect(`${oura.origin}${oura.pathname}`).toBe(`${standins.oura.url}/oauth/authorize`);
    expect(Object.fromEntries(oura.searchParams)).toMatchObject({
      response_type: "code",
      client_id: "tonus-test-client",
      redirect_uri: `${TEST_ORIGIN}/dashboard_api/v1/connectors/oura/callback/`,
      scope: "daily heartrate spo2Daily",
    });
    expect(oura.searchParams.get("state")?.length).toBeGreaterThanOrEqual(43);
    expect(oura.searchParams.has("code_challenge")).toBe(false);
    const again = new URL(
      ((await client.post(path(CONNECTORS_API.connect, "oura"), {})).json() as { authorization_url: string })
        .authorization_url,
    );
    expect(again.searchParams.get("state")).not.toBe(oura.searchParams.get("state"));
    const fitbit = new URL(
      (
        (await client.post(path(CONNECTORS_API.connect, "fitbit"), {})).json() as {
          authorization_url: string;
        }
      ).authorization_url,
    );
    expect(fitbit.searchParams.get("code_challenge_method")).toBe("S256");
    expect(fitbit.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const withings = new URL(
      (
        (await client.post(path(CONNECTORS_API.connect, "withings"), {})).json() as {
          authorization_url: string;
        }
      ).authorization_url,
    );
    expect(withings.searchParams.get("scope")).toBe("user.metrics,user.activity");
    const google = new URL(
      (
        (await client.post(path(CONNECTORS_API.connect, "google_health"), {})).json() as {
          authorization_url: string;
        }
      ).authorization_url,
    );
    expect(google.searchParams.get("access_type")).toBe("offline");
    // Only hashes and a sealed verifier are kept for the pending connects.
    const pending = await app.ctx.database.db.select().from(connectorAuthorizations);
    expect(pending).toHaveLength(5);
    for (const row of pending) expect(row.stateHash).not.toBe(oura.searchParams.get("state"));
    expect(pending.find((r) => r.provider === "fitbit")?.codeVerifier).toMatch(/^v1\./);
  });

  it("connects: exchanges the code, stores the tokens encrypted, queues the first sync and lands on the source page", async () => {
    const { location, callback } = await connectThrough(client, "oura", {
      returnTo: "/data-sources-mobile-back/oura-ring",
    });
    expect(callback.statusCode).toBe(302);
    expect(callback.headers["cache-control"]).toBe("no-store");
    expect(location).toBe("/data-sources-mobile-back/oura-ring?connect=ok&provider=oura");
    const connection = await connectionOf(app, alice.userId, "oura");
    expect(connection).toMatchObject({ status: "active", syncState: "queued" });
    const [tokens] = await app.ctx.database.db
      .select()
      .from(connectorTokens)
      .where(eq(connectorTokens.connectionId, connection?.id ?? ""));
    expect(tokens?.accessToken).toMatch(/^v1\./);
    expect(tokens?.refreshToken).toMatch(/^v1\./);
    const box = createSecretBox(app.ctx.config.secretKey);
    expect(box.open(tokens?.accessToken ?? "", tokenContext(connection?.id ?? "", "access"))).toMatch(/^at_/);
    // Sealed for its own row and column: it does not open as the refresh token or for another connection.
    expect(box.open(tokens?.accessToken ?? "", tokenContext(connection?.id ?? "", "refresh"))).toBeNull();
    expect(
      createSecretBox("another-secret-key-with-more-than-32-chars!!").open(
        tokens?.accessToken ?? "",
        tokenContext(connection?.id ?? "", "access"),
      ),
    ).toBeNull();
    const jobs = await app.ctx.services.jobs.boss.findJobs(SYNC_JOB, {
      data: { connectionId: connection?.id },
      queued: true,
    });
    expect(jobs).toHaveLength(1);
    const audit = await app.ctx.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "connector.connected"));
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toMatch(/at_|rt_/);
    const state = (await client.get(path(CONNECTORS_API.one, "oura"))).json() as Connector;
    expect(state.connection).toMatchObject({
      status: "active",
      sync_state: "queued",
      last_sync_at: null,
      last_error: null,
    });
    expect(await app.ctx.database.db.select().from(connectorAuthorizations)).toEqual([]);
  });

  it("accepts a callback only from the browser session that started it, once, for the same provider", async () => {
    // The same person in another browser session (or an attacker who got the link): refused.
    const otherBrowser = (await createTestUser(app.ctx.database)).client(app);
    const stolen = await connectThrough(client, "oura", { via: otherBrowser });
    expect(stolen.location).toBe("/data-sources/oura-ring?connect=error&provider=oura&reason=expired");
    expect(await connectionOf(app, alice.userId, "oura")).toBeNull();
    // A state for Oura brought to Fitbit's callback; a forged state; no state at all.
    const crossed = await connectThrough(client, "oura", {
      tamper: (u) => {
        u.pathname = CONNECTORS_API.callback.replace(":provider", "fitbit");
      },
    });
    expect(crossed.location).toMatch(
      /^\/data-sources\/fitbit-charge\?connect=error&provider=fitbit&reason=expired$/,
    );
    const forged = await connectThrough(client, "oura", {
      tamper: (u) => u.searchParams.set("state", "forged"),
    });
    expect(forged.location).toMatch(/reason=expired/);
    const bare = await client.get(`${CONNECTORS_API.callback.replace(":provider", "oura")}?code=abc`);
    expect(bare.headers.location).toBe("/data-sources/oura-ring?connect=error&provider=oura&reason=expired");
    // A replayed callback: the state was used up by the first.
    let replay = "";
    const ok = await connectThrough(client, "oura", {
      tamper: (u) => {
        replay = `${u.pathname}${u.search}`;
      },
    });
    expect(ok.location).toMatch(/connect=ok/);
    expect((await client.get(replay)).headers.location).toMatch(/reason=expired/);
    // A stale one.
    await app.ctx.database.db.delete(connectorConnections);
    const late = await connectThrough(client, "oura", {
      tamper: async () => {
        await app.ctx.database.query(
          "update connector_authorizations set expires_at = now() - interval '1 minute'",
        );
      },
    });
    expect(late.location).toMatch(/reason=expired/);
    expect(await connectionOf(app, alice.userId, "oura")).toBeNull();
  });

  it("says when the person refused at the provider, and refuses unconfigured and unknown providers", async () => {
    standins.oura.faults.denyNext = true;
    const denied = await connectThrough(client, "oura");
    expect(denied.location).toBe("/data-sources/oura-ring?connect=error&provider=oura&reason=denied");
    expect(await connectionOf(app, alice.userId, "oura")).toBeNull();
    const whoop = await client.post(path(CONNECTORS_API.connect, "whoop"), {});
    expect(whoop.statusCode).toBe(409);
    expect(whoop.json()).toMatchObject({ code: "connector_not_configured" });
    expect((await client.post(path(CONNECTORS_API.connect, "myspace"), {})).statusCode).toBe(404);
  });

  it("limits how many connect attempts one person may leave pending", async () => {
    for (let i = 0; i < 20; i++)
      expect((await client.post(path(CONNECTORS_API.connect, "oura"), {})).statusCode).toBe(200);
    const refused = await client.post(path(CONNECTORS_API.connect, "oura"), {});
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["retry-after"]).toBe("600");
    // Another person is not affected.
    const bob = (await createTestUser(app.ctx.database)).client(app);
    expect((await bob.post(path(CONNECTORS_API.connect, "oura"), {})).statusCode).toBe(200);
  });

  it(
    "never sends the browser off the site: return_to must be a data-source page",
    async () => {
      for (const hostile of [
        "https://evil.example/",
        "//evil.example/data-sources/x",
        "/data-sources/../../admin",
        "/dashboard",
        "/data-sources/oura-ring?next=https://evil.example",
        "/data-sources/Oura",
        "javascript:alert(1)",
      ]) {
        const res = await client.post(path(CONNECTORS_API.connect, "oura"), { return_to: hostile });
        expect(res.statusCode, hostile).toBe(400);
        expect(res.json()).toMatchObject({ code: "validation_failed" });
      }
      // Whatever comes back from the provider, the callback lands on a path of this site.
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(
            fc.constantFrom("code", "state", "error", "return_to", "redirect", "next"),
            fc.string({ maxLength: 80 }),
          ),
          async (params) => {
            const res = await client.get(
              `${CONNECTORS_API.callback.replace(":provider", "oura")}?${new URLSearchParams(params)}`,
            );
            expect(res.statusCode).toBe(302);
            expect(String(res.headers.location)).toMatch(
              /^\/data-sources\/oura-ring\?connect=error&provider=oura&reason=(expired|failed|denied)$/,
            );
          },
        ),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT,
  );

  it.each(CONFIGURED)(
    "disconnects %s: revokes the grant at the provider and deletes it here",
    async (provider) => {
      await connectThrough(client, provider);
      const before = standins[provider].revocations.length;
      const res = await client.delete(path(CONNECTORS_API.one, provider));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ ok: true, revoked: true });
      expect(standins[provider].revocations.length).toBeGreaterThan(before);
      expect(await connectionOf(app, alice.userId, provider)).toBeNull();
      expect(await app.ctx.database.db.select().from(connectorTokens)).toEqual([]);
      const audit = await app.ctx.database.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.action, "connector.disconnected"));
      expect(audit[0]?.meta).toEqual({ provider, revoked: true });
    },
  );

  it("deletes the connection even when the provider does not confirm the revocation, and says so", async () => {
    await connectThrough(client, "oura");
    standins.oura.faults.failRevocation = true;
    try {
      const res = await client.delete(path(CONNECTORS_API.one, "oura"));
      expect(res.json()).toEqual({ ok: true, revoked: false });
    } finally {
      standins.oura.faults.failRevocation = false;
    }
    expect(await connectionOf(app, alice.userId, "oura")).toBeNull();
    expect((await client.delete(path(CONNECTORS_API.one, "oura"))).statusCode).toBe(404);
  });

  it("shows another person's connection to no one (A1)", async () => {
    await connectThrough(client, "oura");
    const bob = (await createTestUser(app.ctx.database)).client(app);
    expect(((await bob.get(path(CONNECTORS_API.one, "oura"))).json() as Connector).connection).toBeNull();
    expect((await bob.post(path(CONNECTORS_API.sync, "oura"))).statusCode).toBe(404);
    expect((await bob.delete(path(CONNECTORS_API.one, "oura"))).statusCode).toBe(404);
    expect(await connectionOf(app, alice.userId, "oura")).toMatchObject({ status: "active" });
  });

  it("refuses unsafe requests without the session's CSRF token (S1)", async () => {
    await connectThrough(client, "oura");
    const snapshot = JSON.stringify(await app.ctx.database.db.select().from(connectorConnections));
    for (const [method, url] of [
      ["POST", path(CONNECTORS_API.connect, "oura")],
      ["POST", path(CONNECTORS_API.sync, "oura")],
      ["DELETE", path(CONNECTORS_API.one, "oura")],
    ] as const) {
      const res = await client.request(method, url, { body: {}, headers: { "x-csrftoken": "forged" } });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toMatchObject({ code: "csrf_failed" });
      const foreign = await client.request(method, url, {
        body: {},
        headers: { origin: "https://evil.example" },
      });
      expect(foreign.statusCode).toBe(403);
    }
    expect(JSON.stringify(await app.ctx.database.db.select().from(connectorConnections))).toBe(snapshot);
  });

  it(
    "answers hostile bodies on its unsafe routes with a 4xx in the error shape (Z)",
    async () => {
      await connectThrough(client, "oura");
      const hostile = fc.oneof(
        fc.jsonValue(),
        fc.dictionary(
          fc.constantFrom("return_to", "__proto__", "constructor", "provider", "user_id"),
          fc.jsonValue(),
        ),
        fc.constant({ return_to: "x".repeat(100_000) }),
        fc.constantFrom(Number.NaN, 2 ** 53, -0, null, [], "{"),
      );
      for (const [method, url] of [
        ["POST", path(CONNECTORS_API.connect, "oura")],
        ["POST", path(CONNECTORS_API.connect, "x".repeat(50))],
        ["POST", path(CONNECTORS_API.sync, "whoop")],
        ["DELETE", path(CONNECTORS_API.one, "polar")],
      ] as const) {
        await fc.assert(
          fc.asyncProperty(hostile, async (body) => {
            const res = await client.request(method, url, {
              payload: JSON.stringify(body) ?? "null",
              headers: { "content-type": "application/json" },
            });
            if (res.statusCode >= 500)
              throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
            if (res.statusCode >= 400) {
              const json = res.json() as { error?: unknown; code?: unknown };
              expect(typeof json.error === "string" && typeof json.code === "string", res.body).toBe(true);
            }
          }),
          { numRuns: RUNS },
        );
      }
      expect(await connectionOf(app, alice.userId, "oura")).toMatchObject({ status: "active" });
    },
    PROPERTY_TIMEOUT,
  );

  it("asks for a sync now: queued once, and refused for a provider not connected", async () => {
    await connectThrough(client, "oura");
    const connection = await connectionOf(app, alice.userId, "oura");
    const { deps } = testDeps(app);
    const { syncConnection } = await import("./connectors.sync.ts");
    await syncConnection(deps, connection?.id ?? "");
    const boss = app.ctx.services.jobs.boss;
    await boss.deleteQueuedJobs(SYNC_JOB);
    const res = await client.post(path(CONNECTORS_API.sync, "oura"));
    expect(res.statusCode).toBe(202);
    expect((res.json() as Connector).connection?.sync_state).toBe("queued");
    expect((await client.post(path(CONNECTORS_API.sync, "oura"))).statusCode).toBe(202);
    expect(
      await boss.findJobs(SYNC_JOB, { data: { connectionId: connection?.id }, queued: true }),
    ).toHaveLength(1);
    expect((await client.post(path(CONNECTORS_API.sync, "fitbit"))).statusCode).toBe(404);
  });

  it("schedules due connections: by the interval, after a backoff, and ones a stopped process left mid-sync", async () => {
    await connectThrough(client, "oura");
    await connectThrough(client, "fitbit");
    await connectThrough(client, "polar");
    const [oura, fitbit, polar] = await Promise.all(
      ["oura", "fitbit", "polar"].map((p) => connectionOf(app, alice.userId, p as ConnectorProvider)),
    );
    const db = app.ctx.database.db;
    const now = new Date();
    const hourAgo = new Date(now.getTime() - 2 * 3_600_000);
    await db
      .update(connectorConnections)
      .set({ syncState: "idle", lastSyncAt: hourAgo })
      .where(eq(connectorConnections.id, oura?.id ?? ""));
    await db
      .update(connectorConnections)
      .set({ syncState: "waiting", retryAt: new Date(now.getTime() + 60_000) })
      .where(eq(connectorConnections.id, fitbit?.id ?? ""));
    await db
      .update(connectorConnections)
      .set({ syncState: "running", syncStartedAt: new Date(now.getTime() - 1000) })
      .where(eq(connectorConnections.id, polar?.id ?? ""));
    const a = testDeps(app, () => now);
    await scheduleDueSyncs(a.deps, false);
    expect(a.enqueued.map((e) => e.connectionId)).toEqual([oura?.id]);
    // At start every `running` and `queued` row is offered (the lock tells an orphan from a live run; a
    // queued job may have been lost), and the backoff has ended.
    const later = new Date(now.getTime() + 61_000);
    const b = testDeps(app, () => later);
    const requestedBefore = (await connectionOf(app, alice.userId, "polar"))?.syncRequestedAt;
    await scheduleDueSyncs(b.deps, true);
    expect(new Set(b.enqueued.map((e) => e.connectionId))).toEqual(
      new Set([oura?.id, fitbit?.id, polar?.id]),
    );
    // The run cut short is offered again, not asked for anew: a new request would queue a second run
    // after the resumed one, whose report (all already stored) would replace the resumed run's.
    const polarAfter = await connectionOf(app, alice.userId, "polar");
    expect(polarAfter?.syncState).toBe("running");
    expect(polarAfter?.syncRequestedAt).toEqual(requestedBefore);
  });

  it("keeps tokens out of the data export, deletes them with the account and revokes the grants after the commit", async () => {
    await connectThrough(client, "oura");
    await connectThrough(client, "withings");
    const env = registryEnv(app.ctx);
    const archive = await exportUserData(env, alice.userId);
    const text = JSON.stringify(archive);
    expect(archive.sections.connectors?.tables.connector_connections).toHaveLength(2);
    expect(archive.sections.connectors?.tables.connector_tokens).toBeUndefined();
    expect(text).not.toMatch(/"v1\.|at_|rt_|cursors/);
    const revokedBefore = standins.oura.revocations.length + standins.withings.revocations.length;
    await deleteUserData(env, alice.userId);
    expect(await app.ctx.database.db.select().from(connectorTokens)).toEqual([]);
    expect(await app.ctx.database.db.select().from(connectorConnections)).toEqual([]);
    expect(standins.oura.revocations.length + standins.withings.revocations.length).toBeGreaterThanOrEqual(
      revokedBefore + 2,
    );
  });

  it("refuses to connect or sync a provider whose API the vendor turned off, and still lets it be disconnected", async () => {
    await connectThrough(client, "fitbit");
    const connection = await connectionOf(app, alice.userId, "fitbit");
    fitbit.retiredOn = "2000-01-01";
    try {
      const state = (await client.get(path(CONNECTORS_API.one, "fitbit"))).json() as Connector;
      expect(state).toMatchObject({ configured: true, retired_on: "2000-01-01" });
      const connect = await client.post(path(CONNECTORS_API.connect, "fitbit"), {});
      expect(connect.statusCode).toBe(409);
      expect(connect.json()).toMatchObject({ code: "connector_retired" });
      expect((await client.post(path(CONNECTORS_API.sync, "fitbit"))).json()).toMatchObject({
        code: "connector_retired",
      });
      const { syncConnection } = await import("./connectors.sync.ts");
      expect(await syncConnection(testDeps(app).deps, connection?.id ?? "")).toEqual({
        kind: "skipped",
        reason: "retired",
      });
      const later = testDeps(app, () => new Date(Date.now() + 86_400_000));
      await app.ctx.database.db.update(connectorConnections).set({ syncState: "idle", lastSyncAt: null });
      await scheduleDueSyncs(later.deps, true);
      expect(later.enqueued).toEqual([]);
      expect((await client.delete(path(CONNECTORS_API.one, "fitbit"))).json()).toMatchObject({ ok: true });
    } finally {
      fitbit.retiredOn = undefined;
    }
  });

  it("registers the callback URI each provider must know", () => {
    expect(callbackOf("google_health")).toBe(
      `${TEST_ORIGIN}/dashboard_api/v1/connectors/google_health/callback/`,
    );
  });
});

describe.each(BACKENDS)("connector syncs as background jobs on %s", (backend) => {
  let app: App;
  let standin: Standin;

  beforeAll(async () => {
    standin = await startTestStandin("oura");
    app = await buildTestApp(await getTestDatabase(backend), providerEnv("oura", standin));
  });
  afterAll(async () => {
    await app.close();
    await standin.close();
  });

  it("runs the first sync after connecting, and another on 'sync now'", async () => {
    await resetDatabase(app.ctx.database);
    const user = await createTestUser(app.ctx.database, { timezone: "UTC" });
    const client = user.client(app);
    await connectThrough(client, "oura");
    const synced = async (after: string | null) => {
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
        const c = (await client.get(path(CONNECTORS_API.one, "oura"))).json() as Connector;
        if (
          c.connection?.last_sync_at &&
          c.connection.last_sync_at !== after &&
          c.connection.sync_state === "idle"
        )
          return c;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error("the sync job did not finish within a minute");
    };
    const first = await synced(null);
    expect(first.connection?.last_sync_report).toMatchObject({ imported: 34, rejected: 2 });
    const res = await client.post(path(CONNECTORS_API.sync, "oura"));
    expect(res.statusCode).toBe(202);
    const second = await synced(first.connection?.last_sync_at ?? null);
    expect(second.connection?.last_sync_report).toMatchObject({ imported: 0 });

    // A job for a connection nobody asked to sync (a retried job beside the scheduler's after a
    // restart) finds it idle and reads nothing: the last report stays the one of the real run.
    const boss = app.ctx.services.jobs.boss;
    const connection = await connectionOf(app, user.userId, "oura");
    const requests = standin.dataRequests();
    const id = (await boss.send(SYNC_JOB, { userId: user.userId, connectionId: connection?.id ?? "" })) ?? "";
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      if ((await boss.getJobById(SYNC_JOB, id))?.state === "completed") break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await boss.getJobById(SYNC_JOB, id))?.state).toBe("completed");
    expect(standin.dataRequests()).toBe(requests);
    const after = (await client.get(path(CONNECTORS_API.one, "oura"))).json() as Connector;
    expect(after.connection?.last_sync_at).toBe(second.connection?.last_sync_at);
  }, 150_000);
});
