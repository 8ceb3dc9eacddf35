import { and, eq, gt, isNotNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { connectorAuthorizations, connectorConnections, connectorTokens } from "../../db/schema.ts";

/** SQL of the connectors: connections, their sealed tokens and pending authorizations. */

export type ConnectionRow = typeof connectorConnections.$inferSelect;
export type TokenRow = typeof connectorTokens.$inferSelect;
export type AuthorizationRow = typeof connectorAuthorizations.$inferSelect;

export async function listConnectionsOf(db: Db, userId: string): Promise<ConnectionRow[]> {
  return db.select().from(connectorConnections).where(eq(connectorConnections.userId, userId));
}

export async function findConnectionOf(
  db: Db,
  userId: string,
  provider: string,
): Promise<ConnectionRow | null> {
  const [row] = await db
    .select()
    .from(connectorConnections)
    .where(and(eq(connectorConnections.userId, userId), eq(connectorConnections.provider, provider)));
  return row ?? null;
}

export async function findConnectionById(db: Db, id: string): Promise<ConnectionRow | null> {
  const [row] = await db.select().from(connectorConnections).where(eq(connectorConnections.id, id));
  return row ?? null;
}

/**
 * Creates the person's connection to a provider, or renews it on a reconnect: active again, errors
 * cleared. The cursors are kept when it is the same provider account (the sync goes on where it was),
 * dropped when another account was connected.
 */
export async function upsertConnection(
  tx: Db,
  input: {
    userId: string;
    provider: string;
    externalUserId: string | null;
    scopes: string;
    historyStart: Date;
  },
): Promise<ConnectionRow> {
  const [row] = await tx
    .insert(connectorConnections)
    .values({ ...input, cursors: {} })
    .onConflictDoUpdate({
      target: [connectorConnections.userId, connectorConnections.provider],
      set: {
        status: "active",
        scopes: input.scopes,
        connectedAt: sql`now()`,
        cursors: sql`case when ${connectorConnections.externalUserId} is not distinct from ${input.externalUserId}
          then ${connectorConnections.cursors} else '{}'::jsonb end`,
        historyStart: sql`case when ${connectorConnections.externalUserId} is not distinct from ${input.externalUserId}
          then ${connectorConnections.historyStart} else ${input.historyStart} end`,
        externalUserId: input.externalUserId,
        syncState: "idle",
        syncRequestedAt: null,
        retryAt: null,
        failures: 0,
        runReport: null,
        lastErrorCode: null,
        lastErrorAt: null,
        updatedAt: sql`now()`,
      },
    })
    .returning();
  if (!row) throw new Error("connection upsert returned no row");
  return row;
}

export async function saveTokens(
  db: Db,
  input: {
    connectionId: string;
    userId: string;
    accessToken: string;
    refreshToken: string | null;
    expiresAt: Date | null;
  },
): Promise<void> {
  await db
    .insert(connectorTokens)
    .values(input)
    .onConflictDoUpdate({
      target: connectorTokens.connectionId,
      set: {
        accessToken: input.accessToken,
        refreshToken: input.refreshToken,
        expiresAt: input.expiresAt,
        updatedAt: sql`now()`,
      },
    });
}

export async function findTokens(db: Db, connectionId: string): Promise<TokenRow | null> {
  const [row] = await db.select().from(connectorTokens).where(eq(connectorTokens.connectionId, connectionId));
  return row ?? null;
}

/** Every connection of the person with its sealed tokens (account deletion revokes them). */
export async function connectionsWithTokensOf(db: Db, userId: string) {
  return db
    .select({ connection: connectorConnections, tokens: connectorTokens })
    .from(connectorConnections)
    .innerJoin(connectorTokens, eq(connectorTokens.connectionId, connectorConnections.id))
    .where(eq(connectorConnections.userId, userId));
}

export async function deleteConnection(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(connectorConnections)
    .where(and(eq(connectorConnections.id, id), eq(connectorConnections.userId, userId)))
    .returning({ id: connectorConnections.id });
  return rows.length > 0;
}

export async function insertAuthorization(
  db: Db,
  row: typeof connectorAuthorizations.$inferInsert,
): Promise<void> {
  await db.insert(connectorAuthorizations).values(row);
}

/** How many connect attempts of the person are still pending. */
export async function countPendingAuthorizations(db: Db, userId: string, now: Date): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(connectorAuthorizations)
    .where(and(eq(connectorAuthorizations.userId, userId), gt(connectorAuthorizations.expiresAt, now)));
  return Number(row?.n ?? 0);
}

/** Takes (deletes and answers) a pending authorization by its state hash: each state is usable once. */
export async function takeAuthorization(db: Db, stateHash: string): Promise<AuthorizationRow | null> {
  const [row] = await db
    .delete(connectorAuthorizations)
    .where(eq(connectorAuthorizations.stateHash, stateHash))
    .returning();
  return row ?? null;
}

/** Removes abandoned connect attempts (the person never came back from the provider). */
export async function deleteExpiredAuthorizations(db: Db, now: Date): Promise<void> {
  await db.delete(connectorAuthorizations).where(lt(connectorAuthorizations.expiresAt, now));
}

/** Asks for a sync: `queued` unless one is already running or backing off. */
export async function requestSyncOf(db: Db, id: string, now: Date): Promise<ConnectionRow | null> {
  const [row] = await db
    .update(connectorConnections)
    .set({
      syncRequestedAt: now,
      syncState: sql`case when ${connectorConnections.syncState} = 'idle' then 'queued' else ${connectorConnections.syncState} end`,
      updatedAt: now,
    })
    .where(and(eq(connectorConnections.id, id), eq(connectorConnections.status, "active")))
    .returning();
  return row ?? null;
}

export const EMPTY_RUN_REPORT = { read: 0, imported: 0, skipped: 0, rejected: 0, rejected_reasons: {} };

/** A sync starts (or resumes: the counts of the interrupted run go on). */
export async function markRunning(db: Db, id: string, now: Date): Promise<ConnectionRow | null> {
  const [row] = await db
    .update(connectorConnections)
    .set({
      syncState: "running",
      syncStartedAt: now,
      runReport: sql`coalesce(${connectorConnections.runReport}, ${JSON.stringify(EMPTY_RUN_REPORT)}::jsonb)`,
      updatedAt: now,
    })
    .where(and(eq(connectorConnections.id, id), eq(connectorConnections.status, "active")))
    .returning();
  return row ?? null;
}

/**
 * Moves one stream's cursor and the run's counts, in the transaction that wrote the page's values.
 * False when the connection is gone (disconnected meanwhile): the caller then rolls the page back.
 */
export async function commitPage(
  tx: Db,
  id: string,
  stream: string,
  cursor: unknown,
  runReport: Record<string, unknown>,
): Promise<boolean> {
  const rows = await tx
    .update(connectorConnections)
    .set({
      cursors: sql`${connectorConnections.cursors} || jsonb_build_object(${stream}::text, ${JSON.stringify(cursor ?? null)}::jsonb)`,
      runReport,
      updatedAt: sql`now()`,
    })
    .where(and(eq(connectorConnections.id, id), eq(connectorConnections.status, "active")))
    .returning({ id: connectorConnections.id });
  return rows.length > 0;
}

/**
 * A sync finished: its counts become the last report. A request that came in while it ran (after
 * `seenRequestAt`) leaves the connection `queued` for one more run; answers the new state.
 */
export async function finishRun(
  db: Db,
  id: string,
  seenRequestAt: Date | null,
  now: Date,
): Promise<string | null> {
  const seen = seenRequestAt ?? new Date(0);
  const later = sql`${connectorConnections.syncRequestedAt} is not null and ${connectorConnections.syncRequestedAt} > ${seen}`;
  const [row] = await db
    .update(connectorConnections)
    .set({
      syncState: sql`case when ${later} then 'queued' else 'idle' end`,
      syncRequestedAt: sql`case when ${later} then ${connectorConnections.syncRequestedAt} else null end`,
      lastSyncAt: now,
      lastSyncReport: sql`${connectorConnections.runReport}`,
      runReport: null,
      lastErrorCode: null,
      lastErrorAt: null,
      failures: 0,
      retryAt: null,
      updatedAt: now,
    })
    .where(eq(connectorConnections.id, id))
    .returning({ syncState: connectorConnections.syncState });
  return row?.syncState ?? null;
}

/** A sync stopped on a rate limit or a provider failure: wait until `retryAt`, then resume. */
export async function deferRun(
  db: Db,
  id: string,
  input: { code: string; retryAt: Date; countsAsFailure: boolean; now: Date },
): Promise<void> {
  await db
    .update(connectorConnections)
    .set({
      syncState: "waiting",
      retryAt: input.retryAt,
      lastErrorCode: input.code,
      lastErrorAt: input.now,
      failures: input.countsAsFailure
        ? sql`${connectorConnections.failures} + 1`
        : connectorConnections.failures,
      updatedAt: input.now,
    })
    .where(eq(connectorConnections.id, id));
}

/** The provider refused the token: no more syncs until the person connects again. */
export async function markReconnectNeeded(db: Db, id: string, now: Date): Promise<void> {
  await db
    .update(connectorConnections)
    .set({
      status: "reconnect_needed",
      syncState: "idle",
      syncRequestedAt: null,
      retryAt: null,
      runReport: null,
      lastErrorCode: "reconnect_needed",
      lastErrorAt: now,
      updatedAt: now,
    })
    .where(eq(connectorConnections.id, id));
}

/**
 * Connections that should sync now: due by the interval, asked for, back from a backoff, or left
 * `running`/`queued` by a process that stopped (the sync lock tells a live run from an orphan; with
 * `includeFresh` — at start — every such row is offered, otherwise only ones older than `staleAfter`).
 */
export async function dueConnections(
  db: Db,
  input: { now: Date; intervalMs: number; staleAfterMs: number; includeFresh: boolean },
): Promise<{ id: string; userId: string; provider: string; syncState: string }[]> {
  const c = connectorConnections;
  const dueBefore = new Date(input.now.getTime() - input.intervalMs);
  const staleBefore = input.includeFresh ? input.now : new Date(input.now.getTime() - input.staleAfterMs);
  return db
    .select({ id: c.id, userId: c.userId, provider: c.provider, syncState: c.syncState })
    .from(c)
    .where(
      and(
        eq(c.status, "active"),
        or(
          and(eq(c.syncState, "idle"), or(sql`${c.lastSyncAt} is null`, lt(c.lastSyncAt, dueBefore))),
          and(eq(c.syncState, "waiting"), isNotNull(c.retryAt), lte(c.retryAt, input.now)),
          and(eq(c.syncState, "queued"), lte(c.syncRequestedAt, staleBefore)),
          and(eq(c.syncState, "running"), lte(c.syncStartedAt, staleBefore)),
        ),
      ),
    )
    .limit(1000);
}
