import type { Entitlements } from "@tonus/contract";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema.ts";
import type { AppContext } from "../../lib/context.ts";

/**
 * What a user is entitled to. This is the ONE function every PRO gate calls.
 *
 * A PRO-locked answer is a 200 with the PRO value withheld (null or absent), never a 403: the web app
 * treats 403 as "signed out" (RELIABILITY A5).
 *
 * - `BILLING_MODE=off` (self-hosting without billing): everyone is a customer on the "personal" plan.
 * - `sandbox` / `stripe`: a customer when an operator marked the account (`is_customer_override`) (and, once billing
 *   lands, with an active subscription); otherwise not a customer and upgradable.
 */
export async function getEntitlements(
  ctx: Pick<AppContext, "config" | "database">,
  userId: string,
): Promise<Entitlements> {
  if (ctx.config.BILLING_MODE === "off") return { is_customer: true, plan: "personal", upgradable: false };
  const [row] = await ctx.database.db
    .select({ override: users.isCustomerOverride })
    .from(users)
    .where(eq(users.id, userId));
  if (!row) return { is_customer: false, plan: null, upgradable: false };
  // Billing seam: when subscriptions exist, an active paid subscription makes the user a customer on
  // its plan; that lookup goes here, before the operator override.
  if (row.override) return { is_customer: true, plan: null, upgradable: false };
  return { is_customer: false, plan: null, upgradable: true };
}
