import { z } from "zod";
import { isStorable, NOT_STORABLE } from "./common.ts";
import { SCHEMA_MESSAGES } from "./messages.ts";

/** Billing API paths (spec §7; the billing host's paths are served by the same server). */
export const BILLING_API = {
  products: "/dashboard_api/v1/billing/products_v2/",
  pay: "/dashboard_api/v1/billing/pay/",
  couponCheck: "/dashboard_api/v1/billing/coupons/check/",
  cardVerify: "/dashboard_api/v1/billing/card/verify/",
  transactions: "/dashboard_api/v1/billing/transactions/",
  paymentMethods: "/dashboard_api/v1/billing/payment_methods/",
  purchases: "/api/v1/purchases/",
  cancel: "/api/v1/stripe/subscription/cancel/",
  userDelete: "/dashboard_api/v1/user/delete/",
  /** Stripe's signed webhooks (CSRF-exempt: the signature is the proof). */
  stripeWebhook: "/api/v1/stripe/webhook/",
  /** The built-in sandbox provider's own endpoints (its stand-in for Stripe.js and Stripe's 3-D Secure page). */
  sandboxTokens: "/api/sandbox/v1/tokens/",
  sandboxIntent: "/api/sandbox/v1/intents/:id/",
  sandboxAuthenticate: "/api/sandbox/v1/intents/:id/authenticate/",
} as const;

export const CurrencySchema = z.enum(["USD", "RUB"]);
export type Currency = z.infer<typeof CurrencySchema>;

/** The plan kinds of spec §3 Subscription. */
export const PlanKindSchema = z.enum([
  "one-time",
  "weekly",
  "monthly",
  "quarterly",
  "half-year",
  "annual",
  "one-day",
  "trial",
]);
export type PlanKind = z.infer<typeof PlanKindSchema>;

export const IntervalSchema = z.enum(["day", "week", "month", "year"]);
export type Interval = z.infer<typeof IntervalSchema>;

/** The slug of the gift product (spec §3: `{product}gift`). */
export const GIFT_PRODUCT_SLUG = "tonusgift";

/**
 * A product of `products_v2` (spec §3: id, slug, active, is_paid, interval). `active` means on sale;
 * `is_paid` means the caller currently pays for it, which the list shows with `active: false`.
 * Amounts are in minor units (cents, kopecks).
 */
export const ProductSchema = z.object({
  id: z.number().int(),
  slug: z.string(),
  active: z.boolean(),
  is_paid: z.boolean(),
  interval: IntervalSchema.nullable(),
  interval_count: z.number().int(),
  plan: PlanKindSchema,
  title: z.string(),
  currency: CurrencySchema,
  amount: z.number().int(),
  /** Discount shown on an annual plan's label (30 or 50), else null. */
  discount_percent: z.number().int().nullable(),
  trial_days: z.number().int().nullable(),
});
export type Product = z.infer<typeof ProductSchema>;
export const ProductsResponseSchema = z.array(ProductSchema);

const ORDER: Record<string, number> = { month: 0, year: 1 };

/**
 * Spec §4 Products: active products sorted monthly, then yearly, then those without an interval (weekly
 * and daily ones come after yearly); the inactive product that is_paid is the user's paid product; the
 * gift product is in neither.
 */
export function organizeProducts(products: readonly Product[]): { plans: Product[]; paid: Product | null } {
  const rank = (p: Product) => (p.interval === null ? 3 : (ORDER[p.interval] ?? 2));
  const plans = products
    .filter((p) => p.active && p.slug !== GIFT_PRODUCT_SLUG)
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p) - rank(b.p) || a.p.interval_count - b.p.interval_count || a.i - b.i)
    .map(({ p }) => p);
  const paid = products.find((p) => !p.active && p.is_paid && p.slug !== GIFT_PRODUCT_SLUG) ?? null;
  return { plans, paid };
}

/** Spec §3 Payment payload. A card reaches us only as the provider's token. */
export const PayRequestSchema = z.object({
  productId: z.number().int().positive().max(2_147_483_647),
  coupon: z.string().trim().min(1).max(64).refine(isStorable, NOT_STORABLE).optional(),
  stripeToken: z.string().min(1).max(255).refine(isStorable, NOT_STORABLE).optional(),
  stripe3dToken: z.string().min(1).max(255).refine(isStorable, NOT_STORABLE).optional(),
});
export type PayRequest = z.infer<typeof PayRequestSchema>;

/**
 * `succeeded`: paid (or free with a 100 % code); `requires_action`: confirm (3-D Secure), then pay again
 * with stripe3dToken; `processing`: the provider decides later (the page's 10 s refresh shows the outcome).
 * With Stripe, `client_secret` (only while `requires_action`) is what Stripe.js's `handleNextAction` needs.
 */
export const PayResponseSchema = z.object({
  status: z.enum(["succeeded", "requires_action", "processing"]),
  transaction_id: z.string(),
  payment_intent: z.string().nullable(),
  action_url: z.string().nullable(),
  client_secret: z.string().nullable(),
  gift: z.boolean(),
});
export type PayResponse = z.infer<typeof PayResponseSchema>;

export const CouponCheckRequestSchema = z.object({
  productId: z.number().int().positive().max(2_147_483_647),
  coupon: z.string().trim().min(1).max(64).refine(isStorable, NOT_STORABLE),
});
export const CouponCheckResponseSchema = z.object({
  valid: z.literal(true),
  coupon: z.string(),
  percent_off: z.number().int(),
  amount: z.number().int(),
  currency: CurrencySchema,
});
export type CouponCheckResponse = z.infer<typeof CouponCheckResponseSchema>;

export const TransactionsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(5),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export const TransactionSchema = z.object({
  id: z.string(),
  date: z.string(),
  amount: z.number().int(),
  currency: CurrencySchema,
  description: z.string(),
  paid: z.boolean(),
  status: z.enum(["pending", "requires_action", "succeeded", "failed", "refunded"]),
});
export type Transaction = z.infer<typeof TransactionSchema>;
export const TransactionsResponseSchema = z.object({
  count: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  results: z.array(TransactionSchema),
});
export type TransactionsResponse = z.infer<typeof TransactionsResponseSchema>;

export const SubscriptionStateSchema = z.enum(["active", "cancelled", "outdated", "store", "none"]);
export type SubscriptionState = z.infer<typeof SubscriptionStateSchema>;

export const CardSchema = z.object({
  brand: z.string(),
  last4: z.string(),
  exp_month: z.number().int(),
  exp_year: z.number().int(),
});

/** A connected package (spec §3 Purchase): one subscription or one-time purchase. */
export const PurchaseSchema = z.object({
  purchase_id: z.string(),
  product_id: z.number().int(),
  product_slug: z.string(),
  plan: PlanKindSchema,
  title: z.string(),
  state: SubscriptionStateSchema,
  /** `stripe` or `sandbox` for our own; `app_store`/`google_play` for store purchases. */
  provider: z.string(),
  next_payment: z.string().nullable(),
  last_payment: z.string().nullable(),
  payment_method: z.string().nullable(),
  card: CardSchema.nullable(),
  current_period_end: z.string().nullable(),
});
export type Purchase = z.infer<typeof PurchaseSchema>;
export const PurchasesResponseSchema = z.array(PurchaseSchema);

export const PaymentMethodsResponseSchema = z.object({
  result: z.object({ data: z.array(CardSchema.extend({ id: z.string() })) }),
});

export const CancelRequestSchema = z.object({
  purchase_id: z.string().min(1).max(64).refine(isStorable, NOT_STORABLE),
});

/** Sandbox tokenisation (the sandbox's stand-in for Stripe.js): the card goes here, never to our pay route. */
export const SandboxTokenRequestSchema = z.object({
  number: z.string().max(40),
  exp_month: z.coerce.number().int().min(1).max(12),
  exp_year: z.coerce.number().int().min(2000).max(2100),
  cvc: z.string().regex(/^\d{3,4}$/),
});
export const SandboxTokenResponseSchema = z.object({ id: z.string(), card: CardSchema });
export const SandboxIntentSchema = z.object({
  id: z.string(),
  status: z.enum(["requires_action", "succeeded", "failed", "refunded", "canceled"]),
  amount: z.number().int(),
  currency: z.string(),
});
export const SandboxAuthenticateRequestSchema = z.object({ result: z.enum(["succeed", "fail"]) });

/** Data-export archive paths (spec §4 Data archive; the spec does not show these calls). */
export const ARCHIVE_API = {
  archive: "/dashboard_api/v1/user/archive/",
  download: "/dashboard_api/v1/user/archive/:id/download/",
  /** Restores a downloaded archive (multipart, one zip file) into the caller's account while it is empty. */
  import: "/dashboard_api/v1/user/archive/import/",
} as const;

/** The largest archive zip an import accepts. */
export const ARCHIVE_IMPORT_MAX_BYTES = 100 * 1024 * 1024;

/** What an archive import restored: rows per table (the account's profile fields aside). */
export const ArchiveImportResponseSchema = z.object({
  ok: z.literal(true),
  restored: z.record(z.string(), z.number().int()),
});
export type ArchiveImportResponse = z.infer<typeof ArchiveImportResponseSchema>;

export const ArchiveStatusSchema = z.object({
  id: z.string().nullable(),
  status: z.enum(["none", "packing", "ready", "failed", "expired"]),
  requested_at: z.string().nullable(),
  ready_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  download_url: z.string().nullable(),
  size_bytes: z.number().int().nullable(),
});
export type ArchiveStatus = z.infer<typeof ArchiveStatusSchema>;

/** Card verification (spec §4, §9): $1 (50 RUB in the Russian version), refunded as soon as the bank confirms. */
export const CARD_VERIFICATION_AMOUNT = { USD: 100, RUB: 5000 } as const;
export const CardVerifyRequestSchema = z
  .object({
    stripeToken: z.string().min(1).max(255).refine(isStorable, NOT_STORABLE).optional(),
    stripe3dToken: z.string().min(1).max(255).refine(isStorable, NOT_STORABLE).optional(),
  })
  .refine((b) => Boolean(b.stripeToken) !== Boolean(b.stripe3dToken), {
    message: SCHEMA_MESSAGES.card_token,
  });
export const CardVerifyResponseSchema = z.object({
  status: z.enum(["verified", "requires_action"]),
  payment_intent: z.string().nullable(),
  action_url: z.string().nullable(),
  client_secret: z.string().nullable(),
  card: CardSchema.nullable(),
});
export type CardVerifyResponse = z.infer<typeof CardVerifyResponseSchema>;
