import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { deletedAccounts } from "../db/schema.ts";

/**
 * The deletion ledger (RELIABILITY X7). Restoring a backup brings back the accounts deleted since it was
 * taken; the ledger is how the server deletes them again before it listens.
 *
 * Each deleted account leaves a SHA-256 of its id (random, so the hash names no one) in two places: the
 * `deleted_accounts` table, written in the deletion's own transaction, and the DELETION_LEDGER file,
 * appended to once the deletion has committed. The file lives outside the database and is kept when a
 * backup is restored; the table covers a crash between the commit and the append, and a lost file.
 * Lines are `deleted <hash>` or `restored <hash>` (an archive imported under its own id again); the last
 * line about a hash wins.
 */
export function deletedIdHash(userId: string): string {
  return createHash("sha256").update(`tonus-deleted-account:${userId}`).digest("hex");
}

const LINE_RE = /^(deleted|restored) ([0-9a-f]{64})$/;

/** The hashes the file lists as deleted now, and every hash it mentions at all. */
export function readLedgerFile(file: string): { deleted: Set<string>; mentioned: Set<string> } {
  const deleted = new Set<string>();
  const mentioned = new Set<string>();
  let text = "";
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  for (const line of text.split("\n")) {
    const m = LINE_RE.exec(line.trim());
    if (!m?.[1] || !m[2]) continue;
    mentioned.add(m[2]);
    if (m[1] === "deleted") deleted.add(m[2]);
    else deleted.delete(m[2]);
  }
  return { deleted, mentioned };
}

/** Appends lines and flushes them to disk before answering. */
export function appendLedgerLines(file: string, lines: readonly string[]): void {
  if (lines.length === 0) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, "a", 0o600);
  try {
    fs.writeSync(fd, lines.map((l) => `${l}\n`).join(""));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** In the deletion's transaction: the account is listed as deleted. */
export async function recordDeletion(tx: Db, userId: string): Promise<string> {
  const idHash = deletedIdHash(userId);
  await tx.insert(deletedAccounts).values({ idHash }).onConflictDoNothing();
  return idHash;
}

/** In an import's transaction under the archive's own id: the account is no longer listed as deleted. */
export async function recordRestore(tx: Db, userId: string): Promise<string | null> {
  const idHash = deletedIdHash(userId);
  const gone = await tx.delete(deletedAccounts).where(eq(deletedAccounts.idHash, idHash)).returning();
  return gone.length > 0 ? idHash : null;
}

/**
 * Brings the table and the file together and answers the ids of existing accounts the ledger lists as
 * deleted. The file decides about every hash it mentions (it is the copy a restore does not touch); a hash
 * only the table knows (the append was lost) is deleted and is written to the file.
 */
export async function accountsToDeleteAgain(db: Db, file: string | undefined): Promise<string[]> {
  const fromFile = file ? readLedgerFile(file) : { deleted: new Set<string>(), mentioned: new Set<string>() };
  const tableRows = await db.select({ idHash: deletedAccounts.idHash }).from(deletedAccounts);
  const inTable = new Set(tableRows.map((r) => r.idHash));
  const missingInFile = [...inTable].filter((h) => !fromFile.mentioned.has(h));
  if (file)
    appendLedgerLines(
      file,
      missingInFile.map((h) => `deleted ${h}`),
    );
  const deleted = new Set([...fromFile.deleted, ...missingInFile]);
  for (const h of inTable)
    if (fromFile.mentioned.has(h) && !fromFile.deleted.has(h))
      await db.delete(deletedAccounts).where(eq(deletedAccounts.idHash, h));
  const missingInTable = [...fromFile.deleted].filter((h) => !inTable.has(h));
  for (let i = 0; i < missingInTable.length; i += 1000)
    await db
      .insert(deletedAccounts)
      .values(missingInTable.slice(i, i + 1000).map((idHash) => ({ idHash })))
      .onConflictDoNothing();
  if (deleted.size === 0) return [];
  // One text parameter (a comma-separated list): hashes are hex, so the split is exact.
  const r = (await db.execute(
    sql`select id::text as id from users
         where encode(sha256(convert_to('tonus-deleted-account:' || id::text, 'UTF8')), 'hex')
               = any(string_to_array(${[...deleted].join(",")}::text, ','))`,
  )) as unknown as { rows: { id: string }[] };
  return r.rows.map((row) => row.id);
}
