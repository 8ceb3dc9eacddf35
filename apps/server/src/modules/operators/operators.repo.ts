import { asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { users } from "../../db/schema.ts";

export type UserListRow = {
  id: string;
  email: string;
  role: string;
  isCustomerOverride: boolean;
  createdAt: Date;
};

export async function findUserIdByEmail(db: Db, email: string): Promise<string | null> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return row?.id ?? null;
}

export async function setUserRole(db: Db, userId: string, role: "user" | "operator"): Promise<boolean> {
  const [before] = await db.select({ role: users.role }).from(users).where(eq(users.id, userId));
  if (before?.role === role) return false;
  await db.update(users).set({ role }).where(eq(users.id, userId));
  return true;
}

export async function setCustomerOverride(db: Db, userId: string, value: boolean): Promise<boolean> {
  const [before] = await db
    .select({ value: users.isCustomerOverride })
    .from(users)
    .where(eq(users.id, userId));
  if (before?.value === value) return false;
  await db.update(users).set({ isCustomerOverride: value }).where(eq(users.id, userId));
  return true;
}

export async function listUsers(db: Db): Promise<UserListRow[]> {
  return db
    .select({
      id: users.id,
      email: users.email,
      role: users.role,
      isCustomerOverride: users.isCustomerOverride,
      createdAt: users.createdAt,
    })
    .from(users)
    .orderBy(asc(users.createdAt), asc(users.email));
}
