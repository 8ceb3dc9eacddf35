import type { AddressInfo } from "node:net";
import { BILLING_API, type Product } from "@tonus/contract";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import {
  billingEvents,
  billingTransactions,
  providerCleanups,
  referrals,
  subscriptions,
  users,
} from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { fakeStripe, type Intent, WEBHOOK_SECRET } from "../../test/stripe-fake.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { getEntitlements } from "../entitlements/entitlements.service.ts";
import { CUSTOMER_CLEANUP_JOB, runCustomerCleanups } from "./billing.customers.ts";
import { reconcilePending } from "./billing.service.ts";
import { seedDefaultPlans } from "./plans.ts";
import { StripeProvider } from "./stripe.provider.ts";

const HEAVY = Boolean(process.env.TONUS_HEAVY);

/**
 * The Stripe provider against a local stand-in for Stripe's API (test/stripe-fake.ts says what is mocked
 * and from which documented formats its answers are written). The SDK, our code and the webhook
 * signatures are real.
 */
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
      // P2 pays a reward for every friend of one referrer, up to 1,000 of them in the heavy tier.
      REFERRAL_REWARD_MAX: "0",
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

  it("deletes the person's Stripe customer and detaches its card after account deletion, retried until done", async () => {
    // The clean-up job is run by hand here, not by this app's worker.
    await app.ctx.services.jobs.boss.offWork(CUSTOMER_CLEANUP_JOB);
    const client = user.client(app);
    const paid = await client.post(BILLING_API.pay, {
      productId: await monthlyId(),
      stripeToken: "pm_card_visa",
    });
    expect(paid.statusCode).toBe(200);
    const [sub] = await app.ctx.database.db.select().from(subscriptions);
    const customer = sub?.providerCustomer ?? "";
    expect(fake.customers.get(customer)).toEqual(new Set(["pm_card_visa"]));
    await client.post(BILLING_API.cancel, { purchase_id: sub?.id });
    expect((await client.post(BILLING_API.userDelete)).statusCode).toBe(200);
    expect(await app.ctx.database.db.select().from(providerCleanups)).toMatchObject([
      { provider: "stripe", customerId: customer },
    ]);

    // Stripe fails (after the SDK's own retries): the customer stays queued with the error.
    const deps = {
      ...app.ctx,
      provider: new StripeProvider({ secretKey: "sk_test_tonus", apiUrl: app.ctx.config.STRIPE_API_URL }),
    };
    fake.failNext(`/v1/customers/${customer}/payment_methods`, 3);
    expect(await runCustomerCleanups(deps)).toEqual({ deleted: 0, failed: 1 });
    const [queued] = await app.ctx.database.db.select().from(providerCleanups);
    expect(queued?.attempts).toBe(1);
    expect(fake.customers.has(customer)).toBe(true);

    fake.calls.length = 0;
    expect(await runCustomerCleanups(deps)).toEqual({ deleted: 1, failed: 0 });
    expect(fake.customers.has(customer)).toBe(false);
    expect(await app.ctx.database.db.select().from(providerCleanups)).toHaveLength(0);
    const detach = fake.calls.find((c) => c.path === "/v1/payment_methods/pm_card_visa/detach");
    expect(detach?.key).toBe(`tonus-delete-customer-${customer}-pm_card_visa`);
    expect(fake.calls.some((c) => c.method === "DELETE" && c.path === `/v1/customers/${customer}`)).toBe(
      true,
    );

    // Queued again (a restored backup deleted once more): a customer Stripe no longer has counts as deleted.
    await app.ctx.database.db.insert(providerCleanups).values({ provider: "stripe", customerId: customer });
    expect(await runCustomerCleanups(deps)).toEqual({ deleted: 1, failed: 0 });
  });

  it("ends PRO when Stripe confirms a charge was refunded in full, whatever the event body claims", async () => {
    const client = user.client(app);
    const paid = (
      await client.post(BILLING_API.pay, { productId: await monthlyId(), stripeToken: "pm_card_visa" })
    ).json();
    expect(await getEntitlements(app.ctx, user.userId)).toMatchObject({ is_customer: true, plan: "monthly" });
    const intentId = paid.payment_intent as string;
    const charge = (id: string) =>
      JSON.stringify({
        id,
        object: "event",
        type: "charge.refunded",
        data: {
          object: {
            id: `ch_${intentId.slice(3)}`,
            object: "charge",
            payment_intent: intentId,
            refunded: true,
          },
        },
      });
    // Signed, but Stripe's API says the charge is not refunded: nothing changes.
    const forged = charge("evt_refund_1");
    expect((await webhook(forged, sign(forged))).statusCode).toBe(200);
    expect(await getEntitlements(app.ctx, user.userId)).toMatchObject({ is_customer: true });
    const [before] = await app.ctx.database.db.select().from(billingTransactions);
    expect(before?.status).toBe("succeeded");

    // Refunded at Stripe (from its dashboard): the event now ends the subscription and the entitlement.
    const deps = {
      ...app.ctx,
      provider: new StripeProvider({ secretKey: "sk_test_tonus", apiUrl: app.ctx.config.STRIPE_API_URL }),
    };
    await deps.provider.refund(intentId, "refund-from-dashboard");
    const real = charge("evt_refund_2");
    for (let i = 0; i < 2; i++) expect((await webhook(real, sign(real))).statusCode).toBe(200);
    expect(await getEntitlements(app.ctx, user.userId)).toEqual({
      is_customer: false,
      plan: null,
      upgradable: true,
    });
    const [after] = await app.ctx.database.db.select().from(billingTransactions);
    expect(after?.status).toBe("refunded");
    const [sub] = await app.ctx.database.db.select().from(subscriptions);
    expect(sub).toMatchObject({ status: "expired", renews: false });
    expect((await client.get(BILLING_API.purchases)).json()).toEqual([]);
    const [profileUser] = await app.ctx.database.db.select().from(users).where(eq(users.id, user.userId));
    expect(profileUser?.billingStatus).toBe("none");
    // The renewal job does not charge a refunded subscription again.
    expect(fake.calls.filter((c) => c.path === "/v1/payment_intents")).toHaveLength(1);
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
    // What Stripe.js's handleNextAction needs on the page.
    expect(pay.client_secret).toBe(`${pay.payment_intent}_secret_${pay.payment_intent.slice(3)}`);
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
  it("credits the referral reward exactly once, however the confirmations of the friend's payment arrive (P2)", {
    timeout: HEAVY ? 3_600_000 : 120_000,
  }, async () => {
    const referrer = await createTestUser(app.ctx.database);
    const deps = {
      ...app.ctx,
      provider: new StripeProvider({ secretKey: "sk_test_tonus", apiUrl: app.ctx.config.STRIPE_API_URL }),
    };
    const step = fc.constantFrom("webhook", "webhook-again", "charge-event", "page", "reconcile", "dispatch");
    let friends = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        const friend = await createTestUser(app.ctx.database);
        await app.ctx.database.db
          .insert(referrals)
          .values({ userId: friend.userId, referrerId: referrer.userId, via: "link" });
        friends++;
        const client = friend.client(app);
        const pay = (
          await client.post(BILLING_API.pay, {
            productId: await monthlyId(),
            stripeToken: "pm_card_authenticationRequired",
          })
        ).json();
        const intent = fake.intents.get(pay.payment_intent);
        if (!intent) throw new Error("intent not at the fake Stripe");
        intent.status = "succeeded";
        const succeeded = event(`evt_${friend.userId}`, "payment_intent.succeeded", intent);
        const charge = event(`evt_c_${friend.userId}`, "charge.succeeded", intent);
        for (const s of [...steps, "page", "dispatch"]) {
          if (s === "webhook" || s === "webhook-again") await webhook(succeeded, sign(succeeded));
          if (s === "charge-event") await webhook(charge, sign(charge));
          if (s === "page")
            await client.post(BILLING_API.pay, { productId: await monthlyId(), stripe3dToken: intent.id });
          if (s === "reconcile") await reconcilePending(deps, new Date(Date.now() + 120_000));
          if (s === "dispatch") await app.ctx.services.events.dispatchPending();
        }
        const [row] = await app.ctx.database.db
          .select()
          .from(referrals)
          .where(eq(referrals.userId, friend.userId));
        expect(row?.rewardDays).toBe(30);
        const { rows } = await app.ctx.database.query<{ n: number }>(
          "select count(*)::int as n from outbox_events where user_id = $1 and type = 'billing.payment_succeeded'",
          [friend.userId],
        );
        expect(rows[0]?.n).toBe(1);
      }),
      // RELIABILITY P2's target in the heavy tier: 1,000 orderings, 0 divergent outcomes.
      { numRuns: HEAVY ? 1000 : 12 },
    );
    // One credit for the referrer, extended by 30 days per friend and by nothing else.
    const [credit] = await app.ctx.database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.userId, referrer.userId));
    const days =
      ((credit?.currentPeriodEnd?.getTime() ?? 0) - (credit?.currentPeriodStart?.getTime() ?? 0)) /
      86_400_000;
    expect(days).toBeCloseTo(30 * friends, 5);
  });
});
