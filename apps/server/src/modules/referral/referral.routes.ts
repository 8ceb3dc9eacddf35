import {
  REFERRAL_API,
  ReferralInviteRequestSchema,
  ReferralInviteResponseSchema,
  ReferralLookupRequestSchema,
  ReferralLookupResponseSchema,
  ReferralSummarySchema,
} from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { writeAudit } from "../../lib/audit.ts";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { pickLocale } from "../../lib/i18n.ts";
import { publicOrigin } from "../auth/auth.cookies.ts";
import { referralDataSection } from "./referral.data.ts";
import { referralRewardSubscriber } from "./referral.reward.ts";
import { createReferralCode, getReferralSummary, inviteFriend, lookupFriend } from "./referral.service.ts";

/** Referrals (spec §2 /referral, §3 Referral, §4 Friend invite): the link, invitations and the reward. */
export function registerReferralRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(referralDataSection);
  ctx.services.events.subscribe(referralRewardSubscriber(ctx));
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    REFERRAL_API.referral,
    { config: { access: "user" }, schema: { response: { 200: ReferralSummarySchema } } },
    async (request) => getReferralSummary(ctx, requireUserId(request), publicOrigin(ctx, request)),
  );

  r.post(
    REFERRAL_API.code,
    { config: { access: "user" }, schema: { response: { 200: ReferralSummarySchema } } },
    async (request) => createReferralCode(ctx, requireUserId(request), publicOrigin(ctx, request)),
  );

  r.post(
    REFERRAL_API.lookup,
    {
      config: { access: "user" },
      schema: { body: ReferralLookupRequestSchema, response: { 200: ReferralLookupResponseSchema } },
    },
    async (request) =>
      lookupFriend(ctx, { userId: requireUserId(request), ip: request.ip, email: request.body.email }),
  );

  r.post(
    REFERRAL_API.invite,
    {
      config: { access: "user" },
      schema: { body: ReferralInviteRequestSchema, response: { 200: ReferralInviteResponseSchema } },
    },
    async (request) => {
      const userId = requireUserId(request);
      const result = await inviteFriend(ctx, {
        userId,
        ip: request.ip,
        email: request.body.email,
        locale: pickLocale(request.headers["accept-language"]),
        origin: publicOrigin(ctx, request),
      });
      await writeAudit(ctx.database.db, { action: "referral.invited", userId, request });
      return result;
    },
  );
}
