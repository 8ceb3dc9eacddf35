import { and, count, desc, eq, gt, sql, sum } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { referralCodes, referralInvitations, referralSettings, referrals, users } from "../../db/schema.ts";

export type InvitationRow = typeof referralInvitations.$inferSelect & { joined: boolean };
export type RewardSettingsRow = typeof referralSettings.$inferSelect;

const REWARD_SETTINGS_KEY = "reward";

export async function findCodeOf(db: Db, userId: string): Promise<string | null> {
  const [row] = await db
    .select({ code: referralCodes.code })
    .from(referralCodes)
    .where(eq(referralCodes.userId, userId));
  return row?.code ?? null;
}

/** Stores `code` for the user unless they have one; answers the code that is theirs afterwards. */
export async function insertCode(db: Db, userId: string, code: string): Promise<string | null> {
  await db.insert(referralCodes).values({ userId, code }).onConflictDoNothing();
  return findCodeOf(db, userId);
}

export async function findReferrerByCode(db: Db, code: string): Promise<string | null> {
  const [row] = await db
    .select({ userId: referralCodes.userId })
    .from(referralCodes)
    .where(eq(referralCodes.code, code));
  return row?.userId ?? null;
}

/** The earliest inviter of an address (the first to invite gets the credit). */
export async function findFirstInviter(db: Db, email: string): Promise<string | null> {
  const [row] = await db
    .select({ userId: referralInvitations.userId })
    .from(referralInvitations)
    .where(eq(referralInvitations.email, email))
    .orderBy(referralInvitations.createdAt)
    .limit(1);
  return row?.userId ?? null;
}

export async function insertReferral(
  db: Db,
  values: { userId: string; referrerId: string; via: "link" | "invitation" },
): Promise<boolean> {
  const rows = await db
    .insert(referrals)
    .values(values)
    .onConflictDoNothing()
    .returning({ userId: referrals.userId });
  return rows.length > 0;
}

export async function isRegisteredEmail(db: Db, email: string): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return Boolean(row);
}

export async function findUserForMail(db: Db, userId: string) {
  const [row] = await db
    .select({ name: users.name, email: users.email, language: users.newsletterLanguage })
    .from(users)
    .where(eq(users.id, userId));
  return row ?? null;
}

export async function findInvitation(db: Db, userId: string, email: string) {
  const [row] = await db
    .select()
    .from(referralInvitations)
    .where(and(eq(referralInvitations.userId, userId), eq(referralInvitations.email, email)));
  return row ?? null;
}

export async function insertInvitation(db: Db, values: { userId: string; email: string; locale: string }) {
  const [row] = await db.insert(referralInvitations).values(values).onConflictDoNothing().returning();
  return row ?? null;
}

/** Records one more sending, only if the row still has the send count the caller saw (no double send). */
export async function markInvitationResent(
  db: Db,
  input: { id: string; sendCount: number; locale: string; now: Date },
) {
  const [row] = await db
    .update(referralInvitations)
    .set({ sendCount: input.sendCount + 1, lastSentAt: input.now, locale: input.locale })
    .where(and(eq(referralInvitations.id, input.id), eq(referralInvitations.sendCount, input.sendCount)))
    .returning();
  return row ?? null;
}

/** An invitation counts as joined when its address registered and was credited to the inviter. */
// Spelled out: inside a sql template drizzle names columns without their table, which the subquery
// would resolve to its own tables.
const joinedSql = sql<boolean>`exists (
  select 1 from referrals r join users u on u.id = r.user_id
  where r.referrer_id = referral_invitations.user_id and u.email = referral_invitations.email
)`;

export async function listInvitations(db: Db, userId: string, limit: number): Promise<InvitationRow[]> {
  const rows = await db
    .select({ invitation: referralInvitations, joined: joinedSql })
    .from(referralInvitations)
    .where(eq(referralInvitations.userId, userId))
    .orderBy(desc(referralInvitations.lastSentAt), desc(referralInvitations.id))
    .limit(limit);
  return rows.map((r) => ({ ...r.invitation, joined: Boolean(r.joined) }));
}

export async function countInvitations(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(referralInvitations)
    .where(eq(referralInvitations.userId, userId));
  return row?.n ?? 0;
}

/**
 * Friends credited to `referrerId`: joined, paid (first payment confirmed), rewarded (the payment earned
 * days; a friend past the operator's maximum pays without earning any) and the days earned.
 */
export async function countReferrals(db: Db, referrerId: string) {
  const [row] = await db
    .select({
      joined: count(),
      paid: count(referrals.rewardedAt),
      rewarded: sql<number>`count(*) filter (where ${referrals.rewardDays} > 0)`.mapWith(Number),
      days: sum(referrals.rewardDays).mapWith(Number),
    })
    .from(referrals)
    .where(eq(referrals.referrerId, referrerId));
  return {
    joined: row?.joined ?? 0,
    paid: row?.paid ?? 0,
    rewarded: row?.rewarded ?? 0,
    earnedDays: row?.days ?? 0,
  };
}

/** The friend's referral row, locked for the rest of the transaction. */
export async function lockReferralOf(db: Db, friendId: string) {
  const [row] = await db.select().from(referrals).where(eq(referrals.userId, friendId)).for("update");
  return row ?? null;
}

/** Serialises rewards per referrer (the per-person maximum): the referrer's account row is locked. */
export async function lockReferrer(db: Db, referrerId: string): Promise<void> {
  await db.select({ id: users.id }).from(users).where(eq(users.id, referrerId)).for("no key update");
}

/** Friends whose payment earned `referrerId` days. */
export async function countRewarded(db: Db, referrerId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(referrals)
    .where(and(eq(referrals.referrerId, referrerId), gt(referrals.rewardDays, 0)));
  return row?.n ?? 0;
}

/** Marks the friend's reward given; false when it was already (exactly once per friend). */
export async function markRewarded(
  db: Db,
  input: { friendId: string; days: number; transactionId: string; now: Date },
): Promise<boolean> {
  const rows = await db
    .update(referrals)
    .set({ rewardedAt: input.now, rewardDays: input.days, rewardTransactionId: input.transactionId })
    .where(and(eq(referrals.userId, input.friendId), sql`${referrals.rewardedAt} is null`))
    .returning({ userId: referrals.userId });
  return rows.length > 0;
}

export async function findRewardSettings(db: Db): Promise<RewardSettingsRow | null> {
  const [row] = await db.select().from(referralSettings).where(eq(referralSettings.key, REWARD_SETTINGS_KEY));
  return row ?? null;
}

export async function saveRewardSettings(db: Db, values: { rewardDays: number; maxRewards: number | null }) {
  const row = { key: REWARD_SETTINGS_KEY, ...values, updatedAt: new Date() };
  await db
    .insert(referralSettings)
    .values(row)
    .onConflictDoUpdate({ target: referralSettings.key, set: row });
}

export async function deleteRewardSettings(db: Db): Promise<boolean> {
  const rows = await db
    .delete(referralSettings)
    .where(eq(referralSettings.key, REWARD_SETTINGS_KEY))
    .returning({ key: referralSettings.key });
  return rows.length > 0;
}

/** Every person who referred someone, with counts (operator CLI). */
export async function listReferrers(db: Db) {
  return db
    .select({
      email: users.email,
      joined: count(),
      rewarded: sql<number>`(count(*) filter (where ${referrals.rewardDays} > 0))::int`,
      days: sql<number>`coalesce(sum(${referrals.rewardDays}), 0)::int`,
    })
    .from(referrals)
    .innerJoin(users, eq(users.id, referrals.referrerId))
    .groupBy(users.email)
    .orderBy(desc(count()), users.email);
}
