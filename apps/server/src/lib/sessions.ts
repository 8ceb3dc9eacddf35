import { and, eq, isNull, lt, ne, or } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { apiTokens, sessions, shareLinks, users } from "../db/schema.ts";
import { randomToken, sha256 } from "./crypto.ts";

const DAY_MS = 86_400_000;
const TOUCH_EVERY_MS = 3_600_000;

export type SessionPolicy = { idleDays: number; maxDays: number };

export type SessionUser = { userId: string; role: string; sessionCreatedAt: Date };

/** Creates a fresh server-side session for `userId` and returns the cookie value (never stored). */
export async function createSession(
  db: Db,
  userId: string,
  policy: SessionPolicy,
  meta: { ip?: string; userAgent?: string },
  now = new Date(),
): Promise<string> {
  const id = randomToken(32);
  await db.insert(sessions).values({
    idHash: sha256(id),
    userId,
    csrfSecret: randomToken(16),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + policy.maxDays * DAY_MS),
    ip: meta.ip ?? null,
    userAgent: meta.userAgent?.slice(0, 300) ?? null,
  });
  return id;
}

/**
 * The signed-in user of a session cookie, or null when it is unknown, past its absolute lifetime or
 * idle for longer than allowed (ASVS 7.3.1/7.3.2). Touches `last_seen_at` at most hourly.
 */
export async function findSessionUser(
  db: Db,
  sessionId: string,
  policy: SessionPolicy,
  now = new Date(),
): Promise<SessionUser | null> {
  const idHash = sha256(sessionId);
  const rows = await db
    .select({
      userId: sessions.userId,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      createdAt: sessions.createdAt,
      role: users.role,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.idHash, idHash))
    .limit(1);
  const row = rows[0];
  if (!row?.userId) return null;
  const idleLimit = row.lastSeenAt.getTime() + policy.idleDays * DAY_MS;
  if (row.expiresAt.getTime() <= now.getTime() || idleLimit <= now.getTime()) {
    await db.delete(sessions).where(eq(sessions.idHash, idHash));
    return null;
  }
  if (now.getTime() - row.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.idHash, idHash));
  }
  return { userId: row.userId, role: row.role, sessionCreatedAt: row.createdAt };
}

export async function deleteSession(db: Db, sessionId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.idHash, sha256(sessionId)));
}

/** Ends every session of a user, or every one but `keepSessionId`. */
export async function deleteUserSessions(db: Db, userId: string, keepSessionId?: string): Promise<void> {
  const cond = keepSessionId
    ? and(eq(sessions.userId, userId), ne(sessions.idHash, sha256(keepSessionId)))
    : eq(sessions.userId, userId);
  await db.delete(sessions).where(cond);
}

export async function deleteExpiredSessions(db: Db, now = new Date()): Promise<void> {
  await db.delete(sessions).where(or(lt(sessions.expiresAt, now), isNull(sessions.userId)));
}

/** The user behind an `Authorization: Token tok_…` key, or null. */
export async function findApiTokenUser(
  db: Db,
  key: string,
): Promise<{ userId: string; role: string } | null> {
  const rows = await db
    .select({
      id: apiTokens.id,
      userId: apiTokens.userId,
      role: users.role,
      lastUsedAt: apiTokens.lastUsedAt,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(and(eq(apiTokens.keyHash, sha256(key)), isNull(apiTokens.revokedAt)))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
    await db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.id));
  }
  return { userId: row.userId, role: row.role };
}

export type ShareLinkGrant = { linkId: string; ownerId: string; kind: string; targetId: string };

/**
 * The live share link behind an `Authorization: Token tsh_…` key, or null for an unknown or revoked one.
 * Marks the link opened (at most once a minute, so a page's several requests cost one write).
 */
export async function findShareLink(db: Db, token: string, now = new Date()): Promise<ShareLinkGrant | null> {
  const [row] = await db
    .select({
      id: shareLinks.id,
      userId: shareLinks.userId,
      kind: shareLinks.kind,
      targetId: shareLinks.targetId,
      lastOpenedAt: shareLinks.lastOpenedAt,
    })
    .from(shareLinks)
    .where(and(eq(shareLinks.tokenHash, sha256(token)), isNull(shareLinks.revokedAt)))
    .limit(1);
  if (!row) return null;
  if (!row.lastOpenedAt || now.getTime() - row.lastOpenedAt.getTime() > 60_000) {
    await db.update(shareLinks).set({ lastOpenedAt: now }).where(eq(shareLinks.id, row.id));
  }
  return { linkId: row.id, ownerId: row.userId, kind: row.kind, targetId: row.targetId };
}
