import type { ProfileUpdate } from "@tonus/contract";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { users } from "../../db/schema.ts";

export type UserRow = typeof users.$inferSelect;

export async function findUserById(db: Db, userId: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, userId));
  return row;
}

/**
 * Writes only the allowlisted profile columns. The mapping is explicit on purpose: nothing from the
 * request is spread into the update, so no other column can ever be reached (mass assignment, A3).
 */
export async function updateProfileColumns(db: Db, userId: string, update: ProfileUpdate): Promise<void> {
  const set: Partial<typeof users.$inferInsert> = {};
  if (update.name !== undefined) set.name = update.name;
  if (update.gender !== undefined) set.gender = update.gender;
  if (update.date_of_birth !== undefined) set.dateOfBirth = update.date_of_birth;
  if (update.height !== undefined) set.heightCm = update.height;
  if (update.weight !== undefined) set.weightKg = update.weight;
  if (update.units !== undefined) set.units = update.units;
  if (update.energy_unit !== undefined) set.energyUnit = update.energy_unit;
  if (update.newsletter_language !== undefined) set.newsletterLanguage = update.newsletter_language;
  if (update.timezone !== undefined) set.timezone = update.timezone;
  if (Object.keys(set).length === 0) return;
  await db.update(users).set(set).where(eq(users.id, userId));
}

/** Sets the new picture name and returns the previous one, so the caller can delete its file. */
export async function replaceUserpicName(db: Db, userId: string, name: string): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ old: users.userpicPath })
      .from(users)
      .where(eq(users.id, userId))
      .for("update");
    await tx.update(users).set({ userpicPath: name }).where(eq(users.id, userId));
    return row?.old ?? null;
  });
}
