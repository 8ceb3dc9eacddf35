/**
 * The one interface billing talks to (PRODUCT.md §4). Shaped after Stripe's PaymentIntents: a payment is
 * created and confirmed with a card token from the provider's own tokenisation on the page (a card number
 * never reaches our routes); it either succeeds, fails, or needs the customer's 3-D Secure confirmation,
 * after which `retrievePayment` tells the outcome. Every call that moves money carries an idempotency
 * key derived from our operation id, so a retry after a crash returns the same provider object.
 */
export type Card = { brand: string; last4: string; exp_month: number; exp_year: number };

export type PaymentResult = {
  intentId: string;
  /** `processing`: the provider has not decided yet; a webhook or the reconciliation job settles it. */
  status: "succeeded" | "requires_action" | "processing" | "failed" | "refunded";
  /** Where the customer confirms (3-D Secure) when `requires_action`. */
  actionUrl?: string;
  /** Stripe's client secret of the intent when `requires_action`: Stripe.js confirms with it on the page. */
  clientSecret?: string;
  failureMessage?: string;
  card?: Card;
  /** A reusable payment method for renewals (off-session charges). */
  paymentMethod?: string;
  /** The provider's customer the payment method is saved on (Stripe). */
  customer?: string;
  /** The payment was refunded in full (Stripe keeps such an intent `succeeded`; its charge says so). */
  refunded?: boolean;
};

export type CreatePayment = {
  amount: number;
  currency: string;
  /** The card token from the page, or a saved payment method for a renewal. */
  source: string;
  /** True for renewals: no customer is present, so a card that needs 3-D Secure fails. */
  offSession?: boolean;
  /** The provider's customer (from `customerFor`), so the card can be charged again for renewals. */
  customer?: string;
  /** Our transaction id, stored with the payment so a webhook finds it even if our answer was lost. */
  reference?: string;
  idempotencyKey: string;
  description: string;
};

export interface PaymentProvider {
  readonly name: "sandbox" | "stripe";
  createPayment(input: CreatePayment): Promise<PaymentResult>;
  retrievePayment(intentId: string): Promise<PaymentResult>;
  refund(intentId: string, idempotencyKey: string): Promise<PaymentResult>;
  /** The provider's customer for one of our users, created once (providers without customers omit it). */
  customerFor?(userId: string): Promise<string>;
  /**
   * Deletes a customer and the payment methods saved on it (account deletion). Retried under the same
   * idempotency key; a customer already gone counts as deleted.
   */
  deleteCustomer?(customerId: string, idempotencyKey: string): Promise<void>;
}

/** The provider refused the call itself (not a decline): bad token, idempotency-key misuse. */
export class ProviderError extends Error {
  readonly kind: "invalid_request" | "idempotency_mismatch";
  constructor(kind: "invalid_request" | "idempotency_mismatch", message: string) {
    super(message);
    this.kind = kind;
  }
}
