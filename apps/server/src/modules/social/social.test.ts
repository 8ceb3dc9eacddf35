import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import Provider from "oidc-provider";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { socialIdentities, users } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TEST_ORIGIN, TestClient } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { safeDestination } from "./social.state.ts";

const PROFILE = "/dashboard_api/v1/user/profile/";
const CALLBACKS = ["google", "apple"].map(
  (p) => `${TEST_ORIGIN}/dashboard_api/v1/auth/social/${p}/callback/`,
);
const FAILURE = "/auth/signin?social_error=1";

/** Accounts at the test provider: the login name is the subject. */
const ACCOUNTS: Record<string, { email?: string; email_verified?: boolean | string }> = {
  alice: { email: "alice@example.test", email_verified: true },
  bob: { email: "Bob@Example.test", email_verified: true },
  mallory: { email: "victim@example.test", email_verified: false },
  carol: { email: "carol@example.test", email_verified: "true" },
};

/** A real OpenID provider (oidc-provider with its development login and consent pages) on loopback. */
async function startProvider(): Promise<{ issuer: string; close: () => Promise<void> }> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: "tonus",
        client_secret: "tonus-test-client-secret",
        redirect_uris: CALLBACKS,
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    cookies: { keys: ["test-provider-cookie-key"] },
    ttl: {
      Interaction: 600,
      Session: 600,
      Grant: 600,
      AccessToken: 600,
      IdToken: 600,
      AuthorizationCode: 60,
    },
    features: { devInteractions: { enabled: true } },
    findAccount: async (_ctx: unknown, id: string) =>
      ACCOUNTS[id] ? { accountId: id, claims: async () => ({ sub: id, ...ACCOUNTS[id] }) } : undefined,
  });
  server.on("request", provider.callback());
  return { issuer, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * Drives a browser through start → provider login → consent → our callback and returns the callback's
 * response. `tamper` may rewrite the callback URL before it reaches us.
 */
async function signInWithProvider(
  client: TestClient,
  account: string,
  destination = "/user/profile",
  tamper: (url: URL) => void = () => {},
  providerId: "google" | "apple" = "google",
) {
  const start = await client.get(
    `/dashboard_api/v1/auth/social/${providerId}/start/?destination=${encodeURIComponent(destination)}`,
  );
  expect(start.statusCode).toBe(302);
  const jar = new Map<string, string>();
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const value = pair.slice(at + 1);
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(pair.slice(0, at));
      else jar.set(pair.slice(0, at), value);
    }
  };
  let url = String(start.headers.location);
  for (let step = 0; step < 20; step++) {
    if (url.startsWith(TEST_ORIGIN)) {
      const callback = new URL(url);
      tamper(callback);
      return client.get(`${callback.pathname}${callback.search}`);
    }
    let res = await fetch(url, { redirect: "manual", headers: { cookie: cookieHeader() } });
    remember(res);
    if (res.status === 200) {
      const html = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1] ?? "";
      if (action.startsWith(TEST_ORIGIN)) {
        // response_mode=form_post: the provider's page auto-submits the answer to our callback.
        const callback = new URL(action);
        for (const m of html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"\/>/g))
          callback.searchParams.set(m[1] ?? "", m[2] ?? "");
        tamper(callback);
        return client.request("POST", callback.pathname, {
          payload: callback.searchParams.toString(),
          headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(url).origin },
        });
      }
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1] ?? "";
      const form = new URLSearchParams({ prompt });
      if (prompt === "login") {
        form.set("login", account);
        form.set("password", "any");
      }
      res = await fetch(new URL(action, url), {
        method: "POST",
        redirect: "manual",
        headers: { cookie: cookieHeader(), "content-type": "application/x-www-form-urlencoded" },
        body: form.toString(),
      });
      remember(res);
    }
    const location = res.headers.get("location");
    if (!location) throw new Error(`provider answered ${res.status} without a redirect: ${await res.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error("too many redirects");
}

describe.each(BACKENDS)("social sign-in (OpenID Connect) on %s", (backend) => {
  let app: App;
  let provider: Awaited<ReturnType<typeof startProvider>>;
  beforeAll(async () => {
    provider = await startProvider();
    app = await buildTestApp(await getTestDatabase(backend), {
      OIDC_GOOGLE_ISSUER: provider.issuer,
      OIDC_GOOGLE_CLIENT_ID: "tonus",
      OIDC_GOOGLE_CLIENT_SECRET: "tonus-test-client-secret",
      OIDC_APPLE_ISSUER: provider.issuer,
      OIDC_APPLE_CLIENT_ID: "tonus",
      OIDC_APPLE_CLIENT_SECRET: "tonus-test-client-secret",
    });
  });
  afterAll(async () => {
    await app.close();
    await provider.close();
  });
  beforeEach(async () => resetDatabase(app.ctx.database));

  it("lists only the configured providers", async () => {
    const res = await app.inject({ method: "GET", url: "/dashboard_api/v1/auth/social/" });
    expect(res.json()).toEqual({
      results: [
        { id: "google", name: "Google" },
        { id: "apple", name: "Apple" },
      ],
    });
    const bare = await buildTestApp(app.ctx.database);
    expect((await bare.inject({ method: "GET", url: "/dashboard_api/v1/auth/social/" })).json()).toEqual({
      results: [],
    });
    const start = await bare.inject({ method: "GET", url: "/dashboard_api/v1/auth/social/google/start/" });
    expect(start.statusCode).toBe(404);
    await bare.close();
  });

  it("signs in through a form_post provider (Apple's way) and refuses a forged state there too", async () => {
    const start = await new TestClient(app).get("/dashboard_api/v1/auth/social/apple/start/");
    expect(new URL(String(start.headers.location)).searchParams.get("response_mode")).toBe("form_post");
    expect(String(start.headers["set-cookie"])).toMatch(/tonus_oidc=[^;]+;.*SameSite=None/);
    const client = new TestClient(app);
    const res = await signInWithProvider(client, "carol", "/user/units", () => {}, "apple");
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe("/user/units");
    expect((await client.get(PROFILE)).json().email).toBe("carol@example.test");
    const forged = new TestClient(app);
    const bad = await signInWithProvider(
      forged,
      "alice",
      "/",
      (u) => u.searchParams.set("state", "x"),
      "apple",
    );
    expect(bad.headers.location).toBe(FAILURE);
    expect((await forged.get(PROFILE)).statusCode).toBe(403);
    // Each provider answers only on its own response mode.
    const getApple = await app.inject({
      method: "GET",
      url: "/dashboard_api/v1/auth/social/apple/callback/",
    });
    expect(getApple.statusCode).toBe(404);
    const postGoogle = await app.inject({
      method: "POST",
      url: "/dashboard_api/v1/auth/social/google/callback/",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "code=x&state=y",
    });
    expect(postGoogle.statusCode).toBe(404);
  });

  it("sends the browser to the provider with state, nonce and PKCE S256 in a signed HttpOnly cookie", async () => {
    const client = new TestClient(app);
    const res = await client.get("/dashboard_api/v1/auth/social/google/start/");
    const location = new URL(String(res.headers.location));
    expect(location.origin).toBe(provider.issuer);
    expect(location.searchParams.get("code_challenge_method")).toBe("S256");
    for (const key of ["state", "nonce", "code_challenge"])
      expect(location.searchParams.get(key)).toBeTruthy();
    const cookie = String(res.headers["set-cookie"])
      .split(/,(?=\s*\w+=)/)
      .find((c) => c.includes("tonus_oidc="));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Max-Age=600/);
  });

  it("creates an account on first sign-in and reuses it on the next", async () => {
    const first = new TestClient(app);
    const res = await signInWithProvider(first, "alice");
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe("/user/profile");
    const profile = (await first.get(PROFILE)).json();
    expect(profile.email).toBe("alice@example.test");

    // A browser already signed in as someone else loses that session when it signs in again.
    const other = await createTestUser(app.ctx.database);
    const second = other.client(app);
    second.cookies.set("tonussessionid", other.sessionId);
    second.cookies.set("csrftoken", "planted-csrf-token");
    expect((await signInWithProvider(second, "alice")).statusCode).toBe(302);
    // The session id is rotated: the planted one is never the signed-in session.
    expect(second.cookies.get("tonussessionid")).not.toBe(other.sessionId);
    expect(second.cookies.get("csrftoken")).not.toBe("planted-csrf-token");
    const previous = await app.inject({
      method: "GET",
      url: PROFILE,
      headers: { cookie: `tonussessionid=${other.sessionId}` },
    });
    expect(previous.statusCode).toBe(403);
    expect((await second.get(PROFILE)).json().id).toBe(profile.id);
    const { rows } = await app.ctx.database.query<{ n: number }>("select count(*)::int as n from users");
    expect(rows[0]?.n).toBe(2);
  });

  it("links the provider to an existing account with the same verified e-mail", async () => {
    const existing = await createTestUser(app.ctx.database, { email: "bob@example.test", username: "bob" });
    const client = new TestClient(app);
    expect((await signInWithProvider(client, "bob")).statusCode).toBe(302);
    expect((await client.get(PROFILE)).json().id).toBe(existing.userId);
    const links = await app.ctx.database.db
      .select()
      .from(socialIdentities)
      .where(eq(socialIdentities.userId, existing.userId));
    expect(links.map((l) => [l.provider, l.subject])).toEqual([["google", "bob"]]);
  });

  it("never takes over an account through an unverified e-mail", async () => {
    await createTestUser(app.ctx.database, { email: "victim@example.test" });
    const client = new TestClient(app);
    const res = await signInWithProvider(client, "mallory");
    expect(res.headers.location).toBe(FAILURE);
    expect((await client.get(PROFILE)).statusCode).toBe(403);
    expect(await app.ctx.database.db.select().from(socialIdentities)).toEqual([]);
  });

  it("refuses a callback whose state does not match, or that has no pending sign-in", async () => {
    const client = new TestClient(app);
    const res = await signInWithProvider(client, "alice", "/user/profile", (url) =>
      url.searchParams.set("state", "forged-state"),
    );
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(FAILURE);
    expect((await client.get(PROFILE)).statusCode).toBe(403);

    const noCookie = await app.inject({
      method: "GET",
      url: "/dashboard_api/v1/auth/social/google/callback/?code=x&state=y",
    });
    expect(noCookie.headers.location).toBe(FAILURE);
    expect(await app.ctx.database.db.select().from(users)).toEqual([]);
  });

  it("redirects only to paths on our own host after sign-in", async () => {
    for (const destination of [
      "https://evil.example/x",
      "//evil.example/x",
      "/\\evil.example",
      "javascript:alert(1)",
    ]) {
      const res = await signInWithProvider(new TestClient(app), "alice", destination);
      expect(res.headers.location, destination).toBe("/dashboard");
    }
    const res = await signInWithProvider(new TestClient(app), "alice", "/user/units?tab=1");
    expect(res.headers.location).toBe("/user/units?tab=1");
    const own = await signInWithProvider(new TestClient(app), "alice", `${TEST_ORIGIN}/user/profile`);
    expect(own.headers.location).toBe(`${TEST_ORIGIN}/user/profile`);
  });
});

describe("social sign-in with an unreachable provider", () => {
  it("sends the browser back to sign-in instead of failing with a 5xx", async () => {
    const closed = await startProvider();
    await closed.close();
    const app = await buildTestApp(await getTestDatabase("pglite"), {
      OIDC_GOOGLE_ISSUER: closed.issuer,
      OIDC_GOOGLE_CLIENT_ID: "tonus",
      OIDC_GOOGLE_CLIENT_SECRET: "tonus-test-client-secret",
    });
    const res = await app.inject({ method: "GET", url: "/dashboard_api/v1/auth/social/google/start/" });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(FAILURE);
    await app.close();
  });
});

describe("safeDestination", () => {
  it("keeps same-host paths and replaces everything else with /dashboard", () => {
    expect(safeDestination("/user/profile")).toBe("/user/profile");
    const own = new Set(["https://tonus.example"]);
    expect(safeDestination("https://tonus.example/user/units", own)).toBe("https://tonus.example/user/units");
    expect(safeDestination("https://tonus.example.evil.test/x", own)).toBe("/dashboard");
    expect(safeDestination("https://evil.test@tonus.example/x", own)).toBe("/dashboard");
    for (const bad of [undefined, "", "dashboard", "http://evil.example", "//evil", "/\\evil", "/\tx"]) {
      expect(safeDestination(bad), String(bad)).toBe("/dashboard");
    }
  });
});
