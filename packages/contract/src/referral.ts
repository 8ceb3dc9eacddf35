import { z } from "zod";
import { EmailSchema } from "./common.ts";

/** Referral paths (spec §2 /referral, §3 Referral, §4 Friend invite; the spec does not show these calls). */
export const REFERRAL_API = {
  /** The caller's referral link, friends invited and counted, and the reward state. */
  referral: "/dashboard_api/v1/referral/",
  /** Makes the caller's referral code if they have none yet (idempotent); answers the summary. */
  code: "/dashboard_api/v1/referral/code/",
  /** Whether an address has an account ("User not found, invite him"); rate limited. */
  lookup: "/dashboard_api/v1/referral/lookup/",
  /** Sends (or sends again) an invitation e-mail with the caller's link; rate limited. */
  invite: "/dashboard_api/v1/referral/invite/",
} as const;

/** The query parameter of the registration page that carries a referral code. */
export const REFERRAL_QUERY_PARAM = "ref";

/**
 * A referral code: 16 characters of the RFC 4648 base32 alphabet (80 random bits), so codes cannot be
 * guessed or walked. Registration accepts anything up to 64 characters and ignores an unknown code.
 */
export const REFERRAL_CODE_RE = /^[A-Z2-7]{16}$/;

export const ReferralInvitationSchema = z.object({
  email: z.string(),
  invited_at: z.string(),
  last_sent_at: z.string(),
  times_sent: z.number().int(),
  /** `joined`: the invited address registered (and counts as a friend). */
  status: z.enum(["invited", "joined"]),
});
export type ReferralInvitation = z.infer<typeof ReferralInvitationSchema>;

/** The operator's reward (a number of free PRO days per friend whose first payment is confirmed). */
export const ReferralRewardSchema = z.object({
  enabled: z.boolean(),
  days_per_friend: z.number().int(),
  /** At most this many rewarded friends per person; null: no limit. */
  max_friends: z.number().int().nullable(),
  /** Friends whose payment earned the caller a reward, and the days earned. */
  earned_friends: z.number().int(),
  earned_days: z.number().int(),
});

/** `code` and `link` are null until the code is made (POST `REFERRAL_API.code`): a GET never writes. */
export const ReferralSummarySchema = z.object({
  code: z.string().nullable(),
  link: z.string().nullable(),
  /** Invitations sent by e-mail. */
  invited: z.number().int(),
  /** Friends who registered through the link or an invitation. */
  joined: z.number().int(),
  /** Friends whose first payment is confirmed. */
  paid: z.number().int(),
  reward: ReferralRewardSchema,
  /** The latest invitations, newest first. */
  invitations: z.array(ReferralInvitationSchema),
});
export type ReferralSummary = z.infer<typeof ReferralSummarySchema>;

export const ReferralLookupRequestSchema = z.strictObject({ email: EmailSchema });
export const ReferralLookupResponseSchema = z.object({ found: z.boolean() });
export type ReferralLookupResponse = z.infer<typeof ReferralLookupResponseSchema>;

export const ReferralInviteRequestSchema = z.strictObject({ email: EmailSchema });
/**
 * Always `sent` for a valid address: whether it already has an account is told only by the lookup (so
 * the invite is no second way to enumerate accounts); an existing account is not mailed.
 */
export const ReferralInviteResponseSchema = z.object({
  status: z.literal("sent"),
  invitation: ReferralInvitationSchema,
});
export type ReferralInviteResponse = z.infer<typeof ReferralInviteResponseSchema>;
