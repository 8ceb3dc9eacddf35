import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { billingProducts, subscriptions, users } from "../../db/schema.ts";
import { CREDIT_PROVIDER, currencyFor, currentSubscription } from "./billing.service.ts";

/** The plan a free-days credit is recorded on when the person has no subscription running. */
export const CREDIT_PLAN_SLUG = "monthly-subscription";

export type CreditResult =
  | { kind: "extended"; until: Date }
  | { kind: "started"; until: Date }
  /** A lifetime purchase already entitles for ever: nothing to add. */
  | { kind: "lifetime" };

/**
 * Gives `userId` `days` of PRO inside the caller's transaction: the running subscription's paid period
 * is extended (a renewing one is charged that much later), otherwise a non-renewing subscription starts
 * now, on the monthly plan in the person's currency, marked as a credit. Nothing is charged.
 */
export async function grantFreeDays(
  tx: Db,
  input: { userId: string; days: number; now?: Date },
): Promise<CreditResult> {
  const now = input.now ?? new Date();
  const ms = input.days * 86_400_000;
  const current = await currentSubscription(tx, input.userId, now);
  if (current) {
    if (current.s.currentPeriodEnd === null) return { kind: "lifetime" };
    const [row] = await tx
      .update(subscriptions)
      .set({
        currentPeriodEnd: sql`${subscriptions.currentPeriodEnd} + make_interval(days => ${input.days})`,
      })
      .where(eq(subscriptions.id, current.s.id))
      .returning({ until: subscriptions.currentPeriodEnd });
    return { kind: "extended", until: row?.until ?? new Date(current.s.currentPeriodEnd.getTime() + ms) };
  }
  const [person] = await tx
    .select({ language: users.newsletterLanguage })
    .from(users)
    .where(eq(users.id, input.userId));
  const currency = currencyFor(person?.language === "ru" ? "ru" : "en");
  const products = await tx
    .select({ id: billingProducts.id, slug: billingProducts.slug, currency: billingProducts.currency })
    .from(billingProducts)
    .where(eq(billingProducts.plan, "monthly"));
  // The operator may have renamed the monthly plan: any monthly product in the currency will do.
  const product =
    products.find((p) => p.slug === CREDIT_PLAN_SLUG && p.currency === currency) ??
    products.find((p) => p.currency === currency) ??
    products[0];
  if (!product) throw new Error("no monthly product to record a free-days credit on");
  const until = new Date(now.getTime() + ms);
  await tx.insert(subscriptions).values({
    userId: input.userId,
    productId: product.id,
    provider: CREDIT_PROVIDER,
    status: "active",
    renews: false,
    currentPeriodStart: now,
    currentPeriodEnd: until,
  });
  return { kind: "started", until };
}
