import { and, asc, eq, inArray, lt, notExists } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { outboxDeliveries, outboxEvents } from "../db/schema.ts";
import type { JobRef, JobRunner } from "./jobs.ts";
import type { Logger } from "./logger.ts";

/** What a module announces: a measurement created, a reading added, a subscription changed. */
export type NewDomainEvent = { type: string; userId: string | null; payload: Record<string, unknown> };

export type DomainEvent = NewDomainEvent & { id: number; createdAt: Date };

/**
 * A subscriber handles an event inside the transaction that records its delivery: what it writes
 * through `tx` commits together with "delivered", so it takes effect exactly once. It must use `tx`, not
 * the app's `db` (on PGlite a second connection does not exist and would wait forever). Side effects
 * outside the database (an HTTP call) can repeat when the transaction fails after them — several events
 * share one, so another event's failure counts too: make them idempotent.
 */
export type Subscriber = {
  /** Stable name: the delivery ledger is keyed by it, so renaming it redelivers everything. */
  name: string;
  types: readonly string[];
  handle: (tx: Db, event: DomainEvent) => Promise<void>;
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
  /** Delivers everything pending now (the dispatch job's body; tests and tools may call it). */
  dispatchPending: () => Promise<void>;
  /** Deletes events older than the retention, with their delivery records; answers how many went. */
  pruneOld: (now?: Date) => Promise<number>;
};

/** How long events are kept: a subscriber that has failed this long has its older events dropped. */
export const OUTBOX_RETENTION_DAYS = 30;

const DISPATCH_JOB = "events.dispatch";
const BATCH = 100;
/**
 * How long one delivery transaction may take in events handled: long enough that its commit is a small
 * share, short enough not to hold up requests (on PGlite a transaction has the database to itself).
 */
const CHUNK_MS = 20;
const TYPE_RE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

export function createEventBus(db: Db, jobs: JobRunner, log: Logger): EventBus {
  const subscribers = new Map<string, Subscriber>();

  async function deliverTo(subscriber: Subscriber): Promise<boolean> {
    for (;;) {
      const pending = await db
        .select()
        .from(outboxEvents)
        .where(
          and(
            inArray(outboxEvents.type, [...subscriber.types]),
            notExists(
              db
                .select({ one: outboxDeliveries.eventId })
                .from(outboxDeliveries)
                .where(
                  and(
                    eq(outboxDeliveries.eventId, outboxEvents.id),
                    eq(outboxDeliveries.subscriber, subscriber.name),
                  ),
                ),
            ),
          ),
        )
        .orderBy(asc(outboxEvents.id))
        .limit(BATCH);
      if (pending.length === 0) return true;
      const events = pending.map(
        (row): DomainEvent => ({
          id: row.id,
          type: row.type,
          userId: row.userId,
          payload: row.payload as Record<string, unknown>,
          createdAt: row.createdAt,
        }),
      );
      let next = 0;
      while (next < events.length) {
        const handled = await deliverChunk(subscriber, events.slice(next));
        if (handled > 0) next += handled;
        else if (await deliverOneByOne(subscriber, events.slice(next))) next = events.length;
        else return false;
      }
    }
  }

  /** Claims the event's ledger row and hands it to the subscriber in `tx`; a claimed one is skipped. */
  async function deliverIn(tx: Db, subscriber: Subscriber, event: DomainEvent): Promise<void> {
    // The ledger row first: a concurrent dispatcher on the same event waits here, then skips it.
    const claimed = await tx
      .insert(outboxDeliveries)
      .values({ eventId: event.id, subscriber: subscriber.name })
      .onConflictDoNothing()
      .returning({ eventId: outboxDeliveries.eventId });
    if (claimed.length > 0) await subscriber.handle(tx, event);
  }

  /**
   * Delivers the first events of `events` in one transaction, for up to CHUNK_MS (at least one event):
   * a commit per event cost more than most deliveries (an import announces thousands at once). Answers
   * how many were delivered; 0 when one failed and the chunk rolled back.
   */
  async function deliverChunk(subscriber: Subscriber, events: readonly DomainEvent[]): Promise<number> {
    try {
      return await db.transaction(async (t) => {
        const tx = t as unknown as Db;
        const started = performance.now();
        let handled = 0;
        for (const event of events) {
          if (handled > 0 && performance.now() - started > CHUNK_MS) break;
          await deliverIn(tx, subscriber, event);
          handled++;
        }
        return handled;
      });
    } catch {
      return 0;
    }
  }

  /** Delivers each event in a transaction of its own, stopping at the first that fails (kept for a retry). */
  async function deliverOneByOne(subscriber: Subscriber, events: readonly DomainEvent[]): Promise<boolean> {
    for (const event of events) {
      try {
        await db.transaction(async (tx) => deliverIn(tx as unknown as Db, subscriber, event));
      } catch (err) {
        // Keep this subscriber's order: stop at the failed event; the job retries later.
        log.warn(
          { err, subscriber: subscriber.name, eventId: event.id, type: event.type },
          "event delivery failed",
        );
        return false;
      }
    }
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
      for (const e of events) if (!TYPE_RE.test(e.type)) throw new Error(`Invalid event type ${e.type}`);
      await tx
        .insert(outboxEvents)
        .values(events.map((e) => ({ type: e.type, userId: e.userId, payload: e.payload })));
      await dispatch.send({}, { tx });
    },
    subscribe(subscriber) {
      if (subscribers.has(subscriber.name)) throw new Error(`Subscriber ${subscriber.name} registered twice`);
      subscribers.set(subscriber.name, subscriber);
    },
    dispatchPending,
  };
}
