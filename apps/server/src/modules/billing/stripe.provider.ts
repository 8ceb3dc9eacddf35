import Stripe from "stripe";
import type { Card, CreatePayment, PaymentProvider, PaymentResult } from "./provider.ts";
import { ProviderError } from "./provider.ts";

/**
 * The Stripe implementation, on the official SDK. Payments are PaymentIntents confirmed at once with the
 * PaymentMethod that Stripe.js created on the page (the card never reaches us); on-session payments are
 * saved for off-session renewals on a Stripe customer. Every call that creates something carries the
 * idempotency key derived from our operation id. Declines come back as `failed` with Stripe's message;
 * idempotency misuse and invalid requests as ProviderError.
 */
export type StripeOptions = { secretKey: string; apiUrl?: string };

type StripeIntent = {
  id: string;
  status: string;
  client_secret?: string | null;
  customer?: string | { id: string } | null;
  payment_method?:
    | string
    | { id: string; card?: { brand: string; last4: string; exp_month: number; exp_year: number } }
    | null;
  last_payment_error?: { message?: string } | null;
  latest_charge?: string | { id: string; refunded?: boolean } | null;
  next_action?: { redirect_to_url?: { url?: string } } | null;
};

function stripeClient(options: StripeOptions): Stripe {
  const config: Record<string, unknown> = { maxNetworkRetries: 2, telemetry: false };
  if (options.apiUrl) {
    const url = new URL(options.apiUrl);
    config.host = url.hostname;
    config.port = url.port || (url.protocol === "https:" ? 443 : 80);
    config.protocol = url.protocol.replace(":", "");
  }
  return new Stripe(options.secretKey, config as ConstructorParameters<typeof Stripe>[1]);
}

function toResult(intent: StripeIntent, customer?: string): PaymentResult {
  const pm = typeof intent.payment_method === "object" ? intent.payment_method : null;
  const card: Card | undefined = pm?.card
    ? { brand: pm.card.brand, last4: pm.card.last4, exp_month: pm.card.exp_month, exp_year: pm.card.exp_year }
    : undefined;
  const paymentMethod = typeof intent.payment_method === "string" ? intent.payment_method : pm?.id;
  const customerId =
    typeof intent.customer === "string" ? intent.customer : (intent.customer?.id ?? customer);
  const refunded = typeof intent.latest_charge === "object" && intent.latest_charge?.refunded === true;
  const base = {
    intentId: intent.id,
    ...(refunded ? { refunded } : {}),
    ...(card ? { card } : {}),
    ...(paymentMethod ? { paymentMethod } : {}),
    ...(customerId ? { customer: customerId } : {}),
  };
  switch (intent.status) {
    case "succeeded":
      return { ...base, status: "succeeded" };
    case "requires_action":
      return {
        ...base,
        status: "requires_action",
        actionUrl: intent.next_action?.redirect_to_url?.url ?? "",
        ...(intent.client_secret ? { clientSecret: intent.client_secret } : {}),
      };
    case "processing":
    case "requires_confirmation":
      return { ...base, status: "processing" };
    default:
      return {
        ...base,
        status: "failed",
        failureMessage: intent.last_payment_error?.message ?? "Your card was declined.",
      };
  }
}

function rethrow(error: unknown): never {
  const e = error as { type?: string; message?: string };
  if (e?.type === "StripeIdempotencyError") throw new ProviderError("idempotency_mismatch", e.message ?? "");
  if (e?.type === "StripeInvalidRequestError") throw new ProviderError("invalid_request", e.message ?? "");
  throw error;
}

export class StripeProvider implements PaymentProvider {
  readonly name = "stripe" as const;
  readonly stripe: Stripe;
  constructor(options: StripeOptions) {
    this.stripe = stripeClient(options);
  }

  /** One Stripe customer per person, created once (the key is the user id); holds no personal data. */
  async customerFor(userId: string): Promise<string> {
    try {
      const customer = await this.stripe.customers.create(
        { metadata: { tonus_user: userId } },
        { idempotencyKey: `tonus-customer-${userId}` },
      );
      return customer.id;
    } catch (error) {
      rethrow(error);
    }
  }

  /**
   * Account deletion: the cards saved on the customer are detached (POSTs, each under a key derived from
   * ours, so a retry repeats nothing), then the customer is deleted. A customer or card Stripe no longer
   * has is the goal state.
   */
  async deleteCustomer(customerId: string, idempotencyKey: string): Promise<void> {
    const ignoreMissing = (error: unknown) => {
      if ((error as { code?: string })?.code !== "resource_missing") rethrow(error);
    };
    let cards: string[];
    try {
      const methods = await this.stripe.customers.listPaymentMethods(customerId, { limit: 100 });
      cards = methods.data.map((pm) => pm.id);
    } catch (error) {
      ignoreMissing(error);
      return;
    }
    for (const pm of cards)
      await this.stripe.paymentMethods
        .detach(pm, {}, { idempotencyKey: `${idempotencyKey}-${pm}` })
        .catch(ignoreMissing);
    await this.stripe.customers.del(customerId, {}, { idempotencyKey }).catch(ignoreMissing);
  }

  async createPayment(input: CreatePayment): Promise<PaymentResult> {
    const params = {
      amount: input.amount,
      currency: input.currency.toLowerCase(),
      payment_method: input.source,
      confirm: true,
      description: input.description,
      expand: ["payment_method"],
      payment_method_types: ["card"],
      ...(input.customer ? { customer: input.customer } : {}),
      ...(input.reference ? { metadata: { tonus_transaction: input.reference } } : {}),
      ...(input.offSession
        ? { off_session: true }
        : input.customer
          ? { setup_future_usage: "off_session" as const }
          : {}),
    };
    try {
      const intent = await this.stripe.paymentIntents.create(params, {
        idempotencyKey: input.idempotencyKey,
      });
      return toResult(intent as unknown as StripeIntent, input.customer);
    } catch (error) {
      const e = error as { type?: string; message?: string; payment_intent?: StripeIntent };
      // A decline is an answer, not a failure of the call: Stripe sends the intent with the card error.
      if (e?.type === "StripeCardError") {
        return {
          ...(e.payment_intent ? toResult(e.payment_intent) : { intentId: "" }),
          status: "failed",
          failureMessage: e.message ?? "Your card was declined.",
        };
      }
      rethrow(error);
    }
  }

  async retrievePayment(intentId: string): Promise<PaymentResult> {
    try {
      const intent = await this.stripe.paymentIntents.retrieve(intentId, {
        expand: ["payment_method", "latest_charge"],
      });
      return toResult(intent as unknown as StripeIntent);
    } catch (error) {
      rethrow(error);
    }
  }

  async refund(intentId: string, idempotencyKey: string): Promise<PaymentResult> {
    try {
      await this.stripe.refunds.create({ payment_intent: intentId }, { idempotencyKey });
      return { intentId, status: "refunded" };
    } catch (error) {
      rethrow(error);
    }
  }
}
