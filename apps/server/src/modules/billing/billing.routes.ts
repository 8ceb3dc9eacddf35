import {
  BILLING_API,
  CancelRequestSchema,
  CardVerifyRequestSchema,
  CardVerifyResponseSchema,
  CouponCheckRequestSchema,
  CouponCheckResponseSchema,
  OkSchema,
  PaymentMethodsResponseSchema,
  PayRequestSchema,
  PayResponseSchema,
  ProductsResponseSchema,
  PurchasesResponseSchema,
  SandboxAuthenticateRequestSchema,
  SandboxIntentSchema,
  SandboxTokenRequestSchema,
  SandboxTokenResponseSchema,
  storableText,
  TransactionsQuerySchema,
  TransactionsResponseSchema,
} from "@tonus/contract";
import { eq } from "drizzle-orm";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { sandboxIntents } from "../../db/schema.ts";
import { AppError } from "../../lib/app-error.ts";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { pickLocale } from "../../lib/i18n.ts";
import { CUSTOMER_CLEANUP_JOB, runCustomerCleanups } from "./billing.customers.ts";
import { billingDataSection } from "./billing.data.ts";
import {
  assertCouponCheckAllowed,
  type BillingDeps,
  cancelSubscription,
  checkCoupon,
  listPaymentMethods,
  listProducts,
  listPurchases,
  listTransactions,
  pay,
  reconcilePending,
  renewDue,
} from "./billing.service.ts";
import { refundStrandedVerifications, verifyCard } from "./card-verification.ts";
import { seedDefaultPlans } from "./plans.ts";
import { type PaymentProvider, type PaymentResult, ProviderError } from "./provider.ts";
import { createSandboxToken, SandboxCardError, SandboxProvider } from "./sandbox.provider.ts";
import { StripeProvider } from "./stripe.provider.ts";
import { registerStripeWebhook } from "./stripe.webhook.ts";

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

function localeOf(request: FastifyRequest) {
  return pickLocale(request.headers["accept-language"]);
}

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers["idempotency-key"];
  if (raw === undefined) return undefined;
  if (typeof raw !== "string" || !IDEMPOTENCY_KEY_RE.test(raw))
    throw new AppError("validation_failed", "Idempotency-Key must be 1 to 255 visible ASCII characters");
  return raw;
}

/** Stands in when BILLING_MODE=stripe lacks its key: every call is refused, the server still starts. */
class UnconfiguredProvider implements PaymentProvider {
  readonly name = "stripe" as const;
  private refuse(): never {
    throw new ProviderError("invalid_request", "Payments are not configured on this installation");
  }
  createPayment(): Promise<PaymentResult> {
    this.refuse();
  }
  retrievePayment(): Promise<PaymentResult> {
    this.refuse();
  }
  refund(): Promise<PaymentResult> {
    this.refuse();
  }
}

/** The provider for BILLING_MODE: Stripe with its keys, otherwise the built-in sandbox. */
export function createProvider(ctx: AppContext): PaymentProvider {
  if (ctx.config.BILLING_MODE !== "stripe") return new SandboxProvider(ctx.database.db);
  if (!ctx.config.STRIPE_SECRET_KEY) {
    ctx.log.error("BILLING_MODE=stripe without STRIPE_SECRET_KEY: payments are refused");
    return new UnconfiguredProvider();
  }
  return new StripeProvider({ secretKey: ctx.config.STRIPE_SECRET_KEY, apiUrl: ctx.config.STRIPE_API_URL });
}

export async function registerBillingRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  ctx.services.registry.register(billingDataSection(ctx.services.jobs));
  await seedDefaultPlans(ctx.database.db);
  const provider = createProvider(ctx);
  const deps: BillingDeps = { ...ctx, provider };
  ctx.services.jobs.defineJob(
    CUSTOMER_CLEANUP_JOB,
    async () => {
      const { failed } = await runCustomerCleanups(deps);
      if (failed > 0) throw new Error(`${failed} customer(s) not deleted at the provider yet`);
    },
    { cron: "*/15 * * * *", retryLimit: 10, retryDelay: 30, retryBackoff: true, retryDelayMax: 1800 },
  );
  const billingOn = ctx.config.BILLING_MODE !== "off";
  const requireBilling = () => {
    if (!billingOn)
      throw new AppError("conflict", "Billing is off on this installation: every account has every feature");
  };

  ctx.services.jobs.defineJob(
    "billing.renew",
    async () => {
      if (billingOn) await renewDue(deps);
    },
    { cron: "17 * * * *" },
  );
  ctx.services.jobs.defineJob(
    "billing.reconcile",
    async () => {
      if (!billingOn) return;
      await reconcilePending(deps);
      await refundStrandedVerifications(deps);
    },
    { cron: "*/5 * * * *" },
  );

  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    BILLING_API.products,
    { config: { access: "public" }, schema: { response: { 200: ProductsResponseSchema } } },
    async (request) =>
      listProducts(
        ctx.database.db,
        request.auth.kind === "user" ? request.auth.userId : null,
        localeOf(request),
      ),
  );

  r.post(
    BILLING_API.couponCheck,
    {
      config: { access: "user" },
      schema: { body: CouponCheckRequestSchema, response: { 200: CouponCheckResponseSchema } },
    },
    async (request) => {
      await assertCouponCheckAllowed(deps, { userId: requireUserId(request), ip: request.ip });
      return checkCoupon(ctx.database.db, request.body, localeOf(request));
    },
  );

  r.post(
    BILLING_API.pay,
    { config: { access: "user" }, schema: { body: PayRequestSchema, response: { 200: PayResponseSchema } } },
    async (request) => {
      const userId = requireUserId(request);
      const key = idempotencyKeyOf(request);
      requireBilling();
      if (request.body.coupon) await assertCouponCheckAllowed(deps, { userId, ip: request.ip });
      return pay(deps, userId, request.body, localeOf(request), key);
    },
  );

  r.post(
    BILLING_API.cardVerify,
    {
      config: { access: "user" },
      schema: { body: CardVerifyRequestSchema, response: { 200: CardVerifyResponseSchema } },
    },
    async (request) => {
      const userId = requireUserId(request);
      requireBilling();
      return verifyCard(deps, userId, request.body, localeOf(request));
    },
  );

  r.get(
    BILLING_API.transactions,
    {
      config: { access: "user" },
      schema: { querystring: TransactionsQuerySchema, response: { 200: TransactionsResponseSchema } },
    },
    async (request) =>
      listTransactions(ctx.database.db, requireUserId(request), request.query, localeOf(request)),
  );

  r.get(
    BILLING_API.purchases,
    { config: { access: "user" }, schema: { response: { 200: PurchasesResponseSchema } } },
    async (request) => listPurchases(ctx.database.db, requireUserId(request), localeOf(request)),
  );

  r.get(
    BILLING_API.paymentMethods,
    { config: { access: "user" }, schema: { response: { 200: PaymentMethodsResponseSchema } } },
    async (request) => listPaymentMethods(ctx.database.db, requireUserId(request)),
  );

  r.post(
    BILLING_API.cancel,
    { config: { access: "user" }, schema: { body: CancelRequestSchema, response: { 200: OkSchema } } },
    async (request) => {
      await cancelSubscription(ctx.database.db, requireUserId(request), request.body.purchase_id);
      return { ok: true as const };
    },
  );

  await registerStripeWebhook(app, ctx, deps);
  if (ctx.config.BILLING_MODE !== "sandbox") return;
  registerSandboxRoutes(app, ctx, provider as SandboxProvider);
}

const IntentParamsSchema = z.object({ id: storableText(100) });

/**
 * The sandbox provider's own endpoints, its stand-ins for Stripe.js tokenisation and the 3-D Secure page.
 * They belong to the provider, not to Tonus's API: the card number is posted here and only a token goes on.
 */
function registerSandboxRoutes(app: FastifyInstance, ctx: AppContext, provider: SandboxProvider) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    BILLING_API.sandboxTokens,
    {
      config: { access: "public" },
      schema: { body: SandboxTokenRequestSchema, response: { 200: SandboxTokenResponseSchema } },
    },
    async (request) => {
      try {
        return await createSandboxToken(ctx.database.db, request.body);
      } catch (error) {
        if (error instanceof SandboxCardError) throw new AppError("validation_failed", error.message);
        throw error;
      }
    },
  );
  r.get(
    BILLING_API.sandboxIntent,
    {
      config: { access: "public" },
      schema: { params: IntentParamsSchema, response: { 200: SandboxIntentSchema } },
    },
    async (request) => {
      const [row] = await ctx.database.db
        .select()
        .from(sandboxIntents)
        .where(eq(sandboxIntents.id, request.params.id));
      if (!row) throw new AppError("not_found", "Not found");
      return {
        id: row.id,
        status: row.status as z.infer<typeof SandboxIntentSchema>["status"],
        amount: row.amount,
        currency: row.currency,
      };
    },
  );
  r.post(
    BILLING_API.sandboxAuthenticate,
    {
      config: { access: "public" },
      schema: {
        params: IntentParamsSchema,
        body: SandboxAuthenticateRequestSchema,
        response: { 200: SandboxIntentSchema },
      },
    },
    async (request) => {
      const result = await provider.authenticate(request.params.id, request.body.result === "succeed");
      if (!result) throw new AppError("not_found", "Not found");
      const [row] = await ctx.database.db
        .select()
        .from(sandboxIntents)
        .where(eq(sandboxIntents.id, request.params.id));
      if (!row) throw new AppError("not_found", "Not found");
      return {
        id: row.id,
        status: row.status as z.infer<typeof SandboxIntentSchema>["status"],
        amount: row.amount,
        currency: row.currency,
      };
    },
  );
}
