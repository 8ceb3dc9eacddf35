import { OAUTH_API } from "@tonus/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { registerOAuthClient } from "./oauth.clients.ts";
import {
  TOKEN_FAILURE_WINDOW_MS,
  TOKEN_FAILURES_PER_CLIENT,
  TOKEN_FAILURES_PER_IP,
  tokenEndpointLimited,
} from "./oauth.token-limits.ts";

const URI = "https://ifttt.com/channels/tonus/authorize";

describe.each(BACKENDS)("failed client authentications at the token endpoint on %s", (backend) => {
  let app: App;
  let secret: string;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    const registered = await registerOAuthClient(app.ctx.database.db, {
      id: "ifttt",
      name: "IFTTT",
      redirectUris: [URI],
      isPublic: false,
      tokenPolicy: "non_expiring",
    });
    secret = registered.secret ?? "";
    await registerOAuthClient(app.ctx.database.db, {
      id: "other",
      name: "Other",
      redirectUris: ["https://other.example/cb"],
      isPublic: false,
      tokenPolicy: "expiring",
    });
  });

  /** A token request from `ip` for a code nobody issued: with the right secret that is invalid_grant. */
  const token = (ip: string, clientSecret: string, clientId = "ifttt", on: App = app) =>
    on.inject({
      method: "POST",
      url: OAUTH_API.token,
      remoteAddress: ip,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({
        grant_type: "authorization_code",
        code: "no-such-code",
        redirect_uri: URI,
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
    });

  it("answers 429 with Retry-After after too many failures from one address, before looking at the secret", async () => {
    for (let i = 0; i < TOKEN_FAILURES_PER_IP; i++) {
      const res = await token("203.0.113.1", `wrong-${i}`);
      expect(res.statusCode).toBe(401);
    }
    const blocked = await token("203.0.113.1", secret);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ error: "rate_limited", code: "rate_limited" });
    const retryAfter = Number(blocked.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(TOKEN_FAILURE_WINDOW_MS / 1000);
    expect(blocked.headers["cache-control"]).toBe("no-store");
    // The client itself is not locked out: from another address its secret still authenticates (the code
    // is unknown, so that is invalid_grant, which is not a failed client authentication).
    const elsewhere = await token("203.0.113.2", secret);
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json()).toMatchObject({ error: "invalid_grant" });
    // The limit is in the database: another instance sees it too.
    const second = await buildTestApp(app.ctx.database, {}, { workJobs: false });
    try {
      expect((await token("203.0.113.1", secret, "ifttt", second)).statusCode).toBe(429);
    } finally {
      await second.close();
    }
  });

  it("stops a client's failures from many addresses, leaving other clients alone", async () => {
    const perIp = TOKEN_FAILURES_PER_IP - 1;
    for (let i = 0; i < TOKEN_FAILURES_PER_CLIENT; i++) {
      const ip = `198.51.100.${Math.floor(i / perIp) + 1}`;
      expect((await token(ip, "wrong")).statusCode).toBe(401);
    }
    const fresh = "192.0.2.77";
    expect((await token(fresh, secret)).statusCode).toBe(429);
    // Another client from the same fresh address is unaffected.
    expect((await token(fresh, "wrong", "other")).statusCode).toBe(401);
  });

  it("counts failed authentications only, and lets the window end", async () => {
    // Bad codes with the right secret are not client failures.
    for (let i = 0; i < TOKEN_FAILURES_PER_IP + 5; i++)
      expect((await token("203.0.113.9", secret)).statusCode).toBe(400);
    for (let i = 0; i < TOKEN_FAILURES_PER_IP; i++) await token("203.0.113.9", "wrong");
    expect((await token("203.0.113.9", secret)).statusCode).toBe(429);
    const req = {
      fields: new Map([
        ["grant_type", "authorization_code"],
        ["code", "no-such-code"],
        ["redirect_uri", URI],
        ["client_id", "ifttt"],
        ["client_secret", secret],
      ]),
      authorization: undefined,
    };
    const deps = { db: app.ctx.database.db, query: app.ctx.database.query };
    const later = new Date(Date.now() + TOKEN_FAILURE_WINDOW_MS + 1000);
    await expect(tokenEndpointLimited(deps, req, "203.0.113.9", later)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("counts Basic credentials under the client id they name", async () => {
    const basic = (ip: string, pass: string) =>
      app.inject({
        method: "POST",
        url: OAUTH_API.token,
        remoteAddress: ip,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`ifttt:${pass}`).toString("base64")}`,
        },
        payload: `grant_type=authorization_code&code=x&redirect_uri=${encodeURIComponent(URI)}`,
      });
    const perIp = TOKEN_FAILURES_PER_IP - 1;
    for (let i = 0; i < TOKEN_FAILURES_PER_CLIENT; i++)
      expect((await basic(`198.18.0.${Math.floor(i / perIp) + 1}`, "nope")).statusCode).toBe(401);
    expect((await token("198.18.1.1", secret)).statusCode).toBe(429);
  });
});
