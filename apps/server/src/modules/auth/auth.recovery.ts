import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { sha256 } from "../../lib/crypto.ts";
import { type ServerLocale, translate } from "../../lib/i18n.ts";
import { hashPassword } from "../../lib/passwords.ts";
import { hitRateLimit } from "../../lib/rate-limit.ts";
import { deleteUserSessions } from "../../lib/sessions.ts";
import { consumeCode, findUserByEmail, insertOneTimeCode, updatePasswordHash } from "./auth.repo.ts";
import { assertPasswordAllowed, mintSecret } from "./auth.service.ts";

export const PASSWORD_RESET_PURPOSE = "password_reset";
export const PASSWORD_RESET_TTL_MS = 3_600_000;
/**
 * The spec answers "No user with this email", which reveals whether an address has an account. That is a
 * documented accepted risk (RELIABILITY L5, ASVS 6.3.8), bounded to this many lookups per hour per IP and
 * per address.
 */
export const RECOVERY_LIMIT_PER_HOUR = 20;
export const PASSWORD_RESET_PATH = "/auth/password-reset";

/** Sends a single-use reset link (valid one hour) to a known address; unknown addresses get user_not_found. */
export async function requestPasswordReset(
  ctx: AppContext,
  input: { email: string; ip: string; locale: ServerLocale; origin: string; now?: Date },
): Promise<{ userId: string }> {
  const now = input.now ?? new Date();
  for (const key of [`recover:ip:${input.ip}`, `recover:account:${sha256(input.email)}`]) {
    const state = await hitRateLimit(ctx.database.query, { key, windowMs: 3_600_000, now });
    if (state.count > RECOVERY_LIMIT_PER_HOUR)
      throw new AppError("rate_limited", "Too many attempts, try again later", {
        retryAfterS: state.retryAfterS,
      });
  }
  const user = await findUserByEmail(ctx.database.db, input.email);
  if (!user) throw new AppError("user_not_found", "No user with this email (check the address)");
  const code = mintSecret();
  await insertOneTimeCode(ctx.database.db, {
    codeHash: code.hash,
    userId: user.id,
    purpose: PASSWORD_RESET_PURPOSE,
    expiresAt: new Date(now.getTime() + PASSWORD_RESET_TTL_MS),
  });
  const link = `${input.origin}${PASSWORD_RESET_PATH}?token=${encodeURIComponent(code.value)}`;
  await ctx.services.mailer.send({
    to: user.email,
    userId: user.id,
    subject: translate(input.locale, "mail.password_reset.subject"),
    text: translate(input.locale, "mail.password_reset.body", { link }),
  });
  return { userId: user.id };
}

/** Uses a reset code once: sets the password and ends every session of the account. */
export async function resetPassword(
  ctx: AppContext,
  input: { token: string; password: string; now?: Date },
): Promise<{ userId: string }> {
  assertPasswordAllowed(input.password);
  const passwordHash = await hashPassword(input.password);
  const { db } = ctx.database;
  const used = await consumeCode(db, sha256(input.token), PASSWORD_RESET_PURPOSE, input.now ?? new Date());
  if (!used) throw new AppError("invalid_code", "This link is invalid or has expired");
  await updatePasswordHash(db, used.userId, passwordHash, true);
  await deleteUserSessions(db, used.userId);
  return { userId: used.userId };
}
