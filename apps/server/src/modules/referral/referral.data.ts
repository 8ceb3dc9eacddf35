import { sql } from "drizzle-orm";
import type { UserDataSection } from "../../lib/registry.ts";

/**
 * Referrals: the person's code, the invitations they sent and the row saying who referred them are
 * exported, never imported (a code is this installation's own, and an edited archive must not credit a
 * referrer or claim a reward). On deletion the person's rows go, rows naming them as referrer go with the
 * account row (foreign key), and invitations other people sent to their address are removed as well, so
 * the address leaves no trace (RELIABILITY X5).
 */
export const referralDataSection: UserDataSection = {
  name: "referral",
  tables: {
    referral_codes: { policy: "exported" },
    referral_invitations: { policy: "exported" },
    referrals: { policy: "exported", exportOmit: ["referrer_id", "reward_transaction_id"] },
  },
  deleteExtra: async (ctx) => {
    await ctx.tx.execute(
      sql`delete from referral_invitations where email = (select email from users where id = ${ctx.userId})`,
    );
  },
};
