import { sql } from "drizzle-orm";
import { type DrizzleTransactionLike, fromDrizzle, fromPglite, PgBoss, type QueueOptions } from "pg-boss";
import type { Database, Db } from "../db/client.ts";
import type { Logger } from "./logger.ts";

/** What a handler learns about the run besides its data. */
export type JobRun = { id: string; retryCount: number };

export type JobHandler<T> = (data: T, run: JobRun) => Promise<void>;

export type SendOptions = {
  /** Send inside this Drizzle transaction: the job exists only if the transaction commits. */
  tx?: Db;
  /** Run no earlier than this (a Date, or seconds from now). */
  startAfter?: Date | number;
  /** At most one queued job with this key at a time (a second send returns null). */
  singletonKey?: string;
};

/** A defined job: its name and a typed `send`. */
export type JobRef<T extends object> = {
  name: string;
  send: (data: T, options?: SendOptions) => Promise<string | null>;
};

export type JobOptions = Pick<
  QueueOptions,
  "retryLimit" | "retryDelay" | "retryBackoff" | "retryDelayMax" | "expireInSeconds" | "heartbeatSeconds"
> & {
  /** Also run on this cron schedule (UTC, minute resolution), once across all instances. */
  cron?: string;
  /**
   * Jobs fetched at once (default 1). A full batch is followed by the next fetch at once instead of after
   * the polling interval, so a queue of many small jobs (one e-mail each) drains quickly. A failing job
   * fails, and retries, its whole batch: only for handlers that are idempotent per job.
   */
  batchSize?: number;
};

/**
 * Background jobs on pg-boss, in the application's own database: on PGlite through `fromPglite` on the
 * same instance, on PostgreSQL through pg-boss's own small pool. Jobs live in the `pgboss` schema, so
 * they survive restarts; they run at least once, so handlers must be idempotent.
 *
 * Modules call `defineJob` while they register (before the app is ready); `start` creates the queues and
 * begins working them, `stop` finishes running jobs and stops polling (the app calls both). A `send`
 * before the app is ready boots the runner early (workers are added when the app is ready), after which
 * no job can be defined any more.
 */
export type JobRunner = {
  defineJob: <T extends object>(name: string, handler: JobHandler<T>, options?: JobOptions) => JobRef<T>;
  /** Sends to a job by name (for jobs another module defined). */
  send: (name: string, data: object, options?: SendOptions) => Promise<string | null>;
  start: (opts?: { work?: boolean }) => Promise<void>;
  /**
   * Deletes the queued (not yet running) jobs about one person: by convention a job that concerns a user
   * carries `userId` in its data. Account deletion calls this once the rows are gone.
   */
  deleteQueuedJobsOf: (userId: string) => Promise<number>;
  stop: () => Promise<void>;
  readonly started: boolean;
  /** pg-boss itself, for inspection in tests and the operator CLI. */
  readonly boss: PgBoss;
};

/** Default retry policy: 5 retries with exponential backoff from 5 s, capped at 10 minutes. */
const DEFAULT_OPTIONS: JobOptions = { retryLimit: 5, retryDelay: 5, retryBackoff: true, retryDelayMax: 600 };
const NAME_RE = /^[a-z][a-z0-9_.-]{0,99}$/;

type Definition = { handler: JobHandler<object>; options: JobOptions };

export type JobRunnerOptions = {
  /**
   * This process alone uses the database (the embedded one, under the data-directory lock): a job still
   * `active` at start was being worked by a process that died, so it is failed and retried at once
   * instead of waiting out its expiry.
   */
  isSoleProcess?: boolean;
};

/** How often pg-boss looks for jobs whose worker stopped sending heartbeats (PostgreSQL). */
const SUPERVISE_INTERVAL_S = 15;

export function createJobRunner(
  database: Database,
  log: Logger,
  runnerOptions: JobRunnerOptions = {},
): JobRunner {
  const boss = database.pglite
    ? new PgBoss({ db: fromPglite(database.pglite), useListenNotify: true })
    : new PgBoss({
        connectionString: connectionStringOf(database),
        max: 3,
        useListenNotify: true,
        application_name: "tonus-jobs",
        superviseIntervalSeconds: SUPERVISE_INTERVAL_S,
      });
  boss.on("error", (err) => log.error({ err }, "job runner error"));
  boss.on("warning", (warning) => log.warn({ warning }, "job runner warning"));

  const definitions = new Map<string, Definition>();
  let started = false;
  let stopped = false;
  let working = false;
  let starting: Promise<void> | undefined;

  async function ensureQueue(name: string, options: JobOptions): Promise<void> {
    const { cron: _cron, batchSize: _batchSize, heartbeatSeconds, ...queueOptions } = options;
    // Heartbeats tell another server that a worker died (PostgreSQL). The embedded database has one
    // process, which recovers its own jobs at start; there a long transaction would also hold back the
    // heartbeat and get a live job failed.
    const queue = {
      ...queueOptions,
      ...(heartbeatSeconds && !database.pglite ? { heartbeatSeconds } : {}),
      notify: true,
    };
    if (await boss.getQueue(name)) {
      await boss.updateQueue(name, queue);
      return;
    }
    try {
      await boss.createQueue(name, queue);
    } catch (error) {
      // Another instance created it between our check and our insert: the queue exists, which is the goal.
      if (!(await boss.getQueue(name))) throw error;
    }
  }

  async function send(name: string, data: object, options: SendOptions = {}): Promise<string | null> {
    if (!definitions.has(name)) throw new Error(`Unknown job ${name}: define it first`);
    if (stopped) throw new Error(`Job ${name} sent after the job runner stopped`);
    if (!started) {
      // Starting needs the database; inside a PGlite transaction that would wait on itself forever.
      if (options.tx) throw new Error(`Job ${name} sent in a transaction before the job runner started`);
      await runner.start({ work: false });
    }
    return boss.send(name, data, {
      ...(options.tx ? { db: fromDrizzle(options.tx as unknown as DrizzleTransactionLike, sql) } : {}),
      ...(options.startAfter !== undefined ? { startAfter: options.startAfter } : {}),
      ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
    });
  }

  /** Jobs left `active` by a process that died: failed (a retry, as pg-boss counts it) and due at once. */
  async function retryOrphanedJobs(): Promise<void> {
    const { rows } = await database.query<{ name: string; id: string }>(
      "select name, id::text as id from pgboss.job where state = 'active'",
    );
    for (const { name, id } of rows) {
      if (!definitions.has(name)) continue;
      await boss.fail(name, id, { message: "the process working this job stopped" });
      await boss.update(name, undefined, { id, startAfter: new Date() });
    }
    if (rows.length > 0)
      log.warn({ jobs: rows.length }, "jobs left running by a stopped process are retried");
  }

  const runner: JobRunner = {
    boss,
    get started() {
      return started;
    },
    defineJob<T extends object>(name: string, handler: JobHandler<T>, options: JobOptions = {}): JobRef<T> {
      if (!NAME_RE.test(name)) throw new Error(`Invalid job name ${name}`);
      if (definitions.has(name)) throw new Error(`Job ${name} is defined twice`);
      if (started) throw new Error(`Job ${name} defined after the job runner started`);
      const merged = { ...DEFAULT_OPTIONS, ...options };
      // pg-boss accepts a maximum delay only with backoff.
      if (!merged.retryBackoff) delete merged.retryDelayMax;
      definitions.set(name, { handler: handler as JobHandler<object>, options: merged });
      return { name, send: (data, opts) => send(name, data, opts) };
    },
    send,
    async start(opts = {}) {
      // Booting (schema, queues, schedules) happens once; working is added by the first start that asks.
      starting ??= (async () => {
        await boss.start();
        for (const [name, def] of definitions) {
          await ensureQueue(name, def.options);
          if (def.options.cron) await boss.schedule(name, def.options.cron, {}, { tz: "UTC" });
        }
        if (runnerOptions.isSoleProcess) await retryOrphanedJobs();
        started = true;
      })();
      await starting;
      if (opts.work === false || working) return;
      working = true;
      for (const [name, def] of definitions) {
        const batchSize = def.options.batchSize ?? 1;
        // NOTIFY wakes workers for new jobs; retries and delayed jobs wait for the next poll.
        await boss.work<object>(
          name,
          {
            pollingIntervalSeconds: 2,
            notifyPollingIntervalSeconds: 5,
            batchSize,
            burstWhenBatchFull: batchSize > 1,
          },
          async (jobs) => {
            for (const job of jobs) {
              try {
                await def.handler(job.data, { id: job.id, retryCount: job.retryCount });
              } catch (err) {
                log.warn({ err, job: name, jobId: job.id, retryCount: job.retryCount }, "job failed");
                throw err;
              }
            }
          },
        );
      }
    },
    async deleteQueuedJobsOf(userId) {
      if (!started) await runner.start({ work: false });
      let deleted = 0;
      for (const name of definitions.keys()) {
        const jobs = await boss.findJobs<{ userId?: string }>(name, { data: { userId }, queued: true });
        if (jobs.length === 0) continue;
        await boss.deleteJob(
          name,
          jobs.map((j) => j.id),
        );
        deleted += jobs.length;
      }
      return deleted;
    },
    async stop() {
      stopped = true;
      if (!starting) return;
      await starting.catch(() => {});
      // Shorter than main.ts's 10 s shutdown limit, so the database still closes cleanly after it.
      await boss.stop({ graceful: true, timeout: 7_000, close: !database.pglite });
      started = false;
    },
  };
  return runner;
}

function connectionStringOf(database: Database): string {
  const url = database.connectionString;
  if (!url) throw new Error("PostgreSQL database without a connection string");
  return url;
}
