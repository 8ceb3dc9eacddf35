import { sql } from "drizzle-orm";
import type { UserDataSection } from "../../lib/registry.ts";
import { deleteArchiveFile } from "../account/archive.files.ts";

/**
 * Billing data: subscriptions are shown in the archive but never imported (an edited archive must not
 * grant a plan); payments are the accounting record, exported and kept pseudonymised on deletion (GDPR
 * art. 17(3)(b)); they hold no card data. Archive requests are deleted with their files.
 */
export const billingDataSection: UserDataSection = {
  name: "billing",
  tables: {
    subscriptions: { policy: "exported", exportOmit: ["provider_customer", "provider_payment_method"] },
    billing_transactions: {
      policy: "pseudonymised",
      exportOmit: ["idempotency_key", "request_hash", "provider_source"],
    },
    data_archives: { policy: "internal" },
  },
  deleteExtra: async (ctx) => {
    const r = (await ctx.tx.execute(
      sql`select file_name from data_archives where user_id = ${ctx.userId} and file_name is not null`,
    )) as unknown as { rows: { file_name: string }[] };
    for (const { file_name } of r.rows) ctx.afterCommit(() => deleteArchiveFile(ctx.filesDir, file_name));
  },
};
