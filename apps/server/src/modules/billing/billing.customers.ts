import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { billingCustomers, providerCleanups, subscriptions } from "../../db/schema.ts";
import type { BillingDeps } from "./billing.service.ts";

/** The job that deletes deleted accounts' customers at the provider; also every 15 minutes. */
export const CUSTOMER_CLEANUP_JOB = "billing.customer-cleanup";
const BATCH = 100;

/**
 * The provider's customer of a person, made once and kept (Stripe forgets an idempotency key after a day,
 * so the key alone would make a new customer on a later payment). Providers without customers: undefined.
 */
export async function providerCustomerOf(deps: BillingDeps, userId: string): Promise<string | undefined> {
  const provider = deps.provider;
  if (!provider.customerFor) return undefined;
  const db = deps.database.db;
  const where = and(eq(billingCustomers.userId, userId), eq(billingCustomers.provider, provider.name));
  const [known] = await db.select().from(billingCustomers).where(where);
  if (known) return known.customerId;
  const customerId = await provider.customerFor(userId);
  await db
    .insert(billingCustomers)
    .values({ userId, provider: provider.name, customerId })
    .onConflictDoNothing();
  const [saved] = await db.select().from(billingCustomers).where(where);
  return saved?.customerId ?? customerId;
}

/**
 * In the account deletion's transaction: every provider customer of the person is queued for deletion at
 * the provider (their saved cards go with it). The queue row names only the provider's opaque id.
 */
export async function queueCustomerCleanup(tx: Db, userId: string): Promise<number> {
  const stored = await tx
    .select({ provider: billingCustomers.provider, customerId: billingCustomers.customerId })
    .from(billingCustomers)
    .where(eq(billingCustomers.userId, userId));
  const fromSubscriptions = await tx
    .selectDistinct({ provider: subscriptions.provider, customerId: subscriptions.providerCustomer })
    .from(subscriptions)
    .where(and(eq(subscriptions.userId, userId), isNotNull(subscriptions.providerCustomer)));
  const all = new Map<string, { provider: string; customerId: string }>();
  for (const c of [...stored, ...fromSubscriptions])
    if (c.customerId)
      all.set(`${c.provider}/${c.customerId}`, { provider: c.provider, customerId: c.customerId });
  if (all.size === 0) return 0;
  await tx
    .insert(providerCleanups)
    .values([...all.values()])
    .onConflictDoNothing();
  return all.size;
}

/** The idempotency key of a customer's deletion: the same on every retry. */
export function customerCleanupKey(customerId: string): string {
  return `tonus-delete-customer-${customerId}`;
}

/**
 * Deletes the queued customers at the provider in charge (rows of another provider wait for it) and forgets
 * each one deleted; a failure stays queued with its error. Answers how many failed.
 */
export async function runCustomerCleanups(deps: BillingDeps): Promise<{ deleted: number; failed: number }> {
  const db = deps.database.db;
  const provider = deps.provider;
  if (!provider.deleteCustomer) return { deleted: 0, failed: 0 };
  const rows = await db
    .select()
    .from(providerCleanups)
    .where(eq(providerCleanups.provider, provider.name))
    .orderBy(asc(providerCleanups.id))
    .limit(BATCH);
  let deleted = 0;
  let failed = 0;
  for (const row of rows) {
    try {
      await provider.deleteCustomer(row.customerId, customerCleanupKey(row.customerId));
      await db.delete(providerCleanups).where(eq(providerCleanups.id, row.id));
      deleted++;
    } catch (error) {
      failed++;
      deps.log.warn(
        { err: error, cleanupId: row.id },
        "a deleted account's customer is not deleted at the provider yet",
      );
      const message = error instanceof Error ? error.message : String(error);
      await db
        .update(providerCleanups)
        .set({ attempts: sql`${providerCleanups.attempts} + 1`, lastError: message.slice(0, 300) })
        .where(eq(providerCleanups.id, row.id));
    }
  }
  return { deleted, failed };
}
