import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { apiTokens, oneTimeCodes, users } from "../../db/schema.ts";

export type UserRow = { id: string; email: string; passwordHash: string | null; language: string };

const userColumns = {
  id: users.id,
  email: users.email,
  passwordHash: users.passwordHash,
  language: users.newsletterLanguage,
};

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const [row] = await db.select(userColumns).from(users).where(eq(users.email, email)).limit(1);
  return row ?? null;
}

export async function findUserById(db: Db, id: string): Promise<UserRow | null> {
  const [row] = await db.select(userColumns).from(users).where(eq(users.id, id)).limit(1);
  return row ?? null;
}

/** Creates the account with a username derived from the e-mail; null when the e-mail is taken. */
export async function insertUser(
  db: Db,
  values: { email: string; passwordHash: string; name: string; timezone: string; language: string },
): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [taken] = await tx.select({ id: users.id }).from(users).where(eq(users.email, values.email));
    if (taken) return null;
    const base =
      (values.email.split("@")[0] ?? "user").replace(/[^a-zA-Z0-9._-]/g, "").slice(0, 30) || "user";
    const like = await tx
      .select({ username: users.username })
      .from(users)
      .where(sql`${users.username} = ${base} or ${users.username} like ${`${base}-%`}`);
    const existing = new Set(like.map((r) => r.username));
    let username = base;
    for (let n = 2; existing.has(username); n++) username = `${base}-${n}`;
    const [row] = await tx
      .insert(users)
      .values({
        email: values.email,
        username,
        passwordHash: values.passwordHash,
        name: values.name,
        timezone: values.timezone,
        newsletterLanguage: values.language,
        passwordChangedAt: new Date(),
      })
      .onConflictDoNothing()
      .returning({ id: users.id });
    return row?.id ?? null;
  });
}

export async function updatePasswordHash(db: Db, userId: string, passwordHash: string, changed: boolean) {
  await db
    .update(users)
    .set(changed ? { passwordHash, passwordChangedAt: new Date() } : { passwordHash })
    .where(eq(users.id, userId));
}

export async function insertOneTimeCode(
  db: Db,
  code: { codeHash: string; userId: string; purpose: string; expiresAt: Date },
): Promise<void> {
  await db.insert(oneTimeCodes).values(code);
}

/** The owner of a live, unused code, without using it up. */
export async function findLiveCode(db: Db, codeHash: string, purpose: string, now: Date) {
  const [row] = await db
    .select({ userId: oneTimeCodes.userId })
    .from(oneTimeCodes)
    .where(
      and(
        eq(oneTimeCodes.codeHash, codeHash),
        eq(oneTimeCodes.purpose, purpose),
        isNull(oneTimeCodes.usedAt),
        gt(oneTimeCodes.expiresAt, now),
      ),
    );
  return row ?? null;
}

/** Marks a live code used in one statement, so two concurrent uses cannot both succeed. */
export async function consumeCode(db: Db, codeHash: string, purpose: string, now: Date) {
  const [row] = await db
    .update(oneTimeCodes)
    .set({ usedAt: now })
    .where(
      and(
        eq(oneTimeCodes.codeHash, codeHash),
        eq(oneTimeCodes.purpose, purpose),
        isNull(oneTimeCodes.usedAt),
        gt(oneTimeCodes.expiresAt, now),
      ),
    )
    .returning({ userId: oneTimeCodes.userId });
  return row ?? null;
}

export async function insertApiToken(db: Db, userId: string, name: string, keyHash: string) {
  const [row] = await db.insert(apiTokens).values({ userId, name, keyHash }).returning({
    id: apiTokens.id,
    name: apiTokens.name,
    createdAt: apiTokens.createdAt,
    lastUsedAt: apiTokens.lastUsedAt,
  });
  if (!row) throw new Error("token insert returned no row");
  return row;
}

export async function listApiTokens(db: Db, userId: string) {
  return db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
    })
    .from(apiTokens)
    .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)))
    .orderBy(desc(apiTokens.createdAt));
}

/** True when the user's live token was revoked; another user's id changes nothing. */
export async function revokeApiToken(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiTokens.id, id), eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
  return rows.length > 0;
}
