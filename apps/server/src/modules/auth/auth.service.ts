import type { RegisterRequest, SigninRequest } from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { randomToken, sha256 } from "../../lib/crypto.ts";
import {
  hashPassword,
  isCommonPassword,
  needsRehash,
  verifyDummyPassword,
  verifyPassword,
} from "../../lib/passwords.ts";
import { hitRateLimit } from "../../lib/rate-limit.ts";
import { recordReferral } from "../referral/referral.service.ts";
import { findUserByEmail, findUserById, insertUser, updatePasswordHash } from "./auth.repo.ts";

const HOUR_MS = 3_600_000;
/** Per IP the budget is larger than per account: many people can share one address (NAT, offices). */
const IP_LIMIT_FACTOR = 10;

export function assertPasswordAllowed(password: string): void {
  if (isCommonPassword(password)) throw new AppError("weak_password", "This password is too common");
}

export async function registerUser(
  ctx: AppContext,
  input: RegisterRequest,
  defaults: { language: string },
): Promise<string> {
  assertPasswordAllowed(input.password);
  const passwordHash = await hashPassword(input.password);
  // The account and the referral credit (link or invitation) commit together.
  const userId = await ctx.database.db.transaction(async (tx) => {
    const id = await insertUser(tx as unknown as Db, {
      email: input.email,
      passwordHash,
      name: input.name ?? "",
      timezone: input.timezone ?? "UTC",
      language: input.language ?? defaults.language,
    });
    if (id)
      await recordReferral(tx as unknown as Db, {
        userId: id,
        email: input.email,
        code: input.referral_code,
      });
    return id;
  });
  if (!userId) throw new AppError("email_taken", "An account with this email already exists");
  return userId;
}

function throwRateLimited(retryAfterS: number): never {
  throw new AppError("rate_limited", "Too many attempts, try again later", { retryAfterS });
}

/**
 * Checks e-mail and password. Unknown accounts cost the same hashing time and get the same answer
 * (ASVS 6.3.8). Only failures count against the per-account and per-IP windows (ASVS 6.3.1), so the
 * owner is never locked out for longer than one window.
 */
export async function signIn(
  ctx: AppContext,
  input: SigninRequest,
  meta: { ip: string; now?: Date },
): Promise<{ userId: string } | { failedUserId: string | null }> {
  const { db } = ctx.database;
  const accountLimit = ctx.config.RATE_LIMIT_SIGNIN_PER_HOUR;
  const keys = [
    { key: `signin:account:${sha256(input.email)}`, limit: accountLimit },
    { key: `signin:ip:${meta.ip}`, limit: accountLimit * IP_LIMIT_FACTOR },
  ];
  for (const k of keys) {
    const state = await hitRateLimit(ctx.database.query, {
      key: k.key,
      windowMs: HOUR_MS,
      weight: 0,
      now: meta.now,
    });
    if (state.count >= k.limit) throwRateLimited(state.retryAfterS);
  }
  const user = await findUserByEmail(db, input.email);
  let ok = false;
  if (user?.passwordHash) ok = await verifyPassword(user.passwordHash, input.password);
  else await verifyDummyPassword(input.password);
  if (user?.passwordHash && ok) {
    if (needsRehash(user.passwordHash))
      await updatePasswordHash(db, user.id, await hashPassword(input.password), false);
    return { userId: user.id };
  }
  for (const k of keys)
    await hitRateLimit(ctx.database.query, { key: k.key, windowMs: HOUR_MS, now: meta.now });
  return { failedUserId: user?.id ?? null };
}

/** Sets a new password after checking the current one; the caller ends the other sessions. */
export async function changePassword(
  ctx: AppContext,
  userId: string,
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  const user = await findUserById(ctx.database.db, userId);
  if (!user) throw new AppError("not_authenticated", "Authentication required");
  const ok = user.passwordHash ? await verifyPassword(user.passwordHash, input.currentPassword) : false;
  if (!ok) throw new AppError("wrong_password", "The current password is incorrect");
  assertPasswordAllowed(input.newPassword);
  await updatePasswordHash(ctx.database.db, userId, await hashPassword(input.newPassword), true);
}

/** A new random value and the hash stored for it (only the hash reaches the database). */
export function mintSecret(): { value: string; hash: string } {
  const value = randomToken(32);
  return { value, hash: sha256(value) };
}
