import { randomBytes, randomUUID } from "node:crypto";
import {
  type CouponCheckResponse,
  type Currency,
  GIFT_PRODUCT_SLUG,
  organizeProducts,
  type PayRequest,
  type PayResponse,
  type Product,
  type Purchase,
  type TransactionsResponse,
} from "@tonus/contract";
import { and, count, desc, eq, inArray, lte, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import {
  billingCoupons,
  billingEvents,
  billingProducts,
  billingTransactions,
  subscriptions,
  users,
} from "../../db/schema.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { type ServerLocale, translate } from "../../lib/i18n.ts";
import { hitRateLimit } from "../../lib/rate-limit.ts";
import { providerCustomerOf } from "./billing.customers.ts";
import type { PaymentProvider, PaymentResult } from "./provider.ts";
import { ProviderError } from "./provider.ts";

export type BillingDeps = Pick<AppContext, "config" | "database" | "log" | "services"> & {
  provider: PaymentProvider;
};

type ProductRow = typeof billingProducts.$inferSelect;
type SubscriptionRow = typeof subscriptions.$inferSelect;
type TransactionRow = typeof billingTransactions.$inferSelect;

/** The Russian version pays in roubles, every other in dollars (spec §9 card verification). */
export function currencyFor(locale: ServerLocale): Currency {
  return locale === "ru" ? "RUB" : "USD";
}

/** The `provider` of a subscription that is a credit of free days (a referral reward), not a purchase. */
export const CREDIT_PROVIDER = "referral";

/** A subscription that entitles its owner right now: paid period not over, not expired or failed. */
const ENTITLING = ["active", "cancelled"];

function entitles(s: SubscriptionRow, now: Date): boolean {
  return ENTITLING.includes(s.status) && (s.currentPeriodEnd === null || s.currentPeriodEnd > now);
}

/** The entitling subscription of a user (the newest), with its product, or null. */
export async function currentSubscription(db: Db, userId: string, now = new Date()) {
  const rows = await db
    .select({ s: subscriptions, p: billingProducts })
    .from(subscriptions)
    .innerJoin(billingProducts, eq(billingProducts.id, subscriptions.productId))
    .where(eq(subscriptions.userId, userId))
    .orderBy(desc(subscriptions.createdAt));
  return rows.find((r) => entitles(r.s, now)) ?? null;
}

/** Spec §4 Account deletion: blocked while a paid subscription is active (renewing). */
export async function hasActivePaidSubscription(db: Db, userId: string, now = new Date()) {
  const current = await currentSubscription(db, userId, now);
  return current !== null && current.s.status === "active" && current.s.renews;
}

function productOut(p: ProductRow, locale: ServerLocale, paidProductId: number | null): Product {
  const isPaid = p.id === paidProductId;
  return {
    id: p.id,
    slug: p.slug,
    active: p.active && !isPaid,
    is_paid: isPaid,
    interval: (p.interval as Product["interval"]) ?? null,
    interval_count: p.intervalCount,
    plan: p.plan as Product["plan"],
    title: p.title[locale] ?? p.title.en ?? p.slug,
    currency: p.currency as Currency,
    amount: p.amount,
    discount_percent: p.discountPercent,
    trial_days: p.trialDays,
  };
}

/**
 * `products_v2`: the products on sale in the caller's currency, sorted by the spec's rule, then the gift
 * product; the product the caller pays for comes with `active: false, is_paid: true` (also when the
 * operator has retired it, or it is in the other currency).
 */
export async function listProducts(db: Db, userId: string | null, locale: ServerLocale): Promise<Product[]> {
  const currency = currencyFor(locale);
  const current = userId ? await currentSubscription(db, userId) : null;
  const paidId = current ? current.p.id : null;
  const rows = await db
    .select()
    .from(billingProducts)
    .where(
      or(
        and(eq(billingProducts.currency, currency), eq(billingProducts.active, true)),
        paidId === null ? sql`false` : eq(billingProducts.id, paidId),
      ),
    )
    .orderBy(billingProducts.position, billingProducts.id);
  const products = rows.map((p) => productOut(p, locale, paidId));
  const { plans, paid } = organizeProducts(products);
  const gift = products.filter((p) => p.slug === GIFT_PRODUCT_SLUG && p.active);
  return [...plans, ...gift, ...(paid ? [paid] : [])];
}

async function productById(db: Db, productId: number): Promise<ProductRow> {
  const [p] = await db.select().from(billingProducts).where(eq(billingProducts.id, productId));
  if (!p) throw new AppError("validation_failed", "Unknown product");
  return p;
}

/** A product the caller may buy now: on sale and in the caller's currency (RELIABILITY P6). */
async function purchasableProduct(db: Db, productId: number, locale: ServerLocale): Promise<ProductRow> {
  const p = await productById(db, productId);
  if (!p.active) throw new AppError("validation_failed", "This product is not on sale");
  if (p.currency !== currencyFor(locale))
    throw new AppError("validation_failed", "This product is sold in another currency");
  return p;
}

type CouponRow = typeof billingCoupons.$inferSelect;

/** The coupon if it applies to this product now; otherwise a 400 naming the problem. */
async function validCoupon(db: Db, code: string, product: ProductRow, now = new Date()): Promise<CouponRow> {
  const [c] = await db.select().from(billingCoupons).where(eq(billingCoupons.code, code.toUpperCase()));
  const usable =
    c?.active &&
    (c.expiresAt === null || c.expiresAt > now) &&
    (c.maxRedemptions === null || c.redeemed < c.maxRedemptions) &&
    (c.productSlug === null || c.productSlug === product.slug) &&
    product.slug !== GIFT_PRODUCT_SLUG;
  if (!c || !usable) throw new AppError("validation_failed", "This promo code is not valid for this plan");
  return c;
}

function discounted(amount: number, percentOff: number): number {
  return Math.round((amount * (100 - percentOff)) / 100);
}

/**
 * Promo and gift codes can be guessed by trying them: coupon checks (and payments naming a coupon) are
 * limited to this many an hour per account and per IP (RELIABILITY L5).
 */
export const COUPON_CHECKS_PER_HOUR = 20;

export async function assertCouponCheckAllowed(
  deps: Pick<BillingDeps, "database">,
  input: { userId: string; ip: string },
): Promise<void> {
  for (const key of [`coupon:account:${input.userId}`, `coupon:ip:${input.ip}`]) {
    const state = await hitRateLimit(deps.database.query, { key, windowMs: 3_600_000 });
    if (state.count > COUPON_CHECKS_PER_HOUR)
      throw new AppError("rate_limited", "Too many attempts, try again later", {
        retryAfterS: state.retryAfterS,
      });
  }
}

export async function checkCoupon(
  db: Db,
  body: { productId: number; coupon: string },
  locale: ServerLocale,
): Promise<CouponCheckResponse> {
  const product = await purchasableProduct(db, body.productId, locale);
  const coupon = await validCoupon(db, body.coupon, product);
  return {
    valid: true,
    coupon: coupon.code,
    percent_off: coupon.percentOff,
    amount: product.plan === "trial" ? 0 : discounted(product.amount, coupon.percentOff),
    currency: product.currency as Currency,
  };
}

function addInterval(start: Date, interval: string | null, n: number): Date | null {
  const d = new Date(start);
  switch (interval) {
    case "day":
      d.setUTCDate(d.getUTCDate() + n);
      return d;
    case "week":
      d.setUTCDate(d.getUTCDate() + 7 * n);
      return d;
    case "month":
      d.setUTCMonth(d.getUTCMonth() + n);
      return d;
    case "year":
      d.setUTCFullYear(d.getUTCFullYear() + n);
      return d;
    default:
      return null;
  }
}

/** When the first paid period of a product bought at `now` ends (null: never, a lifetime purchase). */
function periodEnd(p: ProductRow, now: Date): Date | null {
  if (p.plan === "trial") return addInterval(now, "day", p.trialDays ?? 7);
  return addInterval(now, p.interval, p.intervalCount);
}

function payResponse(tx: TransactionRow, result?: PaymentResult, gift = false): PayResponse {
  return {
    status: tx.status === "requires_action" ? "requires_action" : "succeeded",
    transaction_id: tx.id,
    payment_intent: tx.providerIntent,
    action_url: tx.status === "requires_action" ? (result?.actionUrl ?? null) : null,
    client_secret: tx.status === "requires_action" ? (result?.clientSecret ?? null) : null,
    gift,
  };
}

function failPayment(message: string): never {
  throw new AppError("payment_failed", message);
}

function providerFailure(error: unknown): never {
  if (error instanceof ProviderError) {
    if (error.kind === "idempotency_mismatch") throw new AppError("idempotency_mismatch", error.message);
    failPayment(error.message);
  }
  throw error;
}

/**
 * Spec §7 pay: buys `productId` with an optional validated coupon and a card token from the provider's
 * own tokenisation. With `stripe3dToken` (the payment intent after 3-D Secure) it finishes that payment.
 * The price is recomputed here; the same Idempotency-Key with the same body answers the first result and
 * never charges twice; with another body it is a 422.
 */
export async function pay(
  deps: BillingDeps,
  userId: string,
  body: PayRequest,
  locale: ServerLocale,
  idempotencyKey: string | undefined,
): Promise<PayResponse> {
  const db = deps.database.db;
  if (body.stripe3dToken) return finishAuthenticated(deps, userId, body.stripe3dToken);
  const key = idempotencyKey ?? randomUUID();
  // A reused key answers first (Stripe's order): the first result, or 422 for another body.
  const [previous] = await db
    .select()
    .from(billingTransactions)
    .where(and(eq(billingTransactions.userId, userId), eq(billingTransactions.idempotencyKey, key)));
  if (previous) return replayPayment(deps, previous, body);
  const product = await purchasableProduct(db, body.productId, locale);
  const isGift = product.slug === GIFT_PRODUCT_SLUG;

  const coupon = body.coupon ? await validCoupon(db, body.coupon, product) : null;
  const amount = product.plan === "trial" ? 0 : discounted(product.amount, coupon?.percentOff ?? 0);
  if (product.plan === "trial" && (await hadTrial(db, userId)))
    throw new AppError("validation_failed", "The trial can be taken once");
  if (amount > 0 && !body.stripeToken) throw new AppError("validation_failed", "A card is needed");

  // Checked and recorded under a lock on the account row: two payments for a plan sent at once (two tabs,
  // a double click with two keys) cannot both pass "no subscription yet"; the second sees the first.
  const started = await db.transaction(
    async (txDb): Promise<{ replay: TransactionRow } | { inserted: TransactionRow }> => {
      await txDb.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
      const [same] = await txDb
        .select()
        .from(billingTransactions)
        .where(and(eq(billingTransactions.userId, userId), eq(billingTransactions.idempotencyKey, key)));
      if (same) return { replay: same };
      if (!isGift) {
        if (await currentSubscription(txDb as unknown as Db, userId))
          throw new AppError("already_subscribed", "You already have an active subscription");
        if (await planPaymentInFlight(txDb as unknown as Db, userId))
          throw new AppError("conflict", "A payment for a plan is already in progress");
      }
      const [inserted] = await txDb
        .insert(billingTransactions)
        .values({
          userId,
          productId: product.id,
          amount,
          currency: product.currency,
          description: product.slug,
          coupon: coupon?.code ?? null,
          status: "pending",
          provider: amount > 0 ? deps.provider.name : "none",
          idempotencyKey: key,
          requestHash: requestHash(body),
          providerSource: amount > 0 ? (body.stripeToken ?? null) : null,
        })
        .returning();
      if (!inserted) throw new Error("payment not recorded");
      return { inserted };
    },
  );
  if ("replay" in started) return replayPayment(deps, started.replay, body);
  const tx = started.inserted;

  if (amount === 0) {
    await fulfil(deps, tx.id, null);
    return payResponse({ ...tx, status: "succeeded" }, undefined, isGift);
  }
  return applyResult(deps, tx, await charge(deps, tx), isGift);
}

/**
 * Creates the transaction's payment at the provider under a key derived from the transaction id: a
 * retry (after a crash, by the reconciliation job) gets the same provider object, never a second charge.
 */
async function charge(deps: BillingDeps, tx: TransactionRow): Promise<PaymentResult> {
  try {
    const customer = await providerCustomerOf(deps, tx.userId);
    return await deps.provider.createPayment({
      amount: tx.amount,
      currency: tx.currency,
      source: tx.providerSource ?? "",
      idempotencyKey: `tonus-pay-${tx.id}`,
      description: `Tonus ${tx.description}`,
      reference: tx.id,
      ...(customer ? { customer } : {}),
    });
  } catch (error) {
    if (error instanceof ProviderError && error.kind === "invalid_request")
      await markFailed(deps.database.db, tx.id, null, error.message);
    providerFailure(error);
  }
}

function requestHash(body: PayRequest): string {
  return JSON.stringify([body.productId, body.coupon?.toUpperCase() ?? null, body.stripeToken ?? null]);
}

/** How long a payment for a plan waiting for its answer or for 3-D Secure holds back another one. */
const IN_FLIGHT_MS = 30 * 60_000;

/** A payment for a plan (not a gift) sent recently and not settled yet. */
async function planPaymentInFlight(db: Db, userId: string, now = new Date()): Promise<boolean> {
  const rows = await db
    .select({ id: billingTransactions.id })
    .from(billingTransactions)
    .innerJoin(billingProducts, eq(billingProducts.id, billingTransactions.productId))
    .where(
      and(
        eq(billingTransactions.userId, userId),
        eq(billingTransactions.kind, "payment"),
        inArray(billingTransactions.status, ["pending", "requires_action"]),
        sql`${billingProducts.slug} <> ${GIFT_PRODUCT_SLUG}`,
        sql`${billingTransactions.updatedAt} > ${new Date(now.getTime() - IN_FLIGHT_MS)}`,
      ),
    )
    .limit(1);
  return rows.length > 0;
}

async function hadTrial(db: Db, userId: string): Promise<boolean> {
  const rows = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .innerJoin(billingProducts, eq(billingProducts.id, subscriptions.productId))
    .where(and(eq(subscriptions.userId, userId), eq(billingProducts.plan, "trial")));
  return rows.length > 0;
}

async function replayPayment(deps: BillingDeps, tx: TransactionRow, body: PayRequest): Promise<PayResponse> {
  if (tx.requestHash !== requestHash(body))
    throw new AppError(
      "idempotency_mismatch",
      "Keys for idempotent requests can only be used with the same parameters they were first used with.",
    );
  const product = await productById(deps.database.db, tx.productId);
  const isGift = product.slug === GIFT_PRODUCT_SLUG;
  if (tx.status === "failed") failPayment(tx.failureMessage ?? "Your card was declined.");
  if (tx.status === "pending" && tx.amount > 0) {
    // Crashed between the provider's answer and ours: the same key gives the same intent, never a new charge.
    return applyResult(deps, tx, await charge(deps, tx), isGift);
  }
  if (tx.status === "pending") await fulfil(deps, tx.id, null);
  if (tx.status === "requires_action" && tx.providerIntent) {
    const result = await deps.provider.retrievePayment(tx.providerIntent);
    return payResponse(tx, result, isGift);
  }
  return payResponse(tx, undefined, isGift);
}

async function markFailed(db: Db, txId: string, intent: string | null, message: string) {
  await db
    .update(billingTransactions)
    .set({
      status: "failed",
      failureMessage: message.slice(0, 300),
      providerIntent: intent,
      updatedAt: new Date(),
    })
    .where(
      and(
        eq(billingTransactions.id, txId),
        inArray(billingTransactions.status, ["pending", "requires_action"]),
      ),
    );
}

async function applyResult(
  deps: BillingDeps,
  tx: TransactionRow,
  result: PaymentResult,
  isGift: boolean,
): Promise<PayResponse> {
  const db = deps.database.db;
  if (result.status === "failed") {
    await markFailed(db, tx.id, result.intentId, result.failureMessage ?? "Your card was declined.");
    failPayment(result.failureMessage ?? "Your card was declined.");
  }
  if (result.status === "processing") {
    // Not decided yet: the webhook or the reconciliation job settles it; the page refreshes in 10 s.
    await db
      .update(billingTransactions)
      .set({ providerIntent: result.intentId, updatedAt: new Date() })
      .where(eq(billingTransactions.id, tx.id));
    return {
      ...payResponse({ ...tx, providerIntent: result.intentId }, result, isGift),
      status: "processing",
    };
  }
  if (result.status === "requires_action") {
    await db
      .update(billingTransactions)
      .set({ status: "requires_action", providerIntent: result.intentId, updatedAt: new Date() })
      .where(eq(billingTransactions.id, tx.id));
    return payResponse({ ...tx, status: "requires_action", providerIntent: result.intentId }, result, isGift);
  }
  await fulfil(deps, tx.id, result);
  return payResponse({ ...tx, status: "succeeded", providerIntent: result.intentId }, result, isGift);
}

/** After the 3-D Secure step: the page sends the intent back; the provider (not the page) says if it was paid. */
async function finishAuthenticated(
  deps: BillingDeps,
  userId: string,
  intentId: string,
): Promise<PayResponse> {
  const db = deps.database.db;
  const [tx] = await db
    .select()
    .from(billingTransactions)
    .where(and(eq(billingTransactions.userId, userId), eq(billingTransactions.providerIntent, intentId)));
  if (!tx) throw new AppError("validation_failed", "Unknown payment");
  const product = await productById(db, tx.productId);
  const isGift = product.slug === GIFT_PRODUCT_SLUG;
  if (tx.status === "succeeded") return payResponse(tx, undefined, isGift);
  if (tx.status === "failed") failPayment(tx.failureMessage ?? "Your card was declined.");
  let result: PaymentResult;
  try {
    result = await deps.provider.retrievePayment(intentId);
  } catch (error) {
    providerFailure(error);
  }
  return applyResult(deps, tx, result, isGift);
}

/**
 * Applies a succeeded payment exactly once (the pay route, a webhook and the reconciliation job may all
 * arrive here): the transaction row is locked and only a pending one moves on. A subscription starts, or
 * for the gift product a gift code is made and mailed.
 */
export async function fulfil(deps: BillingDeps, txId: string, result: PaymentResult | null): Promise<void> {
  const db = deps.database.db;
  const now = new Date();
  let giftMail: { to: string; code: string; userId: string; locale: ServerLocale } | null = null;
  await db.transaction(async (txDb) => {
    const [tx] = await txDb
      .select()
      .from(billingTransactions)
      .where(eq(billingTransactions.id, txId))
      .for("update");
    if (!tx || (tx.status !== "pending" && tx.status !== "requires_action")) return;
    const [product] = await txDb.select().from(billingProducts).where(eq(billingProducts.id, tx.productId));
    if (!product) throw new Error(`product ${tx.productId} is gone`);
    let subscriptionId: string | null = null;
    if (tx.coupon) {
      await txDb
        .update(billingCoupons)
        .set({ redeemed: sql`${billingCoupons.redeemed} + 1` })
        .where(eq(billingCoupons.code, tx.coupon));
    }
    if (product.slug === GIFT_PRODUCT_SLUG) {
      const code = `GIFT-${randomBytes(6).toString("hex").toUpperCase()}`;
      await txDb.insert(billingCoupons).values({
        code,
        kind: "gift",
        percentOff: 100,
        productSlug: product.grantsSlug,
        maxRedemptions: 1,
        sourceTransactionId: tx.id,
      });
      const [user] = await txDb
        .select({ email: users.email, language: users.newsletterLanguage })
        .from(users)
        .where(eq(users.id, tx.userId));
      if (user)
        giftMail = { to: user.email, code, userId: tx.userId, locale: user.language === "ru" ? "ru" : "en" };
    } else {
      const renews = product.interval !== null && product.plan !== "trial" && tx.amount > 0;
      const [sub] = await txDb
        .insert(subscriptions)
        .values({
          userId: tx.userId,
          productId: product.id,
          provider: tx.provider,
          status: "active",
          renews,
          providerPaymentMethod: renews ? (result?.paymentMethod ?? null) : null,
          providerCustomer: result?.customer ?? null,
          cardBrand: result?.card?.brand ?? null,
          cardLast4: result?.card?.last4 ?? null,
          cardExpMonth: result?.card?.exp_month ?? null,
          cardExpYear: result?.card?.exp_year ?? null,
          currentPeriodStart: now,
          currentPeriodEnd: periodEnd(product, now),
          lastPaymentAt: tx.amount > 0 ? now : null,
        })
        .returning({ id: subscriptions.id });
      subscriptionId = sub?.id ?? null;
      await txDb.update(users).set({ billingStatus: "active" }).where(eq(users.id, tx.userId));
    }
    await txDb
      .update(billingTransactions)
      .set({
        status: "succeeded",
        subscriptionId,
        providerIntent: result?.intentId ?? tx.providerIntent,
        updatedAt: now,
      })
      .where(eq(billingTransactions.id, tx.id));
    await emitPaymentSucceeded(deps, txDb as unknown as Db, { ...tx, productSlug: product.slug });
  });
  const mail = giftMail as { to: string; code: string; userId: string; locale: ServerLocale } | null;
  if (mail) {
    await deps.services.mailer.send({
      to: mail.to,
      userId: mail.userId,
      subject: translate(mail.locale, "mail.gift.subject"),
      text: translate(mail.locale, "mail.gift.body", { code: mail.code }),
    });
  }
}

/** The event a confirmed payment announces (referral rewards listen), in the payment's transaction. */
export const PAYMENT_SUCCEEDED_EVENT = "billing.payment_succeeded";
export type PaymentSucceededPayload = {
  transactionId: string;
  kind: string;
  amount: number;
  currency: string;
  productSlug: string;
};

async function emitPaymentSucceeded(
  deps: Pick<BillingDeps, "services">,
  txDb: Db,
  tx: Pick<TransactionRow, "id" | "userId" | "kind" | "amount" | "currency"> & { productSlug: string },
) {
  const payload: PaymentSucceededPayload = {
    transactionId: tx.id,
    kind: tx.kind,
    amount: tx.amount,
    currency: tx.currency,
    productSlug: tx.productSlug,
  };
  await deps.services.events.emitEvent(txDb, {
    type: PAYMENT_SUCCEEDED_EVENT,
    userId: tx.userId,
    payload,
  });
}

export async function listTransactions(
  db: Db,
  userId: string,
  query: { limit: number; offset: number },
  locale: ServerLocale,
): Promise<TransactionsResponse> {
  const where = and(
    eq(billingTransactions.userId, userId),
    inArray(billingTransactions.status, ["succeeded", "failed", "refunded"]),
  );
  const [total] = await db.select({ n: count() }).from(billingTransactions).where(where);
  const rows = await db
    .select({ t: billingTransactions, title: billingProducts.title })
    .from(billingTransactions)
    .leftJoin(billingProducts, eq(billingProducts.id, billingTransactions.productId))
    .where(where)
    .orderBy(desc(billingTransactions.createdAt), desc(billingTransactions.id))
    .limit(query.limit)
    .offset(query.offset);
  return {
    count: total?.n ?? 0,
    limit: query.limit,
    offset: query.offset,
    results: rows.map(({ t, title }) => ({
      id: t.id,
      date: t.createdAt.toISOString(),
      amount: t.amount,
      currency: t.currency as Currency,
      description:
        t.kind === "verification"
          ? translate(locale, "billing.card_verification")
          : (title?.[locale] ?? title?.en ?? t.description) + (t.kind === "renewal" ? " ↻" : ""),
      paid: t.status === "succeeded",
      status: t.status as TransactionsResponse["results"][number]["status"],
    })),
  };
}

function purchaseState(s: SubscriptionRow, p: ProductRow): Purchase["state"] {
  if (s.provider === "app_store" || s.provider === "google_play") return "store";
  if (s.status === "cancelled") return "cancelled";
  if (!p.active) return "outdated";
  return "active";
}

/** Connected packages (spec §3 Purchase): the subscriptions that still entitle or are past due. */
export async function listPurchases(db: Db, userId: string, locale: ServerLocale): Promise<Purchase[]> {
  const now = new Date();
  const rows = await db
    .select({ s: subscriptions, p: billingProducts })
    .from(subscriptions)
    .innerJoin(billingProducts, eq(billingProducts.id, subscriptions.productId))
    .where(eq(subscriptions.userId, userId))
    .orderBy(desc(subscriptions.createdAt));
  return rows
    .filter(({ s }) => entitles(s, now) || s.status === "past_due")
    .map(({ s, p }) => ({
      purchase_id: s.id,
      product_id: p.id,
      product_slug: p.slug,
      plan: p.plan as Purchase["plan"],
      title:
        s.provider === CREDIT_PROVIDER
          ? translate(locale, "billing.referral_credit")
          : (p.title[locale] ?? p.title.en ?? p.slug),
      state: purchaseState(s, p),
      provider: s.provider,
      next_payment: s.status === "active" && s.renews ? (s.currentPeriodEnd?.toISOString() ?? null) : null,
      last_payment: s.lastPaymentAt?.toISOString() ?? null,
      payment_method: s.cardLast4 ? "card" : null,
      card:
        s.cardLast4 && s.cardBrand && s.cardExpMonth && s.cardExpYear
          ? { brand: s.cardBrand, last4: s.cardLast4, exp_month: s.cardExpMonth, exp_year: s.cardExpYear }
          : null,
      current_period_end: s.currentPeriodEnd?.toISOString() ?? null,
    }));
}

export async function listPaymentMethods(db: Db, userId: string) {
  const purchases = await listPurchases(db, userId, "en");
  const seen = new Set<string>();
  const data = [];
  for (const p of purchases) {
    if (!p.card || p.state === "cancelled") continue;
    const key = `${p.card.brand}/${p.card.last4}/${p.card.exp_month}/${p.card.exp_year}`;
    if (seen.has(key)) continue;
    seen.add(key);
    data.push({ id: p.purchase_id, ...p.card });
  }
  return { result: { data } };
}

/** Spec §7 cancel: the subscription stops renewing; the paid period runs on. */
export async function cancelSubscription(db: Db, userId: string, purchaseId: string): Promise<void> {
  const [s] = await db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, purchaseId), eq(subscriptions.userId, userId)));
  if (!s || !["active", "past_due"].includes(s.status)) throw new AppError("not_found", "Not found");
  if (s.provider === "app_store" || s.provider === "google_play")
    throw new AppError("conflict", "Cancel this subscription in the store you bought it from");
  await db.transaction(async (tx) => {
    await tx
      .update(subscriptions)
      .set({
        status: s.status === "past_due" ? "expired" : "cancelled",
        renews: false,
        cancelledAt: new Date(),
      })
      .where(eq(subscriptions.id, s.id));
    await tx.update(users).set({ billingStatus: "cancelled" }).where(eq(users.id, userId));
  });
}

/**
 * Renewals (job `billing.renew`, hourly): a renewing subscription whose period ended is charged off-session
 * with its saved payment method under an idempotency key per subscription and period; a decline makes it
 * past due and the profile's billing_status `failed` (the banner). Cancelled ones whose period ended expire.
 */
export async function renewDue(
  deps: BillingDeps,
  now = new Date(),
): Promise<{ renewed: number; failed: number }> {
  const db = deps.database.db;
  await db
    .update(subscriptions)
    .set({ status: "expired" })
    .where(and(eq(subscriptions.status, "cancelled"), lte(subscriptions.currentPeriodEnd, now)));
  await db
    .update(subscriptions)
    .set({ status: "expired" })
    .where(
      and(
        eq(subscriptions.status, "active"),
        eq(subscriptions.renews, false),
        lte(subscriptions.currentPeriodEnd, now),
      ),
    );
  const due = await db
    .select({ s: subscriptions, p: billingProducts })
    .from(subscriptions)
    .innerJoin(billingProducts, eq(billingProducts.id, subscriptions.productId))
    .where(
      and(
        eq(subscriptions.status, "active"),
        eq(subscriptions.renews, true),
        lte(subscriptions.currentPeriodEnd, now),
        eq(subscriptions.provider, deps.provider.name),
      ),
    );
  let renewed = 0;
  let failed = 0;
  for (const { s, p } of due) {
    const periodStart = s.currentPeriodEnd as Date;
    const key = `tonus-renew-${s.id}-${periodStart.toISOString()}`;
    const [tx] = await db
      .insert(billingTransactions)
      .values({
        userId: s.userId,
        subscriptionId: s.id,
        productId: p.id,
        kind: "renewal",
        amount: p.amount,
        currency: p.currency,
        description: p.slug,
        status: "pending",
        provider: deps.provider.name,
        idempotencyKey: key,
        requestHash: "renewal",
      })
      .onConflictDoUpdate({
        target: [billingTransactions.userId, billingTransactions.idempotencyKey],
        set: { updatedAt: now },
      })
      .returning();
    if (!tx) continue;
    let result: PaymentResult | null = null;
    try {
      if (s.providerPaymentMethod)
        result = await deps.provider.createPayment({
          amount: p.amount,
          currency: p.currency,
          source: s.providerPaymentMethod,
          offSession: true,
          ...(s.providerCustomer ? { customer: s.providerCustomer } : {}),
          reference: tx.id,
          idempotencyKey: key,
          description: `Tonus ${p.slug} renewal`,
        });
    } catch (error) {
      deps.log.warn({ err: error, subscriptionId: s.id }, "renewal charge refused by the provider");
    }
    if (result?.status === "succeeded") {
      await db.transaction(async (txDb) => {
        await txDb
          .update(billingTransactions)
          .set({ status: "succeeded", providerIntent: result.intentId, updatedAt: now })
          .where(eq(billingTransactions.id, tx.id));
        await txDb
          .update(subscriptions)
          .set({
            currentPeriodStart: periodStart,
            currentPeriodEnd: addInterval(periodStart, p.interval, p.intervalCount),
            lastPaymentAt: now,
          })
          .where(eq(subscriptions.id, s.id));
        await txDb.update(users).set({ billingStatus: "active" }).where(eq(users.id, s.userId));
        await emitPaymentSucceeded(deps, txDb as unknown as Db, { ...tx, productSlug: p.slug });
      });
      renewed++;
    } else {
      await db.transaction(async (txDb) => {
        await txDb
          .update(billingTransactions)
          .set({
            status: "failed",
            providerIntent: result?.intentId ?? null,
            failureMessage: result?.failureMessage ?? "No payment method",
            updatedAt: now,
          })
          .where(eq(billingTransactions.id, tx.id));
        await txDb.update(subscriptions).set({ status: "past_due" }).where(eq(subscriptions.id, s.id));
        await txDb.update(users).set({ billingStatus: "failed" }).where(eq(users.id, s.userId));
      });
      failed++;
    }
  }
  return { renewed, failed };
}

/**
 * Reconciliation (job `billing.reconcile`, every 5 minutes): payments left pending or waiting for 3-D
 * Secure for more than a minute are asked about at the provider, so a payment whose answer was lost in a
 * crash still lands (RELIABILITY P5).
 */
export async function reconcilePending(deps: BillingDeps, now = new Date()): Promise<number> {
  const db = deps.database.db;
  const cutoff = new Date(now.getTime() - 60_000);
  const stale = await db
    .select()
    .from(billingTransactions)
    .where(
      and(
        inArray(billingTransactions.status, ["pending", "requires_action"]),
        inArray(billingTransactions.kind, ["payment", "renewal"]),
        lte(billingTransactions.updatedAt, cutoff),
        eq(billingTransactions.provider, deps.provider.name),
      ),
    );
  let changed = 0;
  for (const tx of stale) {
    let result: PaymentResult;
    try {
      // Without a stored intent the answer was lost: the creation is repeated under the same key.
      result = tx.providerIntent
        ? await deps.provider.retrievePayment(tx.providerIntent)
        : tx.kind === "payment"
          ? await charge(deps, tx)
          : { intentId: "", status: "failed", failureMessage: "The renewal was interrupted" };
    } catch (error) {
      deps.log.warn({ err: error, transactionId: tx.id }, "reconciliation could not settle a payment");
      continue;
    }
    if (result.status === "succeeded") {
      await fulfil(deps, tx.id, result);
      changed++;
    } else if (result.status === "failed") {
      await markFailed(db, tx.id, result.intentId || null, result.failureMessage ?? "declined");
      changed++;
    } else if (tx.updatedAt.getTime() < now.getTime() - 24 * 3600_000) {
      await markFailed(db, tx.id, result.intentId, "Authentication was not completed");
      changed++;
    }
  }
  return changed;
}

/** Gift and trial subscriptions aside, the user's subscription rows for entitlements. */
export async function subscriptionPlan(db: Db, userId: string): Promise<string | null> {
  const current = await currentSubscription(db, userId);
  return current ? current.p.plan : null;
}

/** What a provider's webhook tells us, reduced to what billing acts on. */
export type ProviderEvent = {
  id: string;
  type: string;
  /** The payment intent the event is about (or the charge's intent). */
  intentId: string | null;
  /** Our transaction id from the payment's metadata. */
  reference: string | null;
};

/**
 * Applies one provider event once (RELIABILITY P2): the event id is recorded after the work, and the work
 * itself is idempotent (fulfil moves a transaction on only from pending), so a replay, a duplicate or any
 * order converges to the same state. The paid state is re-read from the provider's API, never taken from
 * the event body alone. Answers false for an event already applied.
 */
export async function applyProviderEvent(deps: BillingDeps, event: ProviderEvent): Promise<boolean> {
  const db = deps.database.db;
  const [seen] = await db
    .select()
    .from(billingEvents)
    .where(and(eq(billingEvents.provider, deps.provider.name), eq(billingEvents.eventId, event.id)));
  if (seen) return false;
  const tx = await transactionFor(db, event);
  if (tx && event.intentId) {
    if (event.type === "payment_intent.succeeded" || event.type === "payment_intent.payment_failed") {
      const result = await deps.provider.retrievePayment(event.intentId);
      if (result.status === "succeeded") await fulfil(deps, tx.id, result);
      else if (result.status === "failed")
        await markFailed(db, tx.id, result.intentId, result.failureMessage ?? "declined");
    } else if (event.type === "charge.refunded") {
      // The event's body says "refunded"; the provider's API decides.
      const result = await deps.provider.retrievePayment(event.intentId);
      if (result.status === "refunded" || result.refunded === true) await applyRefund(deps, tx.id);
    }
  }
  await db
    .insert(billingEvents)
    .values({ provider: deps.provider.name, eventId: event.id, type: event.type })
    .onConflictDoNothing();
  return true;
}

/**
 * A payment refunded in full at the provider: the transaction is marked refunded and what it bought ends
 * now (the subscription stops, without renewing, so PRO goes; an unused gift code is withdrawn). Once.
 */
export async function applyRefund(deps: Pick<BillingDeps, "database">, txId: string): Promise<boolean> {
  const now = new Date();
  return deps.database.db.transaction(async (txDb) => {
    const [tx] = await txDb
      .select()
      .from(billingTransactions)
      .where(eq(billingTransactions.id, txId))
      .for("update");
    if (tx?.status !== "succeeded") return false;
    await txDb
      .update(billingTransactions)
      .set({ status: "refunded", updatedAt: now })
      .where(eq(billingTransactions.id, tx.id));
    if (tx.subscriptionId) {
      await txDb
        .update(subscriptions)
        .set({ status: "expired", renews: false, currentPeriodEnd: now, cancelledAt: now })
        .where(eq(subscriptions.id, tx.subscriptionId));
      if (!(await currentSubscription(txDb as unknown as Db, tx.userId, now)))
        await txDb.update(users).set({ billingStatus: "none" }).where(eq(users.id, tx.userId));
    }
    await txDb
      .update(billingCoupons)
      .set({ active: false })
      .where(and(eq(billingCoupons.sourceTransactionId, tx.id), eq(billingCoupons.redeemed, 0)));
    return true;
  });
}

async function transactionFor(db: Db, event: ProviderEvent): Promise<TransactionRow | undefined> {
  if (event.reference && /^[0-9a-f-]{36}$/.test(event.reference)) {
    const [byRef] = await db
      .select()
      .from(billingTransactions)
      .where(eq(billingTransactions.id, event.reference));
    if (byRef) return byRef;
  }
  if (!event.intentId) return undefined;
  const [byIntent] = await db
    .select()
    .from(billingTransactions)
    .where(eq(billingTransactions.providerIntent, event.intentId));
  return byIntent;
}
