import type { Db } from "../../db/client.ts";
import type { AppContext } from "../../lib/context.ts";
import type { DomainEvent, Subscriber } from "../../lib/events.ts";
import { grantFreeDays } from "../billing/billing.credit.ts";
import { PAYMENT_SUCCEEDED_EVENT, type PaymentSucceededPayload } from "../billing/billing.service.ts";
import { countRewarded, lockReferralOf, lockReferrer, markRewarded } from "./referral.repo.ts";
import { getRewardRule } from "./referral.service.ts";

/**
 * The referral reward: when a referred friend's first payment is confirmed (by the pay route, a webhook or
 * the reconciliation job: billing announces each confirmed payment once), the referrer gets the
 * operator's free days. Exactly once per friend (RELIABILITY P2): the event is delivered once per
 * subscriber, and the friend's row is marked rewarded in the same transaction, only if it was not yet.
 */
export async function applyReferralReward(
  ctx: Pick<AppContext, "config">,
  tx: Db,
  event: Pick<DomainEvent, "userId" | "payload">,
  now = new Date(),
): Promise<"rewarded" | "over_limit" | "none"> {
  const payment = event.payload as Partial<PaymentSucceededPayload>;
  if (!event.userId || typeof payment.amount !== "number" || payment.amount <= 0) return "none";
  if (typeof payment.transactionId !== "string") return "none";
  const referral = await lockReferralOf(tx, event.userId);
  if (!referral || referral.rewardedAt) return "none";
  const rule = await getRewardRule(tx, ctx.config);
  await lockReferrer(tx, referral.referrerId);
  const overLimit =
    rule.maxFriends !== null && (await countRewarded(tx, referral.referrerId)) >= rule.maxFriends;
  // The first payment is marked even when it earns nothing (rewards off, limit reached): only it counts.
  const days = overLimit ? 0 : Math.max(0, rule.days);
  const marked = await markRewarded(tx, {
    friendId: event.userId,
    days,
    transactionId: payment.transactionId,
    now,
  });
  if (!marked) return "none";
  if (overLimit) return "over_limit";
  if (days === 0) return "none";
  await grantFreeDays(tx, { userId: referral.referrerId, days, now });
  return "rewarded";
}

export function referralRewardSubscriber(ctx: Pick<AppContext, "config">): Subscriber {
  return {
    name: "referral.reward",
    types: [PAYMENT_SUCCEEDED_EVENT],
    handle: async (tx, events) => {
      for (const event of events) await applyReferralReward(ctx, tx, event);
    },
  };
}
