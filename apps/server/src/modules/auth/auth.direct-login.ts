import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { randomToken, sha256 } from "../../lib/crypto.ts";
import { consumeCode, findLiveCode, findUserById, insertOneTimeCode } from "./auth.repo.ts";

export const DIRECT_LOGIN_PURPOSE = "direct_login";
export const DIRECT_LOGIN_TTL_S = 60;

/** The pair is stored as one hash: neither half alone identifies or unlocks anything. */
function hashPair(token: string, sessionId: string): string {
  return sha256(`${token}.${sessionId}`);
}

/** Mints the one-time pair the companion app puts into `/user/login-direct` (RELIABILITY §0.3). */
export async function createDirectLoginCode(ctx: AppContext, userId: string, now = new Date()) {
  const token = randomToken(32);
  const sessionId = randomToken(32);
  await insertOneTimeCode(ctx.database.db, {
    codeHash: hashPair(token, sessionId),
    userId,
    purpose: DIRECT_LOGIN_PURPOSE,
    expiresAt: new Date(now.getTime() + DIRECT_LOGIN_TTL_S * 1000),
  });
  return { token, session_id: sessionId, expires_in_s: DIRECT_LOGIN_TTL_S };
}

export type DirectLoginOutcome =
  | { kind: "signed_in"; userId: string }
  | { kind: "needs_confirmation"; currentEmail: string };

/**
 * Exchanges a pair for a sign-in. When another account is signed in in this browser, the code is left
 * unused and the person is asked first (ASVS 7.6.2: no silent account switch).
 */
export async function exchangeDirectLoginCode(
  ctx: AppContext,
  input: {
    token: string;
    sessionId: string;
    confirmSwitch: boolean;
    currentUserId: string | null;
    now?: Date;
  },
): Promise<DirectLoginOutcome> {
  const { db } = ctx.database;
  const now = input.now ?? new Date();
  const codeHash = hashPair(input.token, input.sessionId);
  const invalid = () => new AppError("invalid_code", "This link is invalid or has expired");
  if (input.currentUserId && !input.confirmSwitch) {
    const live = await findLiveCode(db, codeHash, DIRECT_LOGIN_PURPOSE, now);
    if (!live) throw invalid();
    if (live.userId !== input.currentUserId) {
      const current = await findUserById(db, input.currentUserId);
      if (current) return { kind: "needs_confirmation", currentEmail: current.email };
    }
  }
  const used = await consumeCode(db, codeHash, DIRECT_LOGIN_PURPOSE, now);
  if (!used) throw invalid();
  return { kind: "signed_in", userId: used.userId };
}
