import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { shareLinks } from "../../db/schema.ts";

export type ShareLinkRow = typeof shareLinks.$inferSelect;

export async function insertShareLink(
  db: Db,
  values: { userId: string; kind: string; targetId: string; tokenHash: string },
): Promise<ShareLinkRow> {
  const [row] = await db.insert(shareLinks).values(values).returning();
  if (!row) throw new Error("share link insert returned no row");
  return row;
}

export async function listShareLinksOf(db: Db, userId: string): Promise<ShareLinkRow[]> {
  return db
    .select()
    .from(shareLinks)
    .where(eq(shareLinks.userId, userId))
    .orderBy(desc(shareLinks.createdAt), desc(shareLinks.id));
}

/** Revokes one of the owner's live links; false when there is no such live link of theirs. */
export async function revokeShareLinkOf(
  db: Db,
  userId: string,
  id: string,
  now = new Date(),
): Promise<boolean> {
  const rows = await db
    .update(shareLinks)
    .set({ revokedAt: now })
    .where(and(eq(shareLinks.id, id), eq(shareLinks.userId, userId), isNull(shareLinks.revokedAt)))
    .returning({ id: shareLinks.id });
  return rows.length > 0;
}

/** Deletes every link of the owner's to one target (live or revoked); returns their ids. */
export async function deleteShareLinksTo(
  db: Db,
  userId: string,
  kind: string,
  targetId: string,
): Promise<string[]> {
  const rows = await db
    .delete(shareLinks)
    .where(and(eq(shareLinks.userId, userId), eq(shareLinks.kind, kind), eq(shareLinks.targetId, targetId)))
    .returning({ id: shareLinks.id });
  return rows.map((r) => r.id);
}
