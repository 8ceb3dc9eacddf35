import { API } from "@tonus/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { ConfigError, loadConfig } from "../../lib/config.ts";
import { getTestDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";

/**
 * What the server does for Stripe.js on the page: hands out the publishable key and allows Stripe's
 * script, frames and API in the CSP, only with BILLING_MODE=stripe. Stripe itself cannot be reached from
 * this machine; the page's use of Stripe.js is tested in apps/web (CardForm) against a stand-in.
 */
const KEY = "pk_test_51TonusExample";

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp.split(";").map((d) => {
      const [name = "", ...values] = d.trim().split(/\s+/);
      return [name, values];
    }),
  );
}

describe("Stripe.js on the web page", () => {
  let stripe: App;
  let sandbox: App;
  beforeAll(async () => {
    const database = await getTestDatabase("pglite");
    stripe = await buildTestApp(
      database,
      { BILLING_MODE: "stripe", STRIPE_SECRET_KEY: "sk_test_x", STRIPE_PUBLISHABLE_KEY: KEY },
      { workJobs: false },
    );
    sandbox = await buildTestApp(database, { STRIPE_PUBLISHABLE_KEY: KEY }, { workJobs: false });
  });
  afterAll(async () => {
    await stripe.close();
    await sandbox.close();
  });

  it("hands the publishable key to the page and lets Stripe.js load, in Stripe mode only", async () => {
    const res = await stripe.inject({ method: "GET", url: API.configEnv });
    expect(res.json()).toMatchObject({ billing_mode: "stripe", stripe_publishable_key: KEY });
    const csp = directives(res.headers["content-security-policy"] as string);
    expect(csp.get("script-src")).toEqual(["'self'", "https://js.stripe.com"]);
    expect(csp.get("frame-src")).toEqual(["'self'", "https://js.stripe.com", "https://hooks.stripe.com"]);
    expect(csp.get("connect-src")).toEqual(["'self'", "https://api.stripe.com"]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);

    const other = await sandbox.inject({ method: "GET", url: API.configEnv });
    expect(other.json()).toMatchObject({ billing_mode: "sandbox", stripe_publishable_key: null });
    const plain = other.headers["content-security-policy"] as string;
    expect(plain).not.toContain("stripe.com");
    expect(directives(plain).get("script-src")).toEqual(["'self'"]);
  });

  it("refuses to start with a secret key where the publishable key belongs", () => {
    expect(() => loadConfig({ STRIPE_PUBLISHABLE_KEY: "sk_live_oops" })).toThrow(ConfigError);
    expect(() => loadConfig({ STRIPE_PUBLISHABLE_KEY: "sk_live_oops" })).toThrow(/STRIPE_PUBLISHABLE_KEY/);
    expect(loadConfig({ STRIPE_PUBLISHABLE_KEY: KEY }).STRIPE_PUBLISHABLE_KEY).toBe(KEY);
  });
});
