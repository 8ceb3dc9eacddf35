import { createHash, randomBytes } from "node:crypto";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { sandboxCustomers, sandboxIntents, sandboxTokens } from "../../db/schema.ts";
import type { Card, CreatePayment, PaymentProvider, PaymentResult } from "./provider.ts";
import { ProviderError } from "./provider.ts";

/**
 * The built-in sandbox provider: Stripe's test mode without the network. Its tokenisation endpoint (the
 * stand-in for Stripe.js) turns a test card into a token and keeps only the card's brand, last four digits,
 * expiry and test behaviour. Test cards follow Stripe's documented ones:
 * 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has insufficient
 * funds, 4000 0027 6000 3184 needs 3-D Secure (and fails off-session); any other number is declined, as
 * Stripe's test mode refuses real cards. Idempotency keys follow Stripe: the same key with the same
 * parameters returns the first result; with other parameters it is an error.
 */
export type SandboxBehaviour = "succeed" | "decline" | "insufficient_funds" | "authenticate";

const TEST_CARDS: Record<string, SandboxBehaviour> = {
  "4242424242424242": "succeed",
  "5555555555554444": "succeed",
  "4000000000000002": "decline",
  "4000000000009995": "insufficient_funds",
  "4000002760003184": "authenticate",
  "4000002500003155": "authenticate",
};

export const DECLINE_MESSAGES: Record<string, string> = {
  decline: "Your card was declined.",
  insufficient_funds: "Your card has insufficient funds.",
  authenticate: "Your card was declined. This transaction requires authentication.",
  authentication_failed: "We are unable to authenticate your payment method.",
};

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length >= 12 && sum % 10 === 0;
}

function brandOf(digits: string): string {
  if (digits.startsWith("4")) return "visa";
  if (/^5[1-5]/.test(digits)) return "mastercard";
  if (/^3[47]/.test(digits)) return "amex";
  if (digits.startsWith("220")) return "mir";
  return "unknown";
}

export class SandboxCardError extends Error {}

const id = (prefix: string) => `${prefix}_sbx_${randomBytes(12).toString("hex")}`;

/** Tokenises a test card (the sandbox's own endpoint calls this; our pay route never sees the number). */
export async function createSandboxToken(
  db: Db,
  card: { number: string; exp_month: number; exp_year: number; cvc: string },
  now = new Date(),
): Promise<{ id: string; card: Card }> {
  const digits = card.number.replace(/[\s-]/g, "");
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits))
    throw new SandboxCardError("Your card number is incorrect.");
  const expiry = card.exp_year * 12 + card.exp_month;
  if (expiry < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1)
    throw new SandboxCardError("Your card's expiration date is in the past.");
  const token = {
    id: id("tok"),
    behaviour: TEST_CARDS[digits] ?? "decline",
    brand: brandOf(digits),
    last4: digits.slice(-4),
    expMonth: card.exp_month,
    expYear: card.exp_year,
  };
  await db.insert(sandboxTokens).values(token);
  return {
    id: token.id,
    card: { brand: token.brand, last4: token.last4, exp_month: token.expMonth, exp_year: token.expYear },
  };
}

type IntentRow = typeof sandboxIntents.$inferSelect;

export class SandboxProvider implements PaymentProvider {
  readonly name = "sandbox" as const;
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  private async token(tokenId: string) {
    const [row] = await this.db.select().from(sandboxTokens).where(eq(sandboxTokens.id, tokenId));
    return row;
  }

  private async result(intent: IntentRow): Promise<PaymentResult> {
    const token = await this.token(intent.token);
    const card = token
      ? { brand: token.brand, last4: token.last4, exp_month: token.expMonth, exp_year: token.expYear }
      : undefined;
    const status = intent.status === "canceled" ? "failed" : (intent.status as PaymentResult["status"]);
    return {
      intentId: intent.id,
      status,
      ...(status === "requires_action" ? { actionUrl: `/api/sandbox/v1/intents/${intent.id}/` } : {}),
      ...(status === "failed"
        ? { failureMessage: DECLINE_MESSAGES[intent.failure ?? "decline"] ?? DECLINE_MESSAGES.decline }
        : {}),
      ...(card ? { card } : {}),
      ...(token && status === "succeeded" ? { paymentMethod: token.id } : {}),
      ...(intent.customer ? { customer: intent.customer } : {}),
    };
  }

  /** One customer per key, as Stripe's idempotent customer creation; the user id in its metadata. */
  async customerFor(userId: string): Promise<string> {
    const idempotencyKey = `tonus-customer-${userId}`;
    await this.db
      .insert(sandboxCustomers)
      .values({ id: id("cus"), idempotencyKey, metadata: { tonus_user: userId } })
      .onConflictDoNothing({ target: sandboxCustomers.idempotencyKey });
    const [row] = await this.db
      .select()
      .from(sandboxCustomers)
      .where(eq(sandboxCustomers.idempotencyKey, idempotencyKey));
    if (!row) throw new Error("sandbox customer vanished");
    return row.id;
  }

  /**
   * Deletes the customer and the cards charged for it, as Stripe deletes a customer's payment methods with
   * it; the intents stay in the sandbox's ledger without a card. Deleting it again changes nothing.
   */
  async deleteCustomer(customerId: string, idempotencyKey: string): Promise<void> {
    void idempotencyKey; // deleting is naturally idempotent here: a deleted customer stays deleted
    await this.db.transaction(async (tx) => {
      const cards = await tx
        .selectDistinct({ token: sandboxIntents.token })
        .from(sandboxIntents)
        .where(and(eq(sandboxIntents.customer, customerId), isNotNull(sandboxIntents.token)));
      if (cards.length > 0)
        await tx.delete(sandboxTokens).where(
          inArray(
            sandboxTokens.id,
            cards.map((c) => c.token),
          ),
        );
      await tx.delete(sandboxCustomers).where(eq(sandboxCustomers.id, customerId));
    });
  }

  async createPayment(input: CreatePayment): Promise<PaymentResult> {
    if (!Number.isInteger(input.amount) || input.amount <= 0)
      throw new ProviderError("invalid_request", "Amount must be a positive integer");
    const paramsHash = createHash("sha256")
      .update(JSON.stringify([input.amount, input.currency, input.source, Boolean(input.offSession)]))
      .digest("hex");
    const [existing] = await this.db
      .select()
      .from(sandboxIntents)
      .where(eq(sandboxIntents.idempotencyKey, input.idempotencyKey));
    if (existing) return this.replay(existing, paramsHash);
    const token = await this.token(input.source);
    // Stripe stores nothing for a request that fails validation, so no intent row here either.
    if (!token) throw new ProviderError("invalid_request", `No such token: '${input.source}'`);
    const behaviour = token.behaviour as SandboxBehaviour;
    let status: string;
    let failure: string | null = null;
    if (behaviour === "succeed") status = "succeeded";
    else if (behaviour === "authenticate" && !input.offSession) status = "requires_action";
    else {
      status = "failed";
      failure = behaviour;
    }
    const [row] = await this.db
      .insert(sandboxIntents)
      .values({
        id: id("pi"),
        idempotencyKey: input.idempotencyKey,
        paramsHash,
        amount: input.amount,
        currency: input.currency.toLowerCase(),
        token: token.id,
        customer: input.customer ?? null,
        status,
        failure,
      })
      .onConflictDoNothing({ target: sandboxIntents.idempotencyKey })
      .returning();
    if (row) return this.result(row);
    // A concurrent request with the same key won the insert: answer as its replay.
    const [winner] = await this.db
      .select()
      .from(sandboxIntents)
      .where(eq(sandboxIntents.idempotencyKey, input.idempotencyKey));
    if (!winner) throw new Error("sandbox intent vanished");
    return this.replay(winner, paramsHash);
  }

  private replay(existing: IntentRow, paramsHash: string) {
    if (existing.paramsHash !== paramsHash)
      throw new ProviderError(
        "idempotency_mismatch",
        "Keys for idempotent requests can only be used with the same parameters they were first used with.",
      );
    return this.result(existing);
  }

  async retrievePayment(intentId: string): Promise<PaymentResult> {
    const [row] = await this.db.select().from(sandboxIntents).where(eq(sandboxIntents.id, intentId));
    if (!row) throw new ProviderError("invalid_request", `No such payment_intent: '${intentId}'`);
    return this.result(row);
  }

  async refund(intentId: string, idempotencyKey: string): Promise<PaymentResult> {
    void idempotencyKey; // a refund of a whole intent is naturally idempotent here: refunded stays refunded
    const [row] = await this.db.select().from(sandboxIntents).where(eq(sandboxIntents.id, intentId));
    if (!row) throw new ProviderError("invalid_request", `No such payment_intent: '${intentId}'`);
    if (row.status === "refunded") return this.result(row);
    if (row.status !== "succeeded")
      throw new ProviderError("invalid_request", "Only a succeeded payment can be refunded");
    const [updated] = await this.db
      .update(sandboxIntents)
      .set({ status: "refunded", refunded: row.amount })
      .where(eq(sandboxIntents.id, intentId))
      .returning();
    return this.result(updated ?? row);
  }

  /** The customer's answer on the sandbox's 3-D Secure page. */
  async authenticate(intentId: string, succeed: boolean): Promise<PaymentResult | null> {
    const [row] = await this.db.select().from(sandboxIntents).where(eq(sandboxIntents.id, intentId));
    if (!row) return null;
    if (row.status !== "requires_action") return this.result(row);
    const [updated] = await this.db
      .update(sandboxIntents)
      .set(succeed ? { status: "succeeded" } : { status: "failed", failure: "authentication_failed" })
      .where(eq(sandboxIntents.id, intentId))
      .returning();
    return this.result(updated ?? row);
  }
}
