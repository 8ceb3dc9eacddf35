import { BILLING_API, type Product, ProductsResponseSchema } from "@tonus/contract";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import {
  billingCoupons,
  billingTransactions,
  mailOutbox,
  providerCleanups,
  sandboxCustomers,
  sandboxIntents,
  sandboxTokens,
  subscriptions,
  users,
} from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import type { TestClient } from "../../test/harness.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { getEntitlements } from "../entitlements/entitlements.service.ts";
import { CUSTOMER_CLEANUP_JOB, runCustomerCleanups } from "./billing.customers.ts";
import { pay, reconcilePending, renewDue } from "./billing.service.ts";
import { refundStrandedVerifications } from "./card-verification.ts";
import { seedDefaultPlans } from "./plans.ts";
import { SandboxProvider } from "./sandbox.provider.ts";

/**
 * Billing on the built-in sandbox provider (no network, nothing mocked: the sandbox is the provider).
 * Cards follow Stripe's test cards: 4242… succeeds, 4000…0002 declines, 4000 0027 6000 3184 needs 3-D Secure.
 */
const CARD_OK = "4242 4242 4242 4242";
const CARD_DECLINE = "4000000000000002";
const CARD_3DS = "4000002760003184";

describe.each(BACKENDS)("billing on %s", (backend) => {
  let app: App;
  let user: TestUser;
  let client: TestClient;

  beforeAll(async () => {
    // As if behind a trusted proxy, so tests can give requests client addresses through X-Forwarded-For.
    app = await buildTestApp(await getTestDatabase(backend), { TRUST_PROXY: "true" });
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    await seedDefaultPlans(app.ctx.database.db);
    user = await createTestUser(app.ctx.database);
    client = user.client(app);
  });

  async function products(c: TestClient | App = client, lang = "en"): Promise<Product[]> {
    const res =
      "inject" in c
        ? await c.inject({ method: "GET", url: BILLING_API.products, headers: { "accept-language": lang } })
        : await c.get(BILLING_API.products, { "accept-language": lang });
    expect(res.statusCode).toBe(200);
    return ProductsResponseSchema.parse(res.json());
  }
  async function productId(slug: string, lang = "en") {
    const found = (await products(client, lang)).find((p) => p.slug === slug);
    if (!found) throw new Error(`no product ${slug}`);
    return found.id;
  }
  async function token(number: string) {
    const res = await client.post(BILLING_API.sandboxTokens, {
      number,
      exp_month: 12,
      exp_year: 2099,
      cvc: "123",
    });
    expect(res.statusCode).toBe(200);
    return res.json().id as string;
  }
  async function payMonthly(
    number = CARD_OK,
    extra: Record<string, unknown> = {},
    headers?: Record<string, string>,
  ) {
    return client.post(
      BILLING_API.pay,
      { productId: await productId("monthly-subscription"), stripeToken: await token(number), ...extra },
      headers,
    );
  }
  const entitlements = () => getEntitlements(app.ctx, user.userId);

  it("lists products: monthly, then yearly, then no interval; gift after the plans; the paid one inactive", async () => {
    const list = await products(app);
    expect(list.every((p) => p.currency === "USD")).toBe(true);
    const plans = list.filter((p) => p.active && p.slug !== "tonusgift");
    const rank = (p: Product) =>
      p.interval === "month" ? 0 : p.interval === "year" ? 1 : p.interval ? 2 : 3;
    expect(plans.map(rank)).toEqual([...plans.map(rank)].sort((a, b) => a - b));
    expect(plans[0]?.slug).toBe("monthly-subscription");
    expect(plans.filter((p) => p.interval === "year").map((p) => p.discount_percent)).toEqual([30, 50]);
    expect(list.at(-1)?.slug).toBe("tonusgift");
    expect(list.some((p) => p.is_paid)).toBe(false);
    expect((await products(app, "ru")).every((p) => p.currency === "RUB")).toBe(true);

    expect((await payMonthly()).statusCode).toBe(200);
    const after = await products();
    const paid = after.filter((p) => p.is_paid);
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ slug: "monthly-subscription", active: false });
    expect(after.filter((p) => p.active && p.slug === "monthly-subscription")).toHaveLength(0);
  });

  it("takes a payment with 4242…, starts the subscription and makes the user a customer", async () => {
    expect(await entitlements()).toEqual({ is_customer: false, plan: null, upgradable: true });
    const res = await payMonthly();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: "succeeded", gift: false });
    expect(await entitlements()).toEqual({ is_customer: true, plan: "monthly", upgradable: false });
    const [u] = await app.ctx.database.db.select().from(users).where(eq(users.id, user.userId));
    expect(u?.billingStatus).toBe("active");

    const purchases = (await client.get(BILLING_API.purchases)).json();
    expect(purchases).toHaveLength(1);
    expect(purchases[0]).toMatchObject({
      state: "active",
      plan: "monthly",
      card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2099 },
    });
    expect(purchases[0].next_payment).not.toBeNull();
    const methods = (await client.get(BILLING_API.paymentMethods)).json();
    expect(methods.result.data).toHaveLength(1);
    const history = (await client.get(`${BILLING_API.transactions}?limit=5&offset=0`)).json();
    expect(history).toMatchObject({ count: 1, results: [{ amount: 999, currency: "USD", paid: true }] });

    const again = await payMonthly();
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: "already_subscribed",
      error: "You already have an active subscription",
    });
  });

  it("answers a declined card with 402 and the provider's message, and changes no entitlement", async () => {
    const res = await payMonthly(CARD_DECLINE);
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({ code: "payment_failed", error: "Your card was declined." });
    expect(await entitlements()).toMatchObject({ is_customer: false });
    expect(await app.ctx.database.db.select().from(subscriptions)).toHaveLength(0);
    const history = (await client.get(BILLING_API.transactions)).json();
    expect(history.results).toMatchObject([{ paid: false, status: "failed" }]);
    // An unknown (non-test) card is declined too, as in Stripe's test mode.
    expect((await payMonthly("4111111111111111")).statusCode).toBe(402);
  });

  it("needs the 3-D Secure confirmation before a 3DS card is charged", async () => {
    const first = await payMonthly(CARD_3DS);
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ status: "requires_action" });
    expect(body.action_url).toContain(body.payment_intent);
    const productIdValue = await productId("monthly-subscription");
    const early = await client.post(BILLING_API.pay, {
      productId: productIdValue,
      stripe3dToken: body.payment_intent,
    });
    expect(early.json()).toMatchObject({ status: "requires_action" });
    expect(await entitlements()).toMatchObject({ is_customer: false });

    const auth = await client.post(BILLING_API.sandboxAuthenticate.replace(":id", body.payment_intent), {
      result: "succeed",
    });
    expect(auth.json()).toMatchObject({ status: "succeeded" });
    const done = await client.post(BILLING_API.pay, {
      productId: productIdValue,
      stripe3dToken: body.payment_intent,
    });
    expect(done.json()).toMatchObject({ status: "succeeded" });
    expect(await entitlements()).toMatchObject({ is_customer: true, plan: "monthly" });
    // Another user cannot finish this user's payment with the intent id.
    const other = (await createTestUser(app.ctx.database)).client(app);
    const stolen = await other.post(BILLING_API.pay, {
      productId: productIdValue,
      stripe3dToken: body.payment_intent,
    });
    expect(stolen.statusCode).toBe(400);
  });

  it("fails a 3-D Secure payment the customer does not confirm", async () => {
    const body = (await payMonthly(CARD_3DS)).json();
    await client.post(BILLING_API.sandboxAuthenticate.replace(":id", body.payment_intent), {
      result: "fail",
    });
    const res = await client.post(BILLING_API.pay, {
      productId: await productId("monthly-subscription"),
      stripe3dToken: body.payment_intent,
    });
    expect(res.statusCode).toBe(402);
    expect(await entitlements()).toMatchObject({ is_customer: false });
  });

  it("charges once for a payment retried with the same Idempotency-Key, and refuses the key with another body", async () => {
    const id = await productId("monthly-subscription");
    const tok = await token(CARD_OK);
    const headers = { "idempotency-key": "order-7f3a" };
    const a = await client.post(BILLING_API.pay, { productId: id, stripeToken: tok }, headers);
    const b = await client.post(BILLING_API.pay, { productId: id, stripeToken: tok }, headers);
    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    expect(b.json().transaction_id).toBe(a.json().transaction_id);
    const [charges] = await app.ctx.database.db.select({ n: count() }).from(sandboxIntents);
    expect(charges?.n).toBe(1);
    const other = await client.post(BILLING_API.pay, { productId: id + 1, stripeToken: tok }, headers);
    expect(other.statusCode).toBe(422);
    expect(other.json().code).toBe("idempotency_mismatch");
    const bad = await client.post(
      BILLING_API.pay,
      { productId: id, stripeToken: tok },
      { "idempotency-key": "x".repeat(256) },
    );
    expect(bad.statusCode).toBe(400);
  });

  it("reproduces Stripe's idempotency semantics in the sandbox provider itself", async () => {
    const provider = new SandboxProvider(app.ctx.database.db);
    const source = await token(CARD_OK);
    const input = { amount: 500, currency: "USD", source, idempotencyKey: "k1", description: "x" };
    const first = await provider.createPayment(input);
    expect((await provider.createPayment(input)).intentId).toBe(first.intentId);
    await expect(provider.createPayment({ ...input, amount: 501 })).rejects.toThrow(/same parameters/);
    await expect(provider.createPayment({ ...input, idempotencyKey: "k2", amount: 0 })).rejects.toThrow();
    expect((await provider.refund(first.intentId, "r1")).status).toBe("refunded");
    expect((await provider.refund(first.intentId, "r1")).status).toBe("refunded");
  });

  it("recomputes prices: another currency's product, an unknown product or a coupon for another plan is a 400", async () => {
    const rub = await productId("monthly-subscription", "ru");
    const tok = await token(CARD_OK);
    expect((await client.post(BILLING_API.pay, { productId: rub, stripeToken: tok })).statusCode).toBe(400);
    expect((await client.post(BILLING_API.pay, { productId: 999_999, stripeToken: tok })).statusCode).toBe(
      400,
    );
    await app.ctx.database.db
      .insert(billingCoupons)
      .values({ code: "YEAR20", percentOff: 20, productSlug: "yearly-subscription" });
    const monthly = await productId("monthly-subscription");
    const check = await client.post(BILLING_API.couponCheck, { productId: monthly, coupon: "YEAR20" });
    expect(check.statusCode).toBe(400);
    const pay = await client.post(BILLING_API.pay, {
      productId: monthly,
      coupon: "YEAR20",
      stripeToken: tok,
    });
    expect(pay.statusCode).toBe(400);
    expect(await app.ctx.database.db.select().from(sandboxIntents)).toHaveLength(0);
  });

  it("applies a checked coupon to the charged amount and counts the redemption", async () => {
    await app.ctx.database.db
      .insert(billingCoupons)
      .values({ code: "SPRING", percentOff: 25, maxRedemptions: 1 });
    const id = await productId("monthly-subscription");
    const check = await client.post(BILLING_API.couponCheck, { productId: id, coupon: "spring" });
    expect(check.json()).toMatchObject({ valid: true, percent_off: 25, amount: 749 });
    const res = await client.post(BILLING_API.pay, {
      productId: id,
      coupon: "spring",
      stripeToken: await token(CARD_OK),
    });
    expect(res.statusCode).toBe(200);
    const [intent] = await app.ctx.database.db.select().from(sandboxIntents);
    expect(intent?.amount).toBe(749);
    const [coupon] = await app.ctx.database.db.select().from(billingCoupons);
    expect(coupon?.redeemed).toBe(1);
    const second = (await createTestUser(app.ctx.database)).client(app);
    expect((await second.post(BILLING_API.couponCheck, { productId: id, coupon: "SPRING" })).statusCode).toBe(
      400,
    );
  });

  it("limits coupon checks, and payments naming a coupon, to 20 an hour per account and per IP (L5)", async () => {
    const id = await productId("monthly-subscription");
    const from = (
      c: TestClient,
      ip: string,
      body: Record<string, unknown>,
      url: string = BILLING_API.couponCheck,
    ) => c.post(url, { productId: id, ...body }, { "x-forwarded-for": ip });
    for (let i = 0; i < 19; i++)
      expect((await from(client, "203.0.113.9", { coupon: `GUESS${i}` })).statusCode).toBe(400);
    const payWithCoupon = await from(
      client,
      "203.0.113.9",
      { coupon: "GUESS-PAY", stripeToken: await token(CARD_OK) },
      BILLING_API.pay,
    );
    expect(payWithCoupon.statusCode).toBe(400);
    const over = await from(client, "203.0.113.9", { coupon: "GUESS-LAST" });
    expect(over.statusCode).toBe(429);
    expect(over.json().code).toBe("rate_limited");
    // The account is limited wherever it calls from; another account on that IP as well.
    expect((await from(client, "198.51.100.1", { coupon: "X" })).statusCode).toBe(429);
    const other = (await createTestUser(app.ctx.database)).client(app);
    expect((await from(other, "203.0.113.9", { coupon: "X" })).statusCode).toBe(429);
    expect((await from(other, "198.51.100.2", { coupon: "X" })).statusCode).toBe(400);
    // Paying without a coupon is not a guess.
    expect(
      (await from(client, "198.51.100.1", { stripeToken: await token(CARD_OK) }, BILLING_API.pay)).statusCode,
    ).toBe(200);
  });

  it("keeps a cancelled subscription until its period ends, then the user is free again", async () => {
    await payMonthly();
    const [purchase] = (await client.get(BILLING_API.purchases)).json();
    const other = (await createTestUser(app.ctx.database)).client(app);
    expect((await other.post(BILLING_API.cancel, { purchase_id: purchase.purchase_id })).statusCode).toBe(
      404,
    );
    const res = await client.post(BILLING_API.cancel, { purchase_id: purchase.purchase_id });
    expect(res.statusCode).toBe(200);
    expect(await entitlements()).toMatchObject({ is_customer: true, plan: "monthly" });
    const [cancelled] = (await client.get(BILLING_API.purchases)).json();
    expect(cancelled).toMatchObject({ state: "cancelled", next_payment: null });

    const later = new Date(Date.now() + 40 * 86_400_000);
    await renewDue({ ...app.ctx, provider: new SandboxProvider(app.ctx.database.db) }, later);
    const [sub] = await app.ctx.database.db.select().from(subscriptions);
    expect(sub?.status).toBe("expired");
    expect(await getEntitlements(app.ctx, user.userId)).toMatchObject({
      is_customer: false,
      upgradable: true,
    });
    expect((await client.get(BILLING_API.purchases)).json()).toEqual([]);
  });

  it("renews with the saved card, and a failed renewal sets billing_status failed", async () => {
    await payMonthly();
    const deps = { ...app.ctx, provider: new SandboxProvider(app.ctx.database.db) };
    const later = new Date(Date.now() + 32 * 86_400_000);
    expect(await renewDue(deps, later)).toEqual({ renewed: 1, failed: 0 });
    expect(await renewDue(deps, later)).toEqual({ renewed: 0, failed: 0 });
    const history = (await client.get(BILLING_API.transactions)).json();
    expect(history.count).toBe(2);

    const second = await createTestUser(app.ctx.database);
    const c2 = second.client(app);
    const tok = (
      await c2.post(BILLING_API.sandboxTokens, { number: CARD_3DS, exp_month: 1, exp_year: 2099, cvc: "123" })
    ).json().id;
    const pay = (
      await c2.post(BILLING_API.pay, { productId: await productId("monthly-subscription"), stripeToken: tok })
    ).json();
    await c2.post(BILLING_API.sandboxAuthenticate.replace(":id", pay.payment_intent), { result: "succeed" });
    await c2.post(BILLING_API.pay, {
      productId: await productId("monthly-subscription"),
      stripe3dToken: pay.payment_intent,
    });
    // Off-session, a card that always needs 3-D Secure is declined.
    expect(await renewDue(deps, later)).toMatchObject({ failed: 1 });
    const [u] = await app.ctx.database.db.select().from(users).where(eq(users.id, second.userId));
    expect(u?.billingStatus).toBe("failed");
    expect(await getEntitlements(app.ctx, second.userId)).toMatchObject({ is_customer: false });
  });

  it("settles a payment whose answer was lost, through the reconciliation job, once", async () => {
    const id = await productId("monthly-subscription");
    const tok = await token(CARD_OK);
    // The crash: our transaction row exists, the provider may or may not have charged; nothing was fulfilled.
    const [tx] = await app.ctx.database.db
      .insert(billingTransactions)
      .values({
        userId: user.userId,
        productId: id,
        amount: 999,
        currency: "USD",
        description: "monthly-subscription",
        status: "pending",
        provider: "sandbox",
        idempotencyKey: "lost",
        requestHash: "x",
        providerSource: tok,
        updatedAt: new Date(Date.now() - 120_000),
      })
      .returning();
    const deps = { ...app.ctx, provider: new SandboxProvider(app.ctx.database.db) };
    await deps.provider.createPayment({
      amount: 999,
      currency: "USD",
      source: tok,
      idempotencyKey: `tonus-pay-${tx?.id}`,
      description: "x",
    });
    expect(await reconcilePending(deps)).toBe(1);
    expect(await reconcilePending(deps)).toBe(0);
    expect(await app.ctx.database.db.select().from(sandboxIntents)).toHaveLength(1);
    expect(await entitlements()).toMatchObject({ is_customer: true });
  });

  it("sells a gift: the buyer gets a code by mail that another account redeems once", async () => {
    const gift = await productId("tonusgift");
    const res = await client.post(BILLING_API.pay, { productId: gift, stripeToken: await token(CARD_OK) });
    expect(res.json()).toMatchObject({ status: "succeeded", gift: true });
    expect(await entitlements()).toMatchObject({ is_customer: false });
    const [mail] = await app.ctx.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, user.email));
    const code = /GIFT-[0-9A-F]{12}/.exec(mail?.text ?? "")?.[0];
    expect(code).toBeDefined();

    const friend = await createTestUser(app.ctx.database);
    const fc = friend.client(app);
    const monthly = await productId("monthly-subscription");
    const check = await fc.post(BILLING_API.couponCheck, { productId: monthly, coupon: code });
    expect(check.json()).toMatchObject({ percent_off: 100, amount: 0 });
    const redeem = await fc.post(BILLING_API.pay, { productId: monthly, coupon: code });
    expect(redeem.json()).toMatchObject({ status: "succeeded" });
    expect(await getEntitlements(app.ctx, friend.userId)).toMatchObject({
      is_customer: true,
      plan: "monthly",
    });
    const third = (await createTestUser(app.ctx.database)).client(app);
    expect((await third.post(BILLING_API.pay, { productId: monthly, coupon: code })).statusCode).toBe(400);
  });

  it("charges once when two payments for a plan arrive at once with different keys (two tabs)", async () => {
    const id = await productId("monthly-subscription");
    const [a, b] = [await token(CARD_OK), await token(CARD_OK)];
    // The provider holds the first charge until the second payment has had its say.
    const sandbox = new SandboxProvider(app.ctx.database.db);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let charges = 0;
    const provider = Object.assign(Object.create(sandbox) as SandboxProvider, {
      createPayment: async (input: Parameters<SandboxProvider["createPayment"]>[0]) => {
        charges++;
        if (charges === 1) await held;
        return sandbox.createPayment(input);
      },
    });
    const deps = { ...app.ctx, provider };
    const body = (stripeToken: string) => ({ productId: id, stripeToken });
    const first = pay(deps, user.userId, body(a), "en", "tab-a");
    while (charges === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await pay(deps, user.userId, body(b), "en", "tab-b").catch((error: unknown) => error);
    release();
    expect(await first).toMatchObject({ status: "succeeded" });
    expect(second).toMatchObject({ code: "conflict", status: 409 });
    expect(charges).toBe(1);
    expect(await app.ctx.database.db.select().from(sandboxIntents)).toHaveLength(1);
    expect(await app.ctx.database.db.select().from(subscriptions)).toHaveLength(1);

    // Through the API as well: both at once, one charge.
    const other = await createTestUser(app.ctx.database);
    const c2 = other.client(app);
    const answers = await Promise.all(
      ["tab-a", "tab-b"].map(async (key) =>
        c2.post(BILLING_API.pay, body(await token(CARD_OK)), { "idempotency-key": key }),
      ),
    );
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(await app.ctx.database.db.select().from(subscriptions)).toHaveLength(2);
    // A gift can still be bought beside the plan.
    const gift = await client.post(BILLING_API.pay, {
      productId: await productId("tonusgift"),
      stripeToken: await token(CARD_OK),
    });
    expect(gift.statusCode).toBe(200);
  });

  it("holds back a second plan payment while the first waits for 3-D Secure", async () => {
    const first = await payMonthly(CARD_3DS);
    expect(first.json()).toMatchObject({ status: "requires_action" });
    const second = await payMonthly(CARD_OK);
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ code: "conflict" });
    expect(await app.ctx.database.db.select().from(sandboxIntents)).toHaveLength(1);
  });

  it("refuses account deletion while a paid subscription renews, and deletes after cancelling", async () => {
    // The clean-up at the provider is run by hand below, not by this app's worker.
    await app.ctx.services.jobs.boss.offWork(CUSTOMER_CLEANUP_JOB);
    await payMonthly();
    const refused = await client.post(BILLING_API.userDelete);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: "subscription_active",
      error: "Unable to delete account (cancel your subscription first)",
    });
    expect(await app.ctx.database.db.select().from(users).where(eq(users.id, user.userId))).toHaveLength(1);

    const [purchase] = (await client.get(BILLING_API.purchases)).json();
    await client.post(BILLING_API.cancel, { purchase_id: purchase.purchase_id });
    const done = await client.post(BILLING_API.userDelete);
    expect(done.statusCode).toBe(200);
    expect(await app.ctx.database.db.select().from(users).where(eq(users.id, user.userId))).toHaveLength(0);
    expect(await app.ctx.database.db.select().from(subscriptions)).toHaveLength(0);
    // The payment stays as a pseudonymised accounting record.
    const payments = await app.ctx.database.db.select().from(billingTransactions);
    expect(payments).toHaveLength(1);
    expect(payments[0]?.userId).not.toBe(user.userId);
    expect((await client.get(BILLING_API.purchases)).statusCode).toBe(403);

    // The sandbox's customer of the person (its metadata names them) and the card go at the provider.
    const [customer] = await app.ctx.database.db.select().from(sandboxCustomers);
    expect(customer?.metadata).toEqual({ tonus_user: user.userId });
    const [cleanup] = await app.ctx.database.db.select().from(providerCleanups);
    expect(cleanup).toMatchObject({ provider: "sandbox", customerId: customer?.id });
    expect(await app.ctx.services.jobs.boss.findJobs(CUSTOMER_CLEANUP_JOB, { queued: true })).toHaveLength(1);
    const deps = { ...app.ctx, provider: new SandboxProvider(app.ctx.database.db) };
    expect(await runCustomerCleanups(deps)).toEqual({ deleted: 1, failed: 0 });
    expect(await app.ctx.database.db.select().from(sandboxCustomers)).toHaveLength(0);
    expect(await app.ctx.database.db.select().from(providerCleanups)).toHaveLength(0);
    const [intent] = await app.ctx.database.db.select().from(sandboxIntents);
    expect(intent?.customer).toBe(customer?.id);
    expect(
      await app.ctx.database.db
        .select()
        .from(sandboxTokens)
        .where(eq(sandboxTokens.id, intent?.token ?? "")),
    ).toHaveLength(0);
    expect(await runCustomerCleanups(deps)).toEqual({ deleted: 0, failed: 0 });
  });

  it("pages the transaction history five at a time, newest first", async () => {
    const id = await productId("tonusgift");
    for (let i = 0; i < 7; i++)
      await client.post(BILLING_API.pay, { productId: id, stripeToken: await token(CARD_OK) });
    const first = (await client.get(`${BILLING_API.transactions}?limit=5&offset=0`)).json();
    expect(first.count).toBe(7);
    expect(first.results).toHaveLength(5);
    const rest = (await client.get(`${BILLING_API.transactions}?limit=5&offset=5`)).json();
    expect(rest.results).toHaveLength(2);
    expect((await client.get(`${BILLING_API.transactions}?limit=-1`)).statusCode).toBe(400);
  });

  it("refuses a card number that is not one (Luhn) at the sandbox's tokenisation, and never at pay", async () => {
    const res = await client.post(BILLING_API.sandboxTokens, {
      number: "4242424242424241",
      exp_month: 1,
      exp_year: 2099,
      cvc: "1",
    });
    expect(res.statusCode).toBe(400);
    const pay = await client.post(BILLING_API.pay, { productId: 1, number: "4242424242424242" });
    expect(pay.statusCode).toBe(400);
    const unknown = await client.post(BILLING_API.pay, {
      productId: await productId("monthly-subscription"),
      stripeToken: "tok_forged",
    });
    expect(unknown.statusCode).toBe(402);
  });

  it("verifies a card with $1 (50 RUB in Russian) refunded at once, after 3-D Secure when the bank asks", async () => {
    const ok = await client.post(BILLING_API.cardVerify, { stripeToken: await token(CARD_OK) });
    expect(ok.json()).toMatchObject({ status: "verified", card: { last4: "4242" } });
    const ru = await client.post(
      BILLING_API.cardVerify,
      { stripeToken: await token(CARD_OK) },
      { "accept-language": "ru" },
    );
    expect(ru.statusCode).toBe(200);
    const ledger = await app.ctx.database.db.select().from(sandboxIntents);
    expect(ledger.map((i) => [i.amount, i.currency, i.status]).sort()).toEqual([
      [100, "usd", "refunded"],
      [5000, "rub", "refunded"],
    ]);
    const history = (await client.get(BILLING_API.transactions)).json();
    expect(history.results[0]).toMatchObject({
      description: "Card verification (refunded)",
      status: "refunded",
      paid: false,
    });

    const challenge = (
      await client.post(BILLING_API.cardVerify, { stripeToken: await token(CARD_3DS) })
    ).json();
    expect(challenge).toMatchObject({ status: "requires_action" });
    await client.post(BILLING_API.sandboxAuthenticate.replace(":id", challenge.payment_intent), {
      result: "succeed",
    });
    const done = await client.post(BILLING_API.cardVerify, { stripe3dToken: challenge.payment_intent });
    expect(done.json()).toMatchObject({ status: "verified" });
    expect(
      (await client.post(BILLING_API.cardVerify, { stripeToken: await token(CARD_DECLINE) })).statusCode,
    ).toBe(402);
    expect((await client.post(BILLING_API.cardVerify, {})).statusCode).toBe(400);
    expect(await entitlements()).toMatchObject({ is_customer: false });
  });

  it("refunds a verification charged just before a crash exactly once (P4)", async () => {
    const tok = await token(CARD_OK);
    const [tx] = await app.ctx.database.db
      .insert(billingTransactions)
      .values({
        userId: user.userId,
        productId: 0,
        kind: "verification",
        amount: 100,
        currency: "USD",
        description: "card-verification",
        status: "pending",
        provider: "sandbox",
        idempotencyKey: "v-crash",
        requestHash: "verification",
        providerSource: tok,
        updatedAt: new Date(Date.now() - 120_000),
      })
      .returning();
    const deps = { ...app.ctx, provider: new SandboxProvider(app.ctx.database.db) };
    // The charge went through at the provider; the process died before recording or refunding it.
    await deps.provider.createPayment({
      amount: 100,
      currency: "USD",
      source: tok,
      idempotencyKey: `tonus-verify-${tx?.id}`,
      description: "x",
    });
    expect(await refundStrandedVerifications(deps)).toBe(1);
    expect(await refundStrandedVerifications(deps)).toBe(0);
    const ledger = await app.ctx.database.db.select().from(sandboxIntents);
    expect(ledger.map((i) => i.status)).toEqual(["refunded"]);
  });

  it("answers hostile bodies on the billing routes with 4xx in the error shape", async () => {
    const bodies: unknown[] = [
      null,
      [],
      "x",
      1,
      { productId: "1" },
      { productId: 1.5 },
      { productId: -1 },
      { productId: 2 ** 53 },
      { productId: 1, coupon: "" },
      { productId: 1, coupon: "x".repeat(1000) },
      { purchase_id: {} },
      { __proto__: { admin: true } },
      { result: "maybe" },
    ];
    const routes = [
      BILLING_API.pay,
      BILLING_API.couponCheck,
      BILLING_API.cancel,
      BILLING_API.cardVerify,
      BILLING_API.sandboxTokens,
      BILLING_API.sandboxAuthenticate.replace(":id", "pi_x"),
      BILLING_API.userDelete,
    ];
    for (const url of routes)
      for (const body of bodies) {
        const res = await client.request("POST", url, {
          payload: JSON.stringify(body),
          headers: { "content-type": "application/json" },
        });
        expect(res.statusCode, `${url} ${JSON.stringify(body)}`).toBeLessThan(500);
        if (res.statusCode >= 400) expect(typeof res.json().code).toBe("string");
      }
  });
});

describe.each(BACKENDS)("billing switched off on %s", (backend) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend), { BILLING_MODE: "off" });
  });
  afterAll(() => app.close());

  it("sells nothing: pay answers 409 and everyone is a customer", async () => {
    await resetDatabase(app.ctx.database);
    await seedDefaultPlans(app.ctx.database.db);
    const user = await createTestUser(app.ctx.database);
    const res = await user.client(app).post(BILLING_API.pay, { productId: 1, stripeToken: "tok_x" });
    expect(res.statusCode).toBe(409);
    expect(await getEntitlements(app.ctx, user.userId)).toEqual({
      is_customer: true,
      plan: "personal",
      upgradable: false,
    });
    expect((await user.client(app).post(BILLING_API.userDelete)).statusCode).toBe(200);
  });
});
