import { randomBytes } from "node:crypto";
import {
  REFERRAL_CODE_RE,
  REFERRAL_QUERY_PARAM,
  type ReferralInvitation,
  type ReferralInviteResponse,
  type ReferralLookupResponse,
  type ReferralSummary,
} from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import type { Config } from "../../lib/config.ts";
import type { AppContext } from "../../lib/context.ts";
import { type ServerLocale, translate } from "../../lib/i18n.ts";
import { hitRateLimit } from "../../lib/rate-limit.ts";
import {
  countInvitations,
  countReferrals,
  findCodeOf,
  findFirstInviter,
  findInvitation,
  findReferrerByCode,
  findRewardSettings,
  findUserForMail,
  type InvitationRow,
  insertCode,
  insertInvitation,
  insertReferral,
  isRegisteredEmail,
  listInvitations,
  markInvitationResent,
} from "./referral.repo.ts";

/**
 * "User not found, invite him" tells whether an address has an account: a documented accepted risk
 * (RELIABILITY L5, ASVS 6.3.8) bounded to this many look-ups per hour per account and per IP. Invitations
 * are bounded the same way (they send e-mail to strangers) and never tell whether an address is known.
 */
export const REFERRAL_LIMIT_PER_HOUR = 20;
/** One address may be invited again after a day, three times in all: no one is mailed over and over. */
export const INVITATION_RESEND_AFTER_MS = 24 * 3_600_000;
export const INVITATION_MAX_SENDS = 3;
const INVITATIONS_SHOWN = 50;
const HOUR_MS = 3_600_000;
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

type Ctx = Pick<AppContext, "config" | "database" | "services">;

/** 16 base32 characters from 80 random bits (RFC 4648 alphabet, no padding). */
export function newReferralCode(): string {
  const bytes = randomBytes(10);
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** The person's referral code, made the first time it is asked for. */
export async function ensureReferralCode(db: Db, userId: string): Promise<string> {
  const existing = await findCodeOf(db, userId);
  if (existing) return existing;
  const code = await insertCode(db, userId, newReferralCode());
  if (!code) throw new Error("referral code not stored");
  return code;
}

/** The link a friend registers through: the registration page with the code. */
export function referralLink(origin: string, code: string): string {
  return `${origin}/auth/registration/?${REFERRAL_QUERY_PARAM}=${code}`;
}

export type RewardRule = { days: number; maxFriends: number | null; source: "environment" | "cli" };

/** The reward in force: the operator's CLI setting if made, else REFERRAL_REWARD_DAYS / _MAX. */
export async function getRewardRule(
  db: Db,
  config: Pick<Config, "REFERRAL_REWARD_DAYS" | "REFERRAL_REWARD_MAX">,
): Promise<RewardRule> {
  const saved = await findRewardSettings(db);
  if (saved) return { days: saved.rewardDays, maxFriends: saved.maxRewards, source: "cli" };
  const max = config.REFERRAL_REWARD_MAX;
  return { days: config.REFERRAL_REWARD_DAYS, maxFriends: max === 0 ? null : max, source: "environment" };
}

function invitationOut(row: InvitationRow): ReferralInvitation {
  return {
    email: row.email,
    invited_at: row.createdAt.toISOString(),
    last_sent_at: row.lastSentAt.toISOString(),
    times_sent: row.sendCount,
    status: row.joined ? "joined" : "invited",
  };
}

/**
 * Spec §3 Referral: the link, friends invited and counted, and what they earned the caller. Reads only
 * (RELIABILITY S3): a person without a code yet gets null until `createReferralCode`.
 */
export async function getReferralSummary(ctx: Ctx, userId: string, origin: string): Promise<ReferralSummary> {
  const db = ctx.database.db;
  const code = await findCodeOf(db, userId);
  const rule = await getRewardRule(db, ctx.config);
  const counts = await countReferrals(db, userId);
  const invitations = await listInvitations(db, userId, INVITATIONS_SHOWN);
  return {
    code,
    link: code ? referralLink(origin, code) : null,
    invited: await countInvitations(db, userId),
    joined: counts.joined,
    paid: counts.paid,
    reward: {
      enabled: ctx.config.BILLING_MODE !== "off" && rule.days > 0,
      days_per_friend: rule.days,
      max_friends: rule.maxFriends,
      earned_friends: counts.rewarded,
      earned_days: counts.earnedDays,
    },
    invitations: invitations.map(invitationOut),
  };
}

/** Makes the caller's code unless they have one, and answers the summary with it. */
export async function createReferralCode(ctx: Ctx, userId: string, origin: string): Promise<ReferralSummary> {
  await ensureReferralCode(ctx.database.db, userId);
  return getReferralSummary(ctx, userId, origin);
}

async function checkLimit(ctx: Ctx, kind: "lookup" | "invite", userId: string, ip: string) {
  for (const key of [`referral:${kind}:account:${userId}`, `referral:${kind}:ip:${ip}`]) {
    const state = await hitRateLimit(ctx.database.query, { key, windowMs: HOUR_MS });
    if (state.count > REFERRAL_LIMIT_PER_HOUR)
      throw new AppError("rate_limited", "Too many attempts, try again later", {
        retryAfterS: state.retryAfterS,
      });
  }
}

/** Spec §4 Friend invite: does this address have an account? (No: "User not found, invite him".) */
export async function lookupFriend(
  ctx: Ctx,
  input: { userId: string; ip: string; email: string },
): Promise<ReferralLookupResponse> {
  await checkLimit(ctx, "lookup", input.userId, input.ip);
  return { found: await isRegisteredEmail(ctx.database.db, input.email) };
}

/** Control and format characters out, one line, at most 60 characters: a name shown to a stranger. */
function inviterName(name: string): string {
  return name
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 60);
}

/**
 * Sends the caller's invitation to `email` in the caller's language and records it. An address that has an
 * account is recorded but not mailed, and the answer is the same (the look-up is the one place that
 * tells). The mail goes before the record, so a mail failure records nothing and the person may retry.
 */
export async function inviteFriend(
  ctx: Ctx,
  input: { userId: string; ip: string; email: string; locale: ServerLocale; origin: string; now?: Date },
): Promise<ReferralInviteResponse> {
  await checkLimit(ctx, "invite", input.userId, input.ip);
  const db = ctx.database.db;
  const now = input.now ?? new Date();
  const previous = await findInvitation(db, input.userId, input.email);
  if (previous && previous.sendCount >= INVITATION_MAX_SENDS)
    throw new AppError("conflict", "This address has been invited three times already");
  if (previous && now.getTime() - previous.lastSentAt.getTime() < INVITATION_RESEND_AFTER_MS)
    throw new AppError("conflict", "This address was invited less than a day ago");

  const code = await ensureReferralCode(db, input.userId);
  if (!(await isRegisteredEmail(db, input.email))) {
    const inviter = await findUserForMail(db, input.userId);
    const name = inviterName(inviter?.name ?? "") || translate(input.locale, "mail.invitation.someone");
    try {
      await ctx.services.mailer.send({
        to: input.email,
        // The inviter's mail: their deletion takes the friend's address out of the outbox too (X5).
        userId: input.userId,
        subject: translate(input.locale, "mail.invitation.subject", { inviter: name }),
        text: translate(input.locale, "mail.invitation.body", {
          inviter: name,
          link: referralLink(input.origin, code),
        }),
      });
    } catch {
      throw new AppError("unavailable", "The invitation could not be sent, try again later");
    }
  }
  const row = previous
    ? await markInvitationResent(db, {
        id: previous.id,
        sendCount: previous.sendCount,
        locale: input.locale,
        now,
      })
    : await insertInvitation(db, { userId: input.userId, email: input.email, locale: input.locale });
  // Another request for the same address won the race; that one's mail went too.
  if (!row) throw new AppError("conflict", "This address was invited less than a day ago");
  return { status: "sent", invitation: invitationOut({ ...row, joined: false }) };
}

/**
 * Registration: credits the new account to the owner of the referral code it came with, or else to the
 * first person who invited its address. Runs in the registration's transaction; an unknown code is
 * ignored, and nobody is their own referrer.
 */
export async function recordReferral(
  tx: Db,
  input: { userId: string; email: string; code?: string | undefined },
): Promise<void> {
  const code = input.code?.trim().toUpperCase() ?? "";
  const byLink = REFERRAL_CODE_RE.test(code) ? await findReferrerByCode(tx, code) : null;
  const referrerId = byLink ?? (await findFirstInviter(tx, input.email));
  if (!referrerId || referrerId === input.userId) return;
  await insertReferral(tx, { userId: input.userId, referrerId, via: byLink ? "link" : "invitation" });
}
