import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { API } from "@tonus/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "./app.ts";
import { sessions } from "./db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "./test/databases.ts";
import { buildTestApp, TestClient } from "./test/harness.ts";

describe.each(BACKENDS)("app core on %s", (backend) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => resetDatabase(app.ctx.database));

  it("counts the connection's own address, not X-Forwarded-For, unless a proxy is trusted", async () => {
    const signUp = async (target: App, email: string) => {
      const client = new TestClient(target);
      await client.prime();
      const res = await client.post(
        API.register,
        { email, password: "correct horse battery staple" },
        { "x-forwarded-for": "203.0.113.9" },
      );
      expect(res.statusCode, res.body).toBeLessThan(300);
      const rows = await target.ctx.database.db.select({ ip: sessions.ip }).from(sessions);
      return rows.map((r) => r.ip);
    };
    expect(await signUp(app, "direct@example.test")).not.toContain("203.0.113.9");
    const proxied = await buildTestApp(app.ctx.database, { TRUST_PROXY: "1" });
    try {
      expect(await signUp(proxied, "proxied@example.test")).toContain("203.0.113.9");
    } finally {
      await proxied.close();
    }
  });

  it("answers /healthz with the database kind", async () => {
    const res = await app.inject({ method: "GET", url: "/healthz" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok", database: backend });
  });

  it("exposes only the allowlisted public configuration keys", async () => {
    const res = await app.inject({ method: "GET", url: "/dashboard_api/v1/config/env/" });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual([
      "analytics_send_to_tonus",
      "billing_mode",
      "chat_widget_url",
      "help_center_url",
      "intercom_key",
      "maintenance",
      "stripe_publishable_key",
      "tonus_analytics_token",
    ]);
  });

  it("answers unknown API paths with the JSON error shape and a stable code", async () => {
    const res = await app.inject({ method: "GET", url: "/dashboard_api/v1/nope/" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: "Not found", code: "not_found" });
  });

  it("sends security headers on every response", async () => {
    const res = await app.inject({ method: "GET", url: "/healthz" });
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(res.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(res.headers["cross-origin-opener-policy"]).toBe("same-origin");
  });
});

describe("maintenance mode", () => {
  it("answers every API call 503 with the spec's text", async () => {
    const app = await buildTestApp(await getTestDatabase("pglite"), { MAINTENANCE: "1" });
    const res = await app.inject({ method: "GET", url: "/dashboard_api/v1/config/env/" });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      code: "maintenance",
      error: "Maintenance in progress, please come back later",
    });
    await app.close();
  });
});

describe("the web app's pages", () => {
  let app: App;
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-web-dist-"));
    fs.writeFileSync(path.join(dist, "index.html"), "<!doctype html><title>Tonus</title>");
    app = await buildTestApp(await getTestDatabase("pglite"), { WEB_DIST: dist });
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });
  const page = (url: string) => app.inject({ method: "GET", url, headers: { accept: "text/html" } });

  it("serves the share pages unindexed, uncached and without a referrer (H1, H3)", async () => {
    for (const url of ["/share-measurement", "/share-bp-log", "/share-bp-log/", "/share-measurement?x=1"]) {
      const res = await page(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"]).toContain("text/html");
      expect(res.headers["x-robots-tag"], url).toBe("noindex, nofollow");
      expect(res.headers["referrer-policy"], url).toBe("no-referrer");
      expect(res.headers["cache-control"], url).toBe("no-store");
      // Only our own origin for scripts, whatever the chat configuration (none here).
      expect(res.headers["content-security-policy"]).toContain("script-src 'self';");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("keeps the ordinary headers on other pages and sends the direct-login page no referrer", async () => {
    for (const url of ["/measure", "/share-measurements", "/dashboard"]) {
      const res = await page(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["x-robots-tag"], url).toBeUndefined();
      expect(res.headers["referrer-policy"], url).toBe("strict-origin-when-cross-origin");
      expect(res.headers["cache-control"], url).toBe("no-cache");
    }
    const direct = await page("/user/login-direct?username=a&code=b");
    expect(direct.headers["referrer-policy"]).toBe("no-referrer");
    expect(direct.headers["cache-control"]).toBe("no-store");
  });
});
