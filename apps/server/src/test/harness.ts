import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LightMyRequestResponse } from "fastify";
import { type App, type BuildOptions, buildApp } from "../app.ts";
import type { Database } from "../db/client.ts";
import { loadConfig } from "../lib/config.ts";

export const TEST_SECRET = "test-secret-key-with-more-than-32-characters!";
export const TEST_ORIGIN = "http://tonus.test";

/** Builds the app on a shared test database with test defaults (`BILLING_MODE=sandbox`, silent logs). */
export async function buildTestApp(
  database: Database,
  env: Record<string, string> = {},
  options: Omit<BuildOptions, "database"> = {},
): Promise<App> {
  // Each app its own deletion ledger, so one test's deletions are never re-applied by another's start.
  const ledger = path.join(os.tmpdir(), `tonus-test-ledger-${randomUUID()}.log`);
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    BILLING_MODE: "sandbox",
    SECRET_KEY: TEST_SECRET,
    PUBLIC_URL: TEST_ORIGIN,
    DATA_DIR: "/tmp/tonus-test-unused",
    WEB_DIST: "/nonexistent-web-dist",
    DELETION_LEDGER: ledger,
    ...env,
  });
  const app = await buildApp(config, { ...options, database });
  if (!env.DELETION_LEDGER) app.addHook("onClose", async () => fs.rmSync(ledger, { force: true }));
  await app.ready();
  return app;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";

/**
 * A browser-like client for `app.inject`: keeps cookies and, for unsafe methods, sends `X-CSRFToken`
 * from the `csrftoken` cookie and the app's `Origin`, as the web app does.
 */
export class TestClient {
  readonly cookies = new Map<string, string>();
  private readonly app: App;
  constructor(app: App) {
    this.app = app;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  /** Fetches a CSRF token (and an anonymous session) the way the web app does on load. */
  async prime(): Promise<void> {
    await this.request("GET", "/dashboard_api/v1/auth/csrf/");
  }

  async request(
    method: Method,
    url: string,
    opts: { body?: unknown; headers?: Record<string, string>; payload?: string | Buffer } = {},
  ): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    const unsafe = !["GET", "HEAD", "OPTIONS"].includes(method);
    if (unsafe) {
      headers.origin ??= TEST_ORIGIN;
      const csrf = this.cookies.get("csrftoken");
      if (csrf && !("x-csrftoken" in headers)) headers["x-csrftoken"] = csrf;
    }
    const res = await this.app.inject({
      method,
      url,
      headers,
      ...(opts.payload !== undefined
        ? { payload: opts.payload }
        : opts.body !== undefined
          ? { payload: opts.body as object }
          : {}),
    });
    for (const c of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const expired = c.maxAge === 0 || (c.expires && c.expires.getTime() < Date.now());
      if (expired || c.value === "") this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  get(url: string, headers?: Record<string, string>) {
    return this.request("GET", url, { headers });
  }
  post(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request("POST", url, { body: body ?? {}, headers });
  }
  put(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request("PUT", url, { body: body ?? {}, headers });
  }
  delete(url: string, headers?: Record<string, string>) {
    return this.request("DELETE", url, { headers });
  }
}
