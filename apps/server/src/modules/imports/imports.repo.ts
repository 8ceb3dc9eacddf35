import { IMPORT_LIMITS } from "@tonus/contract";
import { and, desc, eq, inArray, isNotNull, lt, ne, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { imports } from "../../db/schema.ts";

export type ImportRow = typeof imports.$inferSelect;
export type NewImport = Omit<typeof imports.$inferInsert, "id" | "createdAt" | "updatedAt">;

/** Statuses of an import that is not finished (they count against the per-person limit). */
export const ACTIVE_STATUSES = ["needs_mapping", "queued", "running"] as const;

/** Serialises one person's upload bookkeeping (limit and quota checks) inside the caller's transaction. */
export async function lockUserImports(tx: Db, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`imports:${userId}`}))`);
}

/** Unfinished imports and the bytes of the files they keep. */
export async function activeUsage(tx: Db, userId: string): Promise<{ count: number; bytes: number }> {
  const [row] = await tx
    .select({
      count: sql<number>`count(*)::int`,
      bytes: sql<number>`coalesce(sum(${imports.sizeBytes}), 0)::float8`,
    })
    .from(imports)
    .where(and(eq(imports.userId, userId), inArray(imports.status, [...ACTIVE_STATUSES])));
  return { count: Number(row?.count ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** The person's unfinished imports (queued, running, waiting for a mapping), oldest first. */
export async function unfinishedImportsOf(
  db: Db,
  userId: string,
): Promise<{ id: string; sourceSlug: string; fileName: string; status: string }[]> {
  return db
    .select({
      id: imports.id,
      sourceSlug: imports.sourceSlug,
      fileName: imports.fileName,
      status: imports.status,
    })
    .from(imports)
    .where(and(eq(imports.userId, userId), inArray(imports.status, [...ACTIVE_STATUSES])))
    .orderBy(imports.createdAt)
    .limit(IMPORT_LIMITS.maxActive);
}

export async function insertImport(tx: Db, values: NewImport): Promise<ImportRow> {
  const [row] = await tx.insert(imports).values(values).returning();
  if (!row) throw new Error("import insert returned no row");
  return row;
}

export async function findImport(db: Db, id: string): Promise<ImportRow | null> {
  const [row] = await db.select().from(imports).where(eq(imports.id, id));
  return row ?? null;
}

export async function findImportOf(db: Db, userId: string, id: string): Promise<ImportRow | null> {
  const [row] = await db
    .select()
    .from(imports)
    .where(and(eq(imports.userId, userId), eq(imports.id, id)));
  return row ?? null;
}

export async function listImportsOf(
  db: Db,
  userId: string,
  q: { source?: string; limit: number },
): Promise<ImportRow[]> {
  const where = q.source
    ? and(eq(imports.userId, userId), eq(imports.sourceSlug, q.source))
    : eq(imports.userId, userId);
  return db.select().from(imports).where(where).orderBy(desc(imports.createdAt)).limit(q.limit);
}

/** The latest import of each catalogue entry the person imported from. */
export async function latestImportPerSource(db: Db, userId: string): Promise<ImportRow[]> {
  return db
    .selectDistinctOn([imports.sourceSlug])
    .from(imports)
    .where(eq(imports.userId, userId))
    .orderBy(imports.sourceSlug, desc(imports.createdAt));
}

/**
 * Takes the import for one job run: only a queued or running import whose lease has expired (or was
 * never taken), so two workers never run the same import. Returns null when another run holds it or it
 * has ended.
 */
export async function claimImport(
  db: Db,
  id: string,
  leaseMs: number,
  owner: string,
): Promise<ImportRow | null> {
  const [row] = await db
    .update(imports)
    .set({
      status: "running",
      lockedBy: owner,
      lockedUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`,
      startedAt: sql`coalesce(${imports.startedAt}, now())`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(imports.id, id),
        inArray(imports.status, ["queued", "running"]),
        or(sql`${imports.lockedUntil} is null`, lt(imports.lockedUntil, sql`now()`)),
      ),
    )
    .returning();
  return row ?? null;
}

export type BatchProgress = {
  checkpoint: Record<string, unknown>;
  bytesRead: number;
  recordsRead: number;
  imported: number;
  duplicates: number;
  /** Rejected so far in total (the parser's count is cumulative; this sets, not adds). */
  rejected: number;
};

/**
 * Records a committed batch in the caller's transaction (the same one that wrote its values): the
 * checkpoint, the counters (added) and a renewed lease. Returns whether a cancel was asked for, or null
 * when the import is no longer running (deleted with its account, or ended).
 */
export async function commitBatch(
  tx: Db,
  id: string,
  p: BatchProgress,
  leaseMs: number,
): Promise<{ cancelRequested: boolean } | null> {
  const [row] = await tx
    .update(imports)
    .set({
      checkpoint: p.checkpoint,
      bytesRead: p.bytesRead,
      recordsRead: p.recordsRead,
      importedCount: sql`${imports.importedCount} + ${p.imported}`,
      duplicateCount: sql`${imports.duplicateCount} + ${p.duplicates}`,
      rejectedCount: p.rejected,
      lockedUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(imports.id, id), eq(imports.status, "running")))
    .returning({ cancelRequested: imports.cancelRequested });
  return row ?? null;
}

/** Gives the lease up (a failed run, so that its retry may claim the import at once). */
/** The tables an import fills. */
const IMPORT_TABLES = [
  "dashboard_samples",
  "dashboard_values",
  "dashboard_daily",
  "measurements",
  "bp_readings",
  "outbox_events",
];

/**
 * Refreshes the planner's statistics of the tables an import fills. A large import changes their sizes
 * by orders of magnitude, and until autovacuum gets to them (a minute or more) PostgreSQL plans their
 * queries for tables nearly empty (the blood-pressure subscriber's look-up of the measurements near an
 * import's thousands of readings took seconds a call that way, before it was written to need no
 * statistics).
 */
export async function analyzeImportTables(db: Db): Promise<void> {
  await db.execute(sql.raw(`analyze ${IMPORT_TABLES.join(", ")}`));
}

export async function releaseLease(db: Db, id: string): Promise<void> {
  await db.update(imports).set({ lockedUntil: null, lockedBy: null }).where(eq(imports.id, id));
}

/** Ends an import (done, failed or cancelled) with its report; its file is no longer referenced. */
export async function finishImport(
  db: Db,
  id: string,
  status: "done" | "failed" | "cancelled",
  report: Record<string, unknown>,
  counts?: { imported: number; duplicates: number; rejected: number },
): Promise<ImportRow | null> {
  const [row] = await db
    .update(imports)
    .set({
      status,
      report,
      storedName: null,
      lockedUntil: null,
      lockedBy: null,
      finishedAt: sql`now()`,
      updatedAt: sql`now()`,
      // A finished import has read its whole file (a zip's headers are not counted while reading).
      ...(status === "done" ? { bytesRead: sql`${imports.sizeBytes}` } : {}),
      ...(counts
        ? {
            importedCount: counts.imported,
            duplicateCount: counts.duplicates,
            rejectedCount: counts.rejected,
          }
        : {}),
    })
    .where(and(eq(imports.id, id), inArray(imports.status, [...ACTIVE_STATUSES])))
    .returning();
  return row ?? null;
}

/** A generic CSV's mapping, confirmed: the import is queued. */
export async function queueWithOptions(
  db: Db,
  userId: string,
  id: string,
  options: Record<string, unknown>,
): Promise<ImportRow | null> {
  const [row] = await db
    .update(imports)
    .set({ options, status: "queued", updatedAt: sql`now()` })
    .where(and(eq(imports.userId, userId), eq(imports.id, id), eq(imports.status, "needs_mapping")))
    .returning();
  return row ?? null;
}

/** Asks a running import to stop at its next batch. */
export async function requestCancel(db: Db, userId: string, id: string): Promise<ImportRow | null> {
  const [row] = await db
    .update(imports)
    .set({ cancelRequested: true, updatedAt: sql`now()` })
    .where(and(eq(imports.userId, userId), eq(imports.id, id)))
    .returning();
  return row ?? null;
}

/** Unfinished imports a job should be working on (queued or running), for the resume sweep. */
export async function unfinishedImports(db: Db): Promise<ImportRow[]> {
  return db
    .select()
    .from(imports)
    .where(inArray(imports.status, ["queued", "running"]));
}

/** Generic CSVs still waiting for their mapping since before `before`. */
export async function staleMappings(db: Db, before: Date): Promise<ImportRow[]> {
  return db
    .select()
    .from(imports)
    .where(and(eq(imports.status, "needs_mapping"), lt(imports.createdAt, before)));
}

/**
 * Releases the leases other processes hold (PGlite only: one process owns the data directory, so a lease
 * another process took was left by a server that is gone).
 */
export async function releaseLeasesOfOthers(db: Db, owner: string): Promise<void> {
  await db
    .update(imports)
    .set({ lockedUntil: null, lockedBy: null })
    .where(
      and(isNotNull(imports.lockedUntil), or(sql`${imports.lockedBy} is null`, ne(imports.lockedBy, owner))),
    );
}

/** Every file name an account's imports still keep (account deletion removes them). */
export async function storedNamesOf(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .select({ name: imports.storedName })
    .from(imports)
    .where(and(eq(imports.userId, userId), isNotNull(imports.storedName)));
  return rows.flatMap((r) => (r.name ? [r.name] : []));
}

/** Every stored name still referenced (the orphan sweep keeps these). */
export async function referencedStoredNames(db: Db, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await db
    .select({ name: imports.storedName })
    .from(imports)
    .where(inArray(imports.storedName, [...names]));
  return new Set(rows.flatMap((r) => (r.name ? [r.name] : [])));
}
