import { sql } from "drizzle-orm";
import type { JobRunner } from "../../lib/jobs.ts";
import type { UserDataSection } from "../../lib/registry.ts";
import { ARCHIVE_AREA } from "../account/archive.files.ts";
import { CUSTOMER_CLEANUP_JOB, queueCustomerCleanup } from "./billing.customers.ts";

/**
 * Billing data: subscriptions are shown in the archive but never imported (an edited archive must not
 * grant a plan); payments are the accounting record, exported and kept pseudonymised on deletion (GDPR
 * art. 17(3)(b)); they hold no card data. Archive requests are deleted with their files. The person's
 * customers at the payment provider are queued, in the deletion's transaction, for deletion there (with
 * the cards saved on them) by the `billing.customer-cleanup` job.
 */
export const billingDataSection = (jobs: Pick<JobRunner, "send" | "started">): UserDataSection => ({
  name: "billing",
  tables: {
    subscriptions: { policy: "exported", exportOmit: ["provider_customer", "provider_payment_method"] },
    billing_transactions: {
      policy: "pseudonymised",
      exportOmit: ["idempotency_key", "request_hash", "provider_source"],
    },
    data_archives: { policy: "internal" },
    billing_customers: { policy: "internal" },
  },
  deleteExtra: async (ctx) => {
    const r = (await ctx.tx.execute(
      sql`select file_name from data_archives where user_id = ${ctx.userId} and file_name is not null`,
    )) as unknown as { rows: { file_name: string }[] };
    for (const { file_name } of r.rows) await ctx.removeFile(ARCHIVE_AREA, file_name);
    // Before the subscriptions and customers go: they name the provider's customers.
    const queued = await queueCustomerCleanup(ctx.tx, ctx.userId);
    if (queued > 0 && jobs.started) await jobs.send(CUSTOMER_CLEANUP_JOB, {}, { tx: ctx.tx });
  },
});
