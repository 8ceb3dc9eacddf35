import type { AppContext } from "../../lib/context.ts";
import { findProvider, isRetired, providerSettings } from "./connectors.providers.ts";
import {
  deleteExpiredAuthorizations,
  dueConnections,
  findConnectionById,
  requestSyncOf,
} from "./connectors.repo.ts";
import { type ConnectorDeps, syncConnection } from "./connectors.sync.ts";

/**
 * The connectors' background jobs on the shared runner (lib/jobs.ts): one sync of one connection, and a
 * scheduler every five minutes that queues the connections due (by CONNECTORS_SYNC_INTERVAL_MINUTES,
 * back from a backoff, or left mid-sync by a process that stopped). The scheduler also runs once when
 * the server starts, so a sync cut short by a restart resumes at once from its cursor.
 */
export const SYNC_JOB = "connectors.sync";
export const SCHEDULE_JOB = "connectors.schedule";

/** A `queued` or `running` row older than this is offered again (the sync lock tells a live run apart). */
const STALE_AFTER_MS = 10 * 60_000;

export type SyncJobData = { userId: string; connectionId: string };

export async function scheduleDueSyncs(deps: ConnectorDeps, includeFresh: boolean): Promise<number> {
  const { db } = deps.ctx.database;
  const now = deps.clock();
  await deleteExpiredAuthorizations(db, now);
  const due = await dueConnections(db, {
    now,
    intervalMs: deps.ctx.config.CONNECTORS_SYNC_INTERVAL_MINUTES * 60_000,
    staleAfterMs: STALE_AFTER_MS,
    includeFresh,
  });
  for (const connection of due) {
    const provider = findProvider(connection.provider);
    // A provider whose API is off, or no longer configured, is left alone (its page says why).
    if (!provider || isRetired(provider, now) || !providerSettings(deps.ctx.config, provider.key)) continue;
    // A due sync is a new request; a run left waiting, queued or cut short is only offered again — a
    // new request there would make the resumed run queue a second one when it ends, and that second
    // run's report (everything already stored) would hide the resumed run's.
    if (connection.syncState === "idle") await requestSyncOf(db, connection.id, now);
    await deps.enqueue({ userId: connection.userId, connectionId: connection.id });
  }
  return due.length;
}

/** Defines both jobs; answers how to queue a sync (for the deps every part of the module shares). */
export function defineConnectorJobs(ctx: Pick<AppContext, "services">, deps: () => ConnectorDeps) {
  const sync = ctx.services.jobs.defineJob<SyncJobData>(
    SYNC_JOB,
    async (data) => {
      // Every sync is asked for by leaving the row queued, waiting or running; an idle row means a run
      // ended since this job was queued (a retried job beside the scheduler's after a restart).
      const d = deps();
      if ((await findConnectionById(d.ctx.database.db, data.connectionId))?.syncState === "idle") return;
      await syncConnection(d, data.connectionId);
    },
    // Provider failures are handled inside (backoff, Retry-After); a retry here is for the database.
    { retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 3600 },
  );
  const schedule = ctx.services.jobs.defineJob<{ fresh?: boolean }>(
    SCHEDULE_JOB,
    async (data) => {
      await scheduleDueSyncs(deps(), data.fresh === true);
    },
    { cron: "*/5 * * * *", retryLimit: 1 },
  );
  return {
    async enqueue(target: SyncJobData, startAfter?: Date) {
      await sync.send(target, startAfter ? { startAfter } : {});
    },
    async scheduleNow() {
      await schedule.send({ fresh: true });
    },
  };
}
