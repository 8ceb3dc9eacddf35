import { inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { arrayLiteral, rowsOf } from "../db/raw.ts";
import { outboxDeliveries, outboxEvents } from "../db/schema.ts";
import type { JobRef, JobRunner } from "./jobs.ts";
import type { Logger } from "./logger.ts";

/** What a module announces: a measurement created, a reading added, a subscription changed. */
export type NewDomainEvent = { type: string; userId: string | null; payload: Record<string, unknown> };

export type DomainEvent = NewDomainEvent & { id: number; createdAt: Date };

/**
 * A subscriber handles events inside the transaction that records their delivery: what it writes
 * through `tx` commits together with "delivered", so it takes effect exactly once. It must use `tx`, not
 * the app's `db` (on PGlite a second connection does not exist and would wait forever). Side effects
 * outside the database (an HTTP call) can repeat when the transaction fails after them: make them
 * idempotent.
 */
export type Subscriber = {
  /** Stable name: the delivery ledger is keyed by it, so renaming it redelivers everything. */
  name: string;
  types: readonly string[];
  /**
   * Handles events in their order: up to a hundred at once (an import announces thousands; a
   * transaction and a few statements per batch instead of per event), one at a time after a batch
   * failed, to find the event that fails.
   */
  handle: (tx: Db, events: readonly DomainEvent[]) => Promise<void>;
};

/**
 * Domain events through a transactional outbox. `emitEvent(tx, …)` writes the event and a dispatch job
 * in the caller's transaction: a rolled-back change announces nothing, a committed one is always
 * delivered, also after a crash or restart. The dispatcher hands each event to each subscriber of its
 * type once, in event order per subscriber, recording the delivery in `outbox_deliveries` in the same
 * transaction as the subscriber's work.
 */
export type EventBus = {
  emitEvent: (tx: Db, event: NewDomainEvent) => Promise<number>;
  /** `emitEvent` for many events at once (a bulk import): one insert and one dispatch job. */
  emitEvents: (tx: Db, events: readonly NewDomainEvent[]) => Promise<void>;
  subscribe: (subscriber: Subscriber) => void;
  /** Asks for a delivery run now (after events were written with `recordEvents`). */
  wake: () => Promise<void>;
  /**
   * Lets the events recorded with `heldBy` go (their writer has ended) and asks for their delivery.
   * Their ids lie before events delivered meanwhile, so this process's next pass looks at the whole
   * outbox (another process's every-minute pass does too).
   */
  releaseEvents: (heldBy: string) => Promise<void>;
  /** Delivers everything pending now (the dispatch job's body; tests and tools may call it). */
  dispatchPending: () => Promise<void>;
  /** Deletes events older than the retention, with their delivery records; answers how many went. */
  pruneOld: (now?: Date) => Promise<number>;
};

/** How long events are kept: a subscriber that has failed this long has its older events dropped. */
export const OUTBOX_RETENTION_DAYS = 30;

const DISPATCH_JOB = "events.dispatch";
const BATCH = 100;
/** How far below the highest delivered event id a dispatch pass starts looking (see `deliverTo`). */
const REORDER_WINDOW = 1000;
/** How often a dispatch pass looks at the whole outbox instead. */
const FULL_SCAN_MS = 60_000;
const TYPE_RE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/**
 * Writes events to the outbox in the caller's transaction without asking for their delivery: for a
 * writer that has no job queue (an import's worker thread), whose owner calls `wake` after the commit.
 * Until then the dispatcher's every-minute pass delivers them; events recorded with `heldBy` wait until
 * `releaseEvents(heldBy)`.
 */
export async function recordEvents(
  tx: Db,
  events: readonly NewDomainEvent[],
  options: { heldBy?: string } = {},
): Promise<void> {
  if (events.length === 0) return;
  for (const e of events) if (!TYPE_RE.test(e.type)) throw new Error(`Invalid event type ${e.type}`);
  // One JSON parameter: an import records a hundred events per batch, and drizzle's builder would bind
  // each of their values on its own.
  const rows = events.map((e) => ({ type: e.type, user_id: e.userId, payload: e.payload }));
  await tx.execute(sql`
    insert into outbox_events (type, user_id, payload, held_by)
    select e.type, e.user_id, e.payload, ${options.heldBy ?? null}::uuid
    from json_to_recordset(${JSON.stringify(rows)}::json) as e(type text, user_id uuid, payload jsonb)`);
}

export function createEventBus(db: Db, jobs: JobRunner, log: Logger): EventBus {
  const subscribers = new Map<string, Subscriber>();

  /** Per subscriber: the highest event id it was handed by this process, and when it last looked at all. */
  const marks = new Map<string, { high: number; fullAt: number }>();

  /**
   * Delivers the subscriber's pending events in id order. Looking for them from the first event on
   * grows with the outbox (every dispatch would read 30 days of delivered events), so a pass starts
   * REORDER_WINDOW ids below the highest one already handed over: a transaction that took its ids
   * earlier but committed later lies within that. Once a minute a pass looks from the start, for
   * anything later still.
   */
  async function deliverTo(subscriber: Subscriber): Promise<boolean> {
    const mark = marks.get(subscriber.name) ?? { high: 0, fullAt: Number.NEGATIVE_INFINITY };
    marks.set(subscriber.name, mark);
    let after = 0;
    if (performance.now() - mark.fullAt < FULL_SCAN_MS) after = Math.max(0, mark.high - REORDER_WINDOW);
    else mark.fullAt = performance.now();
    for (;;) {
      // Plain SQL: an import announces thousands of events, and this runs on the server's main thread.
      // `offset 0` keeps the ledger test a look-up of (event_id, subscriber) for each event: as a join,
      // PostgreSQL's plan after an import (stale statistics) read all of the subscriber's deliveries once
      // and compared every event with each of them, up to 150 ms a page.
      const pending = rowsOf<{
        id: number | string;
        type: string;
        user_id: string | null;
        payload: Record<string, unknown>;
        created_at: string | Date;
      }>(
        await db.execute(sql`
          select e.id, e.type, e.user_id, e.payload, e.created_at from outbox_events e
          where e.id > ${after} and e.held_by is null
            and e.type in (select unnest(${arrayLiteral(subscriber.types)}::text[]))
            and not exists (select 1 from outbox_deliveries d
              where d.event_id = e.id and d.subscriber = ${subscriber.name} offset 0)
          order by e.id limit ${BATCH}`),
      );
      if (pending.length === 0) return true;
      const events = pending.map(
        (row): DomainEvent => ({
          id: Number(row.id),
          type: row.type,
          userId: row.user_id,
          payload: row.payload,
          createdAt: new Date(row.created_at),
        }),
      );
      if (!(await deliverIn(subscriber, events)) && !(await deliverOneByOne(subscriber, events)))
        return false;
      // Every pending event up to this page's last was in this page: the next page starts after it.
      after = (events[events.length - 1] as DomainEvent).id;
      mark.high = Math.max(mark.high, after);
    }
  }

  /**
   * Claims the events' ledger rows and hands the subscriber those it claimed, in one transaction;
   * answers false when that failed (and rolled back). A concurrent dispatcher on the same events waits
   * at the ledger insert, then skips them.
   */
  async function deliverIn(subscriber: Subscriber, events: readonly DomainEvent[]): Promise<boolean> {
    try {
      await db.transaction(async (t) => {
        const tx = t as unknown as Db;
        const claimed = rowsOf<{ event_id: number | string }>(
          await tx.execute(sql`
            insert into outbox_deliveries (event_id, subscriber)
            select unnest(${arrayLiteral(events.map((e) => String(e.id)))}::bigint[]), ${subscriber.name}
            on conflict do nothing
            returning event_id`),
        );
        const ids = new Set(claimed.map((c) => Number(c.event_id)));
        const mine = events.filter((e) => ids.has(e.id));
        if (mine.length > 0) await subscriber.handle(tx, mine);
      });
      return true;
    } catch (err) {
      if (events.length === 1) {
        // Keep this subscriber's order: stop at the failed event; the job retries later.
        const [event] = events as [DomainEvent];
        log.warn(
          { err, subscriber: subscriber.name, eventId: event.id, type: event.type },
          "event delivery failed",
        );
      }
      return false;
    }
  }

  /** Delivers each event in a transaction of its own, stopping at the first that fails (kept for a retry). */
  async function deliverOneByOne(subscriber: Subscriber, events: readonly DomainEvent[]): Promise<boolean> {
    for (const event of events) if (!(await deliverIn(subscriber, [event]))) return false;
    return true;
  }

  async function dispatchPending(): Promise<void> {
    let failed = 0;
    for (const subscriber of subscribers.values()) if (!(await deliverTo(subscriber))) failed++;
    if (failed > 0) throw new Error(`${failed} subscriber(s) failed; retrying`);
  }

  const dispatch: JobRef<Record<string, never>> = jobs.defineJob(
    DISPATCH_JOB,
    async () => dispatchPending(),
    {
      retryLimit: 20,
      retryDelay: 2,
      retryBackoff: true,
      retryDelayMax: 900,
      // A safety net for deliveries whose retries ran out: every minute, whatever is pending goes again.
      cron: "* * * * *",
    },
  );

  async function pruneOld(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - OUTBOX_RETENTION_DAYS * 86_400_000);
    return db.transaction(async (tx) => {
      const old = tx
        .select({ id: outboxEvents.id })
        .from(outboxEvents)
        .where(lt(outboxEvents.createdAt, before));
      await tx.delete(outboxDeliveries).where(inArray(outboxDeliveries.eventId, old));
      const gone = await tx
        .delete(outboxEvents)
        .where(lt(outboxEvents.createdAt, before))
        .returning({ id: outboxEvents.id });
      if (gone.length > 0) log.info({ events: gone.length }, "old domain events pruned");
      return gone.length;
    });
  }

  jobs.defineJob("events.prune", async () => void (await pruneOld()), { cron: "17 3 * * *" });

  return {
    pruneOld,
    async emitEvent(tx, event) {
      if (!TYPE_RE.test(event.type)) throw new Error(`Invalid event type ${event.type}`);
      const [row] = await tx
        .insert(outboxEvents)
        .values({ type: event.type, userId: event.userId, payload: event.payload })
        .returning({ id: outboxEvents.id });
      if (!row) throw new Error("outbox insert returned no row");
      await dispatch.send({}, { tx });
      return row.id;
    },
    async emitEvents(tx, events) {
      if (events.length === 0) return;
      await recordEvents(tx, events);
      await dispatch.send({}, { tx });
    },
    async wake() {
      await dispatch.send({});
    },
    async releaseEvents(heldBy) {
      const released = await db.execute(
        sql`update outbox_events set held_by = null where held_by = ${heldBy} returning 1`,
      );
      if (rowsOf(released).length === 0) return;
      for (const mark of marks.values()) mark.fullAt = Number.NEGATIVE_INFINITY;
      await dispatch.send({});
    },
    subscribe(subscriber) {
      if (subscribers.has(subscriber.name)) throw new Error(`Subscriber ${subscriber.name} registered twice`);
      subscribers.set(subscriber.name, subscriber);
    },
    dispatchPending,
  };
}
