import { and, asc, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { notificationDeliveries, notificationNews, notificationSettings, users } from "../../db/schema.ts";

export type SettingsRow = typeof notificationSettings.$inferSelect;
export type SettingsValues = Omit<typeof notificationSettings.$inferInsert, "userId" | "updatedAt">;
export type DeliveryRow = typeof notificationDeliveries.$inferSelect;
export type DeliveryKind = "weekly_report" | "reminder" | "news";
export type DeliveryStatus = "pending" | "sending" | "sent" | "skipped" | "expired" | "failed";
export type NewsContent = Record<string, { subject: string; markdown: string }>;

export async function findSettings(db: Db, userId: string): Promise<SettingsRow | null> {
  const [row] = await db.select().from(notificationSettings).where(eq(notificationSettings.userId, userId));
  return row ?? null;
}

/** Creates or changes the person's settings with only the given columns; answers the stored row. */
export async function upsertSettings(db: Db, userId: string, values: SettingsValues): Promise<SettingsRow> {
  const [row] = await db
    .insert(notificationSettings)
    .values({ ...values, userId })
    .onConflictDoUpdate({ target: notificationSettings.userId, set: { ...values, updatedAt: sql`now()` } })
    .returning();
  if (!row) throw new Error("notification settings upsert returned no row");
  return row;
}

export type ScheduleRow = SettingsRow & { timezone: string };

/** One page (by user id) of the people with a weekly report or reminders on, with their time zone. */
export async function listScheduled(
  db: Db,
  afterUserId: string | null,
  limit: number,
): Promise<ScheduleRow[]> {
  const rows = await db
    .select({ settings: notificationSettings, timezone: users.timezone })
    .from(notificationSettings)
    .innerJoin(users, eq(users.id, notificationSettings.userId))
    .where(
      and(
        or(eq(notificationSettings.weeklyReport, true), eq(notificationSettings.reminders, true)),
        afterUserId ? gt(notificationSettings.userId, afterUserId) : undefined,
      ),
    )
    .orderBy(asc(notificationSettings.userId))
    .limit(limit);
  return rows.map((r) => ({ ...r.settings, timezone: r.timezone }));
}

export type NewDelivery = {
  userId: string;
  kind: DeliveryKind;
  periodKey: string;
  scheduledAt: Date;
  newsId?: number;
};

/** Records deliveries not yet in the ledger; answers the rows this call created. */
export async function insertDeliveries(
  db: Db,
  rows: readonly NewDelivery[],
): Promise<{ id: number; userId: string }[]> {
  if (rows.length === 0) return [];
  return db
    .insert(notificationDeliveries)
    .values(rows.map((r) => ({ ...r, newsId: r.newsId ?? null })))
    .onConflictDoNothing()
    .returning({ id: notificationDeliveries.id, userId: notificationDeliveries.userId });
}

/** Which of these people already have a ledger row for one of these periods (`user|kind|period`). */
export async function existingDeliveryKeys(
  db: Db,
  userIds: readonly string[],
  periodKeys: readonly string[],
): Promise<Set<string>> {
  if (userIds.length === 0 || periodKeys.length === 0) return new Set();
  const rows = await db
    .select({
      userId: notificationDeliveries.userId,
      kind: notificationDeliveries.kind,
      periodKey: notificationDeliveries.periodKey,
    })
    .from(notificationDeliveries)
    .where(
      and(
        inArray(notificationDeliveries.userId, [...userIds]),
        inArray(notificationDeliveries.periodKey, [...periodKeys]),
      ),
    );
  return new Set(rows.map((r) => `${r.userId}|${r.kind}|${r.periodKey}`));
}

/**
 * Takes a pending delivery for sending, in one conditional statement: of two workers on the same row
 * exactly one gets it. Committed before the mail goes out, so a crash afterwards never sends it twice.
 */
export async function claimDelivery(db: Db, id: number): Promise<DeliveryRow | null> {
  const [row] = await db
    .update(notificationDeliveries)
    .set({ status: "sending", updatedAt: sql`now()` })
    .where(and(eq(notificationDeliveries.id, id), eq(notificationDeliveries.status, "pending")))
    .returning();
  return row ?? null;
}

export async function setDeliveryStatus(
  db: Db,
  id: number,
  status: DeliveryStatus,
  from: DeliveryStatus,
): Promise<void> {
  await db
    .update(notificationDeliveries)
    .set({ status, updatedAt: sql`now()` })
    .where(and(eq(notificationDeliveries.id, id), eq(notificationDeliveries.status, from)));
}

/** Pending rows of `kind` scheduled before `before` become expired: too late to be worth sending. */
export async function expireOverdue(db: Db, kind: DeliveryKind, before: Date): Promise<void> {
  await db
    .update(notificationDeliveries)
    .set({ status: "expired", updatedAt: sql`now()` })
    .where(
      and(
        eq(notificationDeliveries.status, "pending"),
        eq(notificationDeliveries.kind, kind),
        lt(notificationDeliveries.scheduledAt, before),
      ),
    );
}

/** Pending deliveries older than `before` whose job may have been lost (retries used up). */
export async function listStalePending(db: Db, before: Date, limit: number): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(notificationDeliveries)
    .where(and(eq(notificationDeliveries.status, "pending"), lt(notificationDeliveries.updatedAt, before)))
    .orderBy(asc(notificationDeliveries.id))
    .limit(limit);
}

/** Marks rows as handed to the job queue again (so the next tick does not re-send them at once). */
export async function touchDeliveries(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(notificationDeliveries)
    .set({ updatedAt: sql`now()` })
    .where(inArray(notificationDeliveries.id, [...ids]));
}

export type Recipient = {
  email: string;
  name: string;
  language: string;
  timezone: string;
  settings: SettingsRow | null;
};

export async function findRecipient(db: Db, userId: string): Promise<Recipient | null> {
  const [row] = await db
    .select({
      email: users.email,
      name: users.name,
      language: users.newsletterLanguage,
      timezone: users.timezone,
      settings: notificationSettings,
    })
    .from(users)
    .leftJoin(notificationSettings, eq(notificationSettings.userId, users.id))
    .where(eq(users.id, userId));
  return row ?? null;
}

export async function insertNews(db: Db, content: NewsContent): Promise<number> {
  const [row] = await db.insert(notificationNews).values({ content }).returning({ id: notificationNews.id });
  if (!row) throw new Error("news insert returned no row");
  return row.id;
}

export async function listUnsentNews(db: Db): Promise<(typeof notificationNews.$inferSelect)[]> {
  return db
    .select()
    .from(notificationNews)
    .where(isNull(notificationNews.fannedOutAt))
    .orderBy(asc(notificationNews.id));
}

export async function findNews(db: Db, id: number): Promise<typeof notificationNews.$inferSelect | null> {
  const [row] = await db.select().from(notificationNews).where(eq(notificationNews.id, id));
  return row ?? null;
}

/** The ids of people who want product news and read one of `languages`. */
export async function listNewsSubscribers(db: Db, languages: readonly string[]): Promise<string[]> {
  if (languages.length === 0) return [];
  const rows = await db
    .select({ id: users.id })
    .from(notificationSettings)
    .innerJoin(users, eq(users.id, notificationSettings.userId))
    .where(and(eq(notificationSettings.productNews, true), inArray(users.newsletterLanguage, [...languages])))
    .orderBy(asc(users.id));
  return rows.map((r) => r.id);
}

/** Counts opted-in people per newsletter language (the operator command reports it). */
export async function countNewsSubscribers(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .select({ language: users.newsletterLanguage, n: sql<number>`count(*)::int` })
    .from(notificationSettings)
    .innerJoin(users, eq(users.id, notificationSettings.userId))
    .where(eq(notificationSettings.productNews, true))
    .groupBy(users.newsletterLanguage);
  return Object.fromEntries(rows.map((r) => [r.language, Number(r.n)]));
}

export async function markNewsFannedOut(db: Db, id: number, recipients: number): Promise<void> {
  await db
    .update(notificationNews)
    .set({ fannedOutAt: sql`now()`, recipients })
    .where(eq(notificationNews.id, id));
}
