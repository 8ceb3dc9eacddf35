import { BILLING_API } from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { applyProviderEvent, type BillingDeps, type ProviderEvent } from "./billing.service.ts";
import { StripeProvider } from "./stripe.provider.ts";

/** Stripe's own tolerance for old signatures (the SDK's default), applied to future ones as well. */
export const SIGNATURE_TOLERANCE_S = 300;

type StripeObject = {
  id?: string;
  object?: string;
  payment_intent?: string | null;
  metadata?: Record<string, string>;
};

function toProviderEvent(event: { id: string; type: string; data: { object: unknown } }): ProviderEvent {
  const object = (event.data.object ?? {}) as StripeObject;
  const intentId = object.object === "payment_intent" ? (object.id ?? null) : (object.payment_intent ?? null);
  return { id: event.id, type: event.type, intentId, reference: object.metadata?.tonus_transaction ?? null };
}

/**
 * `POST /api/v1/stripe/webhook/`: Stripe's signed events. The raw bytes are verified with the SDK's
 * `constructEvent` (HMAC-SHA256 over "t.body", 300 s tolerance for old timestamps) and, beyond the SDK,
 * a timestamp more than 300 s in the future is refused too (RELIABILITY P1). Each event applies once.
 * No cookie or CSRF applies: the signature is the proof (listed in CSRF_EXEMPT_ROUTES).
 */
export async function registerStripeWebhook(app: FastifyInstance, ctx: AppContext, deps: BillingDeps) {
  await app.register(async (scope) => {
    // The signature covers the exact bytes: no JSON parsing before verification.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 1024 * 1024 }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      BILLING_API.stripeWebhook,
      { config: { csrfExempt: true }, bodyLimit: 1024 * 1024 },
      async (request) => {
        const secret = ctx.config.STRIPE_WEBHOOK_SECRET;
        if (ctx.config.BILLING_MODE !== "stripe" || !secret || !(deps.provider instanceof StripeProvider))
          throw new AppError("not_found", "Not found");
        const signature = request.headers["stripe-signature"];
        const raw = request.body;
        if (typeof signature !== "string" || !Buffer.isBuffer(raw))
          throw new AppError("validation_failed", "Missing Stripe-Signature or body");
        const t = /(?:^|,)\s*t=(\d+)/.exec(signature)?.[1];
        if (!t || Number(t) > Date.now() / 1000 + SIGNATURE_TOLERANCE_S)
          throw new AppError("validation_failed", "Webhook timestamp outside the tolerance");
        let event: { id: string; type: string; data: { object: unknown } };
        try {
          event = deps.provider.stripe.webhooks.constructEvent(raw, signature, secret, SIGNATURE_TOLERANCE_S);
        } catch {
          throw new AppError("validation_failed", "Webhook signature verification failed");
        }
        const applied = await applyProviderEvent(deps, toProviderEvent(event));
        request.log.info({ eventId: event.id, type: event.type, applied }, "stripe webhook");
        return { received: true };
      },
    );
  });
}
