import http from "node:http";
import type { AddressInfo } from "node:net";
import { BILLING_API, type Product } from "@tonus/contract";
import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { billingEvents, billingTransactions, subscriptions } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { getEntitlements } from "../entitlements/entitlements.service.ts";
import { seedDefaultPlans } from "./plans.ts";

/**
 * The Stripe provider against a local HTTP server that answers as Stripe's API does. What is mocked: Stripe
 * itself (its API is outside this machine). The answers are written from Stripe's documented formats
 * (https://docs.stripe.com/api/payment_intents/object, /api/errors, /api/idempotent_requests) for Stripe's
 * documented test PaymentMethods pm_card_visa, pm_card_chargeDeclined and pm_card_authenticationRequired.
 * The SDK, our code and the webhook signatures are real: signatures are computed with Stripe's own
 * `webhooks.generateTestHeaderString` and a test secret.
 */
const WEBHOOK_SECRET = "whsec_test_tonus_secret";
type Intent = Record<string, unknown> & { id: string; status: string };

function fakeStripe() {
  const intents = new Map<string, Intent>();
  const keys = new Map<string, { params: string; status: number; body: unknown }>();
  const calls: { method: string; path: string; key: string | undefined; params: URLSearchParams }[] = [];
  let n = 0;
  const card = { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2034 };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d: Buffer) => (raw += d.toString()));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stripe.local");
      const params = new URLSearchParams(raw || url.search);
      const key = req.headers["idempotency-key"] as string | undefined;
      calls.push({ method: req.method ?? "", path: url.pathname, key, params });
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json", "request-id": `req_${++n}` });
        res.end(JSON.stringify(body));
      };
      const expandPm = (intent: Intent) =>
        params.getAll("expand[]").concat(params.getAll("expand[0]")).includes("payment_method")
          ? { ...intent, payment_method: { id: intent.payment_method, object: "payment_method", card } }
          : intent;
      if (req.method === "POST" && key) {
        const seen = keys.get(key);
        if (seen && seen.params !== raw)
          return send(400, {
            error: {
              type: "idempotency_error",
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
            },
          });
        if (seen) return send(seen.status, seen.body);
      }
      const remember = (status: number, body: unknown) => {
        if (req.method === "POST" && key) keys.set(key, { params: raw, status, body });
        send(status, body);
      };
      if (req.method === "POST" && url.pathname === "/v1/customers")
        return remember(200, { id: `cus_${++n}`, object: "customer", metadata: {} });
      if (req.method === "POST" && url.pathname === "/v1/payment_intents") {
        const pm = params.get("payment_method") ?? "";
        const intent: Intent = {
          id: `pi_${++n}`,
          object: "payment_intent",
          amount: Number(params.get("amount")),
          currency: params.get("currency"),
          customer: params.get("customer"),
          payment_method: pm,
          metadata: { tonus_transaction: params.get("metadata[tonus_transaction]") },
          status: "succeeded",
          last_payment_error: null,
          next_action: null,
        };
        if (pm === "pm_card_chargeDeclined") {
          intent.status = "requires_payment_method";
          intent.last_payment_error = {
            type: "card_error",
            code: "card_declined",
            message: "Your card was declined.",
          };
          intents.set(intent.id, intent);
          return remember(402, {
            error: {
              type: "card_error",
              code: "card_declined",
              decline_code: "generic_decline",
              message: "Your card was declined.",
              payment_intent: intent,
            },
          });
        }
        if (pm === "pm_card_authenticationRequired") {
          intent.status = "requires_action";
          intent.next_action = { type: "use_stripe_sdk", use_stripe_sdk: {} };
        }
        intents.set(intent.id, intent);
        return remember(200, expandPm(intent));
      }
      const match = /^\/v1\/payment_intents\/([^/]+)$/.exec(url.pathname);
      if (req.method === "GET" && match) {
        const intent = intents.get(match[1] ?? "");
        if (!intent)
          return send(404, {
            error: {
              type: "invalid_request_error",
              code: "resource_missing",
              message: "No such payment_intent",
            },
          });
        return send(200, expandPm(intent));
      }
      if (req.method === "POST" && url.pathname === "/v1/refunds")
        return remember(200, {
          id: `re_${++n}`,
          object: "refund",
          payment_intent: params.get("payment_intent"),
          status: "succeeded",
        });
      send(404, {
        error: {
          type: "invalid_request_error",
          message: `Unrecognized request URL (${req.method}: ${url.pathname})`,
        },
      });
    });
  });
  return { server, intents, calls };
}

describe.each(BACKENDS)("the Stripe provider on %s (Stripe's API answered locally)", (backend) => {
  const fake = fakeStripe();
  let app: App;
  let user: TestUser;
  const signer = new Stripe("sk_test_signer");

  beforeAll(async () => {
    await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve));
    const { port } = fake.server.address() as AddressInfo;
    app = await buildTestApp(await getTestDatabase(backend), {
      BILLING_MODE: "stripe",
      STRIPE_SECRET_KEY: "sk_test_tonus",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: `http://127.0.0.1:${port}`,
    });
  });
  afterAll(async () => {
    await app.close();
    fake.server.closeAllConnections();
    await new Promise((resolve) => fake.server.close(resolve));
  });
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    await seedDefaultPlans(app.ctx.database.db);
    user = await createTestUser(app.ctx.database);
    fake.calls.length = 0;
  });

  async function monthlyId() {
    const list = (await app.inject({ method: "GET", url: BILLING_API.products })).json() as Product[];
    return list.find((p) => p.slug === "monthly-subscription")?.id ?? 0;
  }

  function webhook(payload: string, header: string | undefined) {
    return app.inject({
      method: "POST",
      url: BILLING_API.stripeWebhook,
      payload,
      headers: { "content-type": "application/json", ...(header ? { "stripe-signature": header } : {}) },
    });
  }
  const sign = (payload: string, opts: { secret?: string; timestamp?: number } = {}) =>
    signer.webhooks.generateTestHeaderString({
      payload,
      secret: opts.secret ?? WEBHOOK_SECRET,
      timestamp: opts.timestamp ?? Math.floor(Date.now() / 1000),
    });
  const event = (id: string, type: string, intent: Intent) =>
    JSON.stringify({ id, object: "event", type, data: { object: intent } }, null, 2);

  it("pays with pm_card_visa under idempotency keys on every create, and the user becomes a customer", async () => {
    const client = user.client(app);
    const res = await client.post(BILLING_API.pay, {
      productId: await monthlyId(),
      stripeToken: "pm_card_visa",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: "succeeded" });
    expect(await getEntitlements(app.ctx, user.userId)).toMatchObject({ is_customer: true, plan: "monthly" });
    const creates = fake.calls.filter((c) => c.method === "POST");
    expect(creates.map((c) => c.path)).toEqual(["/v1/customers", "/v1/payment_intents"]);
    for (const c of creates) expect(c.key).toMatch(/^tonus-/);
    const intent = creates[1]?.params;
    expect(intent?.get("amount")).toBe("999");
    expect(intent?.get("setup_future_usage")).toBe("off_session");
    const [sub] = await app.ctx.database.db.select().from(subscriptions);
    expect(sub).toMatchObject({ cardLast4: "4242", providerPaymentMethod: "pm_card_visa" });
    expect(sub?.providerCustomer).toMatch(/^cus_/);

    // The same Idempotency-Key from the page again: the first answer, no second charge at Stripe.
    const headers = { "idempotency-key": "page-1" };
    const other = createTestUser(app.ctx.database);
    const c2 = (await other).client(app);
    await c2.post(BILLING_API.pay, { productId: await monthlyId(), stripeToken: "pm_card_visa" }, headers);
    await c2.post(BILLING_API.pay, { productId: await monthlyId(), stripeToken: "pm_card_visa" }, headers);
    expect(fake.calls.filter((c) => c.path === "/v1/payment_intents")).toHaveLength(2);
  });

  it("answers pm_card_chargeDeclined with 402 and Stripe's message", async () => {
    const res = await user
      .client(app)
      .post(BILLING_API.pay, { productId: await monthlyId(), stripeToken: "pm_card_chargeDeclined" });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({ code: "payment_failed", error: "Your card was declined." });
    expect(await getEntitlements(app.ctx, user.userId)).toMatchObject({ is_customer: false });
  });

  it("lets the signed webhook decide a 3-D Secure payment, once, whatever is replayed or tampered (P1, P2)", async () => {
    const client = user.client(app);
    const pay = (
      await client.post(BILLING_API.pay, {
        productId: await monthlyId(),
        stripeToken: "pm_card_authenticationRequired",
      })
    ).json();
    expect(pay).toMatchObject({ status: "requires_action" });
    const intent = fake.intents.get(pay.payment_intent);
    if (!intent) throw new Error("intent not at the fake Stripe");
    // The customer confirms with Stripe.js; Stripe now holds the intent as succeeded.
    intent.status = "succeeded";
    const payload = event("evt_1", "payment_intent.succeeded", intent);
    const now = Math.floor(Date.now() / 1000);
    const good = sign(payload);
    const v1 = good.split(",").find((p) => p.startsWith("v1=")) ?? "";
    const flipped = payload.replace('"payment_intent.succeeded"', '"payment_intent.succeedee"');

    const refused: [string, string, string | undefined][] = [
      ["wrong secret", payload, sign(payload, { secret: "whsec_other" })],
      ["one byte flipped", flipped, good],
      ["re-serialised", JSON.stringify(JSON.parse(payload)), good],
      ["no header", payload, undefined],
      ["301 s old", payload, sign(payload, { timestamp: now - 301 })],
      ["an hour ahead", payload, sign(payload, { timestamp: now + 3600 })],
    ];
    for (const [name, body, header] of refused) {
      const res = await webhook(body, header);
      expect(res.statusCode, name).toBe(400);
    }
    expect(await app.ctx.database.db.select().from(subscriptions)).toHaveLength(0);
    expect(await app.ctx.database.db.select().from(billingEvents)).toHaveLength(0);

    const twoSignatures = `t=${now},v1=${"0".repeat(64)},${v1}`;
    expect((await webhook(payload, twoSignatures)).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await webhook(payload, sign(payload))).statusCode).toBe(200);
    expect(await app.ctx.database.db.select().from(subscriptions)).toHaveLength(1);
    expect(await app.ctx.database.db.select().from(billingEvents)).toHaveLength(1);
    expect(await getEntitlements(app.ctx, user.userId)).toMatchObject({ is_customer: true });
    // The page's own finish after the webhook changes nothing either.
    const finish = await client.post(BILLING_API.pay, {
      productId: await monthlyId(),
      stripe3dToken: pay.payment_intent,
    });
    expect(finish.json()).toMatchObject({ status: "succeeded" });
    expect(await app.ctx.database.db.select().from(subscriptions)).toHaveLength(1);

    const big = JSON.stringify({ pad: "x".repeat(1024 * 1024 + 10) });
    expect((await webhook(big, sign(big))).statusCode).toBe(413);
  });

  it("takes the paid state from Stripe's API, not from the event body", async () => {
    const client = user.client(app);
    const pay = (
      await client.post(BILLING_API.pay, {
        productId: await monthlyId(),
        stripeToken: "pm_card_authenticationRequired",
      })
    ).json();
    const intent = fake.intents.get(pay.payment_intent);
    if (!intent) throw new Error("intent not at the fake Stripe");
    // A correctly signed event whose body claims success while Stripe still says requires_action.
    const payload = event("evt_2", "payment_intent.succeeded", { ...intent, status: "succeeded" });
    expect((await webhook(payload, sign(payload))).statusCode).toBe(200);
    expect(await getEntitlements(app.ctx, user.userId)).toMatchObject({ is_customer: false });
    const [tx] = await app.ctx.database.db
      .select()
      .from(billingTransactions)
      .where(eq(billingTransactions.userId, user.userId));
    expect(tx?.status).toBe("requires_action");
  });
});
