import { API } from "@tonus/contract";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import type { Database } from "../../db/client.ts";
import { hmacHex } from "../../lib/crypto.ts";
import { getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";

/** The chat widget's server side: what the web app is told to load, the CSP for it, the profile's hmac. */
describe("the support chat configuration", () => {
  let database: Database;
  let app: App | undefined;
  beforeAll(async () => {
    database = await getTestDatabase("pglite");
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const start = async (env: Record<string, string>) => {
    app = await buildTestApp(database, env, { workJobs: false });
    await resetDatabase(database);
    return app;
  };
  const configOf = async (a: App) => (await a.inject({ method: "GET", url: API.configEnv })).json();
  const cspOf = async (a: App) =>
    String((await a.inject({ method: "GET", url: "/healthz" })).headers["content-security-policy"]);

  it("loads nothing and allows nothing extra without an Intercom key, also when it is empty", async () => {
    const envs: Record<string, string>[] = [
      {},
      { INTERCOM_KEY: "", CHAT_WIDGET_URL: "https://chat.example/widget.js" },
    ];
    for (const env of envs) {
      const a = await start(env);
      expect(await configOf(a)).toMatchObject({ intercom_key: null, chat_widget_url: null });
      const csp = await cspOf(a);
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toContain("intercom");
      expect(csp).not.toContain("chat.example");
      await a.close();
      app = undefined;
    }
  });

  it("points at Intercom's widget for the key and lets only Intercom's documented sources in", async () => {
    const a = await start({ INTERCOM_KEY: "abc123" });
    expect(await configOf(a)).toMatchObject({
      intercom_key: "abc123",
      chat_widget_url: "https://widget.intercom.io/widget/abc123",
    });
    const csp = await cspOf(a);
    expect(csp).toContain(
      "script-src 'self' https://app.intercom.io https://widget.intercom.io https://js.intercomcdn.com;",
    );
    expect(csp).toContain("wss://nexus-websocket-a.intercom.io");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
  });

  it("uses the operator's own script address instead, with only its origin allowed", async () => {
    const a = await start({ INTERCOM_KEY: "abc123", CHAT_WIDGET_URL: "https://chat.example/widget.js" });
    expect((await configOf(a)).chat_widget_url).toBe("https://chat.example/widget.js");
    const csp = await cspOf(a);
    expect(csp).toContain("script-src 'self' https://chat.example;");
    expect(csp).not.toContain("intercom.io");
  });

  it("gives the profile Intercom's identity hash: HMAC-SHA256 of the user id with INTERCOM_SECRET", async () => {
    const secret = "intercom-identity-verification-secret";
    const a = await start({ INTERCOM_KEY: "abc123", INTERCOM_SECRET: secret });
    const user = await createTestUser(database);
    const profile = (await user.client(a).get(API.profile)).json();
    expect(profile.hmac).toBe(hmacHex(secret, user.userId));
    expect(profile.hmac).toMatch(/^[0-9a-f]{64}$/);
    // The secret itself is in no answer.
    expect(JSON.stringify(profile)).not.toContain(secret);
    expect(JSON.stringify(await configOf(a))).not.toContain(secret);
  });
});
