import { BpReadingCreateSchema, METRICS, type SyncReport } from "@tonus/contract";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { users } from "../../db/schema.ts";
import type { AppContext } from "../../lib/context.ts";
import { createReading } from "../bp/bp.service.ts";
import { type DashboardValue, recordValues } from "../dashboard-values/dashboard-values.service.ts";
import type { SecretBox } from "./connectors.crypto.ts";
import { createProviderApi, type RequestPacer } from "./connectors.http.ts";
import type { SyncLock } from "./connectors.lock.ts";
import { refreshTokens } from "./connectors.oauth.ts";
import { findProvider, isRetired, providerSettings } from "./connectors.providers.ts";
import {
  type ConnectionRow,
  commitPage,
  deferRun,
  EMPTY_RUN_REPORT,
  findConnectionById,
  finishRun,
  markReconnectNeeded,
  markRunning,
  saveTokens,
} from "./connectors.repo.ts";
import { openTokens, sealTokens } from "./connectors.tokens.ts";
import {
  type MappedReading,
  type MappedValue,
  type ProviderDef,
  ProviderError,
  type StreamContext,
  type TokenSet,
} from "./connectors.types.ts";

/**
 * The sync of one connection: every stream of the provider, page by page from its cursor. Each page's
 * values go through the dashboard's write path (`recordValues`, source = the provider) in one
 * transaction with the stream's new cursor and the run's counts, so the cursor never moves past
 * uncommitted data and a sync cut short (a crash, a rate limit) resumes where committed data ends.
 * Blood-pressure readings go through the bp module (idempotent by a name-based client id) just before.
 */

export type ConnectorDeps = {
  ctx: Pick<AppContext, "config" | "database" | "services" | "log">;
  box: SecretBox;
  lock: SyncLock;
  clock: () => Date;
  /** Spacing of requests per provider and pauses of app-wide rate limits, shared by every sync. */
  pacer: RequestPacer;
  /** Queues a sync job for the connection (now, or not before `startAfter`). */
  enqueue: (target: { userId: string; connectionId: string }, startAfter?: Date) => Promise<void>;
};

export type SyncOutcome =
  | { kind: "done"; report: SyncReport }
  | { kind: "deferred"; code: string; retryAt: Date }
  | { kind: "reconnect_needed" }
  /** Nothing to do: running elsewhere, backing off, gone or not configured any more. */
  | { kind: "skipped"; reason: string };

/** The connection was disconnected while its sync ran: the page is rolled back and the sync stops. */
class ConnectionGone extends Error {}

/** Longest wait between retries after provider failures. */
const MAX_BACKOFF_S = 6 * 3600;
/** Pages of one stream in one run; a stream with more goes on in the next run. */
const MAX_PAGES = 10_000;
/** A value dated further ahead than this is refused (a device clock gone wrong). */
const MAX_FUTURE_MS = 24 * 3_600_000;

/** Retry delay after `failures` consecutive provider failures: 1, 2, 4 … minutes, at most 6 hours. */
export function backoffSeconds(failures: number): number {
  return Math.min(MAX_BACKOFF_S, 60 * 2 ** Math.max(0, Math.min(failures - 1, 20)));
}

type Counts = {
  read: number;
  imported: number;
  skipped: number;
  rejected: number;
  rejected_reasons: Record<string, number>;
};

function asCounts(value: unknown): Counts {
  const v = (value ?? {}) as Partial<Counts>;
  return {
    read: Number(v.read ?? 0),
    imported: Number(v.imported ?? 0),
    skipped: Number(v.skipped ?? 0),
    rejected: Number(v.rejected ?? 0),
    rejected_reasons: { ...(v.rejected_reasons ?? {}) },
  };
}

function reject(counts: Counts, reason: string, n = 1) {
  if (n <= 0) return;
  counts.read += n;
  counts.rejected += n;
  counts.rejected_reasons[reason] = (counts.rejected_reasons[reason] ?? 0) + n;
}

/** The values of a page that may be stored; the others are counted as rejected with a reason. */
function acceptedValues(
  provider: ProviderDef,
  values: MappedValue[],
  counts: Counts,
  now: Date,
): DashboardValue[] {
  const rows: DashboardValue[] = [];
  for (const v of values) {
    if (v.value === null || v.value === undefined) continue;
    if (typeof v.value !== "number" || !Number.isFinite(v.value) || !v.at || Number.isNaN(v.at.getTime())) {
      reject(counts, "malformed");
      continue;
    }
    const [min, max] = METRICS[v.metric].range;
    if (v.value < min || v.value > max) {
      reject(counts, "out_of_range");
      continue;
    }
    if (v.at.getTime() > now.getTime() + MAX_FUTURE_MS) {
      reject(counts, "in_future");
      continue;
    }
    counts.read++;
    rows.push({ metric: v.metric, at: v.at, value: v.value, source: provider.source, clientId: v.clientId });
  }
  return rows;
}

async function storeReadings(deps: ConnectorDeps, userId: string, readings: MappedReading[], counts: Counts) {
  for (const r of readings) {
    const input = BpReadingCreateSchema.safeParse({
      client_id: r.clientId,
      systolic: Math.round(r.systolic),
      diastolic: Math.round(r.diastolic),
      pulse: r.pulse === null ? null : Math.round(r.pulse),
      measured_at: r.measuredAt.toISOString(),
      time_zone: r.timeZone,
    });
    if (!input.success) {
      reject(counts, "out_of_range");
      continue;
    }
    counts.read++;
    const { created } = await createReading(deps.ctx, userId, input.data);
    if (created) counts.imported++;
    else counts.skipped++;
  }
}

async function timeZoneOf(db: Db, userId: string): Promise<string> {
  const [row] = await db.select({ tz: users.timezone }).from(users).where(eq(users.id, userId));
  return row?.tz ?? "UTC";
}

/** Runs the streams of one connection; provider errors propagate to `syncConnection`. */
async function runStreams(
  deps: ConnectorDeps,
  provider: ProviderDef,
  connection: ConnectionRow,
  tokens: TokenSet,
) {
  const { db } = deps.ctx.database;
  const settings = providerSettings(deps.ctx.config, provider.key);
  if (!settings) throw new Error("provider not configured");
  const now = deps.clock();
  let current = tokens;
  const api = createProviderApi(
    provider,
    settings.baseUrl,
    {
      current: () => current,
      async refresh() {
        current = await refreshTokens(provider, settings.credentials, settings.baseUrl, current);
        await saveTokens(db, sealTokens(deps.box, connection.id, connection.userId, current));
        return current;
      },
    },
    () => deps.clock().getTime(),
    deps.pacer,
  );
  const streamCtx: StreamContext = {
    api,
    tz: await timeZoneOf(db, connection.userId),
    now,
    historyStart: connection.historyStart,
    externalUserId: connection.externalUserId,
  };
  const counts = asCounts(connection.runReport ?? EMPTY_RUN_REPORT);
  for (const stream of provider.streams) {
    let cursor: unknown = connection.cursors[stream.key] ?? null;
    for (let n = 0; n < MAX_PAGES; n++) {
      let page: Awaited<ReturnType<typeof stream.fetchPage>>;
      try {
        page = await stream.fetchPage(streamCtx, cursor);
      } catch (error) {
        // A scope the person did not grant (403) leaves this stream out; the others go on.
        if (error instanceof ProviderError && error.code === "forbidden") {
          deps.ctx.log.info(
            { provider: provider.key, stream: stream.key },
            "connector stream forbidden, skipped",
          );
          break;
        }
        throw error;
      }
      reject(counts, "malformed", page.malformed ?? 0);
      for (const [reason, n] of Object.entries(page.refused ?? {})) reject(counts, reason, n);
      const rows = acceptedValues(provider, page.values, counts, now);
      await storeReadings(deps, connection.userId, page.readings ?? [], counts);
      await db.transaction(async (t) => {
        const tx = t as unknown as Db;
        const written = await recordValues(tx, connection.userId, rows);
        counts.imported += written;
        counts.skipped += rows.length - written;
        if (!(await commitPage(tx, connection.id, stream.key, page.next, counts))) throw new ConnectionGone();
      });
      await page.afterCommit?.();
      cursor = page.next;
      if (page.done) break;
    }
  }
  return counts;
}

/**
 * Syncs one connection now, unless it is already being synced, is backing off or is gone. Answers what
 * happened; the connection row says the same to the person (state, report, error, retry time).
 */
export async function syncConnection(deps: ConnectorDeps, connectionId: string): Promise<SyncOutcome> {
  const release = await deps.lock.tryAcquire(connectionId);
  if (!release) return { kind: "skipped", reason: "running" };
  const { db } = deps.ctx.database;
  try {
    const connection = await findConnectionById(db, connectionId);
    if (connection?.status !== "active") return { kind: "skipped", reason: "inactive" };
    const now = deps.clock();
    if (connection.retryAt && connection.retryAt > now) return { kind: "skipped", reason: "waiting" };
    const provider = findProvider(connection.provider);
    if (!provider || !providerSettings(deps.ctx.config, provider.key))
      return { kind: "skipped", reason: "not_configured" };
    if (isRetired(provider, now)) return { kind: "skipped", reason: "retired" };
    const tokens = await openTokens(db, deps.box, connection);
    if (!tokens) {
      await markReconnectNeeded(db, connection.id, now);
      return { kind: "reconnect_needed" };
    }
    const running = await markRunning(db, connection.id, now);
    if (!running) return { kind: "skipped", reason: "inactive" };
    const target = { userId: connection.userId, connectionId: connection.id };
    try {
      const counts = await runStreams(deps, provider, running, tokens);
      const state = await finishRun(db, connection.id, running.syncRequestedAt, deps.clock());
      deps.ctx.log.info({ provider: provider.key, connectionId, report: counts }, "connector sync finished");
      if (state === "queued") await deps.enqueue(target);
      return { kind: "done", report: counts };
    } catch (error) {
      if (error instanceof ConnectionGone) return { kind: "skipped", reason: "disconnected" };
      return await settleFailure(deps, running, error);
    }
  } finally {
    await release();
  }
}

async function settleFailure(
  deps: ConnectorDeps,
  connection: ConnectionRow,
  error: unknown,
): Promise<SyncOutcome> {
  const { db } = deps.ctx.database;
  const now = deps.clock();
  const target = { userId: connection.userId, connectionId: connection.id };
  if (error instanceof ProviderError && error.code === "reconnect_needed") {
    deps.ctx.log.warn(
      { provider: connection.provider, connectionId: connection.id, reason: error.message },
      "connector token refused",
    );
    await markReconnectNeeded(db, connection.id, now);
    return { kind: "reconnect_needed" };
  }
  // A rate limit with the provider's word on when it resets waits exactly that long; one without (Google
  // sends none) backs off exponentially like a failure, as the provider asks.
  if (error instanceof ProviderError && error.code === "rate_limited" && error.retryAfterS > 0) {
    const retryAt = new Date(now.getTime() + error.retryAfterS * 1000);
    await deferRun(db, connection.id, { code: "rate_limited", retryAt, countsAsFailure: false, now });
    await deps.enqueue(target, retryAt);
    return { kind: "deferred", code: "rate_limited", retryAt };
  }
  const code =
    error instanceof ProviderError && error.code !== "forbidden" ? error.code : "unexpected_response";
  if (!(error instanceof ProviderError))
    deps.ctx.log.error({ err: error, connectionId: connection.id }, "connector sync failed");
  else
    deps.ctx.log.warn(
      { provider: connection.provider, connectionId: connection.id, reason: error.message },
      "connector sync failed",
    );
  const retryAt = new Date(now.getTime() + backoffSeconds(connection.failures + 1) * 1000);
  await deferRun(db, connection.id, { code, retryAt, countsAsFailure: true, now });
  await deps.enqueue(target, retryAt);
  return { kind: "deferred", code, retryAt };
}
