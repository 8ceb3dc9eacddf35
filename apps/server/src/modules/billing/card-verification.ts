import { CARD_VERIFICATION_AMOUNT, type CardVerifyResponse } from "@tonus/contract";
import { and, eq, inArray, lte } from "drizzle-orm";
import { billingTransactions } from "../../db/schema.ts";
import { AppError } from "../../lib/app-error.ts";
import type { ServerLocale } from "../../lib/i18n.ts";
import { type BillingDeps, currencyFor } from "./billing.service.ts";
import { type PaymentResult, ProviderError } from "./provider.ts";

type TransactionRow = typeof billingTransactions.$inferSelect;

/**
 * Card verification (spec §4, §9): a $1 (50 RUB) charge, refunded as soon as the bank confirms it. Each
 * step is recorded on a `verification` transaction (pending → succeeded → refunded) and every provider call
 * carries a key derived from it, so a crash between charge and refund ends with exactly one charge and one
 * refund: the reconciliation job refunds a verification left succeeded (RELIABILITY P4).
 */
export async function verifyCard(
  deps: BillingDeps,
  userId: string,
  body: { stripeToken?: string; stripe3dToken?: string },
  locale: ServerLocale,
): Promise<CardVerifyResponse> {
  const db = deps.database.db;
  if (body.stripe3dToken) {
    const [tx] = await db
      .select()
      .from(billingTransactions)
      .where(
        and(
          eq(billingTransactions.userId, userId),
          eq(billingTransactions.kind, "verification"),
          eq(billingTransactions.providerIntent, body.stripe3dToken),
        ),
      );
    if (!tx) throw new AppError("validation_failed", "Unknown verification");
    return settle(deps, tx, await call(() => deps.provider.retrievePayment(body.stripe3dToken as string)));
  }
  const currency = currencyFor(locale);
  const [tx] = await db
    .insert(billingTransactions)
    .values({
      userId,
      productId: 0,
      kind: "verification",
      amount: CARD_VERIFICATION_AMOUNT[currency],
      currency,
      description: "card-verification",
      status: "pending",
      provider: deps.provider.name,
      idempotencyKey: `verification-${crypto.randomUUID()}`,
      requestHash: "verification",
      providerSource: body.stripeToken ?? null,
    })
    .returning();
  if (!tx) throw new Error("verification not recorded");
  const result = await call(() =>
    deps.provider.createPayment({
      amount: tx.amount,
      currency,
      source: body.stripeToken as string,
      idempotencyKey: `tonus-verify-${tx.id}`,
      description: "Tonus card verification",
      reference: tx.id,
    }),
  );
  return settle(deps, tx, result);
}

async function call(work: () => Promise<PaymentResult>): Promise<PaymentResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProviderError) throw new AppError("payment_failed", error.message);
    throw error;
  }
}

async function settle(
  deps: BillingDeps,
  tx: TransactionRow,
  result: PaymentResult,
): Promise<CardVerifyResponse> {
  const db = deps.database.db;
  const set = (values: Partial<TransactionRow>) =>
    db
      .update(billingTransactions)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(billingTransactions.id, tx.id));
  if (result.status === "failed") {
    await set({
      status: "failed",
      providerIntent: result.intentId || null,
      failureMessage: result.failureMessage ?? null,
    });
    throw new AppError("payment_failed", result.failureMessage ?? "Your card was declined.");
  }
  if (result.status === "requires_action" || result.status === "processing") {
    await set({ status: "requires_action", providerIntent: result.intentId });
    return {
      status: "requires_action",
      payment_intent: result.intentId,
      action_url: result.actionUrl ?? null,
      client_secret: result.clientSecret ?? null,
      card: null,
    };
  }
  if (tx.status !== "refunded") {
    await set({ status: "succeeded", providerIntent: result.intentId });
    await deps.provider.refund(result.intentId, `tonus-verify-refund-${tx.id}`);
    await set({ status: "refunded" });
  }
  return {
    status: "verified",
    payment_intent: result.intentId,
    action_url: null,
    client_secret: null,
    card: result.card ?? null,
  };
}

/** Reconciliation: a verification charged but not yet refunded (a crash in between) is refunded now. */
export async function refundStrandedVerifications(deps: BillingDeps, now = new Date()): Promise<number> {
  const db = deps.database.db;
  const stranded = await db
    .select()
    .from(billingTransactions)
    .where(
      and(
        eq(billingTransactions.kind, "verification"),
        inArray(billingTransactions.status, ["succeeded", "pending"]),
        eq(billingTransactions.provider, deps.provider.name),
        lte(billingTransactions.updatedAt, new Date(now.getTime() - 60_000)),
      ),
    );
  let refunded = 0;
  for (const tx of stranded) {
    try {
      // A pending one may or may not have been charged: the same key answers the same intent, or charges now.
      const result =
        tx.status === "succeeded" && tx.providerIntent
          ? await deps.provider.retrievePayment(tx.providerIntent)
          : await deps.provider.createPayment({
              amount: tx.amount,
              currency: tx.currency,
              source: tx.providerSource ?? "",
              idempotencyKey: `tonus-verify-${tx.id}`,
              description: "Tonus card verification",
              reference: tx.id,
            });
      if (result.status === "succeeded" || result.status === "refunded") {
        await deps.provider.refund(result.intentId, `tonus-verify-refund-${tx.id}`);
        await db
          .update(billingTransactions)
          .set({ status: "refunded", providerIntent: result.intentId, updatedAt: now })
          .where(eq(billingTransactions.id, tx.id));
        refunded++;
      } else if (result.status === "failed") {
        await db
          .update(billingTransactions)
          .set({ status: "failed", updatedAt: now })
          .where(eq(billingTransactions.id, tx.id));
      }
    } catch (error) {
      deps.log.warn({ err: error, transactionId: tx.id }, "stranded card verification not settled yet");
    }
  }
  return refunded;
}
