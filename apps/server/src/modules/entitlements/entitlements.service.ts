import type { Entitlements } from "@tonus/contract";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema.ts";
import type { AppContext } from "../../lib/context.ts";
import { currentSubscription } from "../billing/billing.service.ts";

/**
 * What a user is entitled to. This is the ONE function every PRO gate calls.
 *
 * A PRO-locked answer is a 200 with the PRO value withheld (null or absent), never a 403: the web app
 * treats 403 as "signed out" (RELIABILITY A5).
 *
 * - `BILLING_MODE=off` (self-hosting without billing): everyone is a customer on the "personal" plan.
 * - `sandbox` / `stripe`: a customer on its plan while a subscription entitles (active, or cancelled with the
 *   paid period still running); else a customer when an operator marked the account
 *   (`is_customer_override`); otherwise not a customer and upgradable.
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
  const current = await currentSubscription(ctx.database.db, userId);
  if (current) return { is_customer: true, plan: current.p.plan, upgradable: false };
  if (row.override) return { is_customer: true, plan: null, upgradable: false };
  return { is_customer: false, plan: null, upgradable: true };
}
