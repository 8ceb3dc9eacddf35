/**
 * A measurement waiting to reach the server: `clientId` makes every retry the same upload, `ownerId`
 * is the account it was taken in (only that account ever sends it).
 */
export type QueuedUpload<T> = {
  clientId: string;
  ownerId: string;
  payload: T;
  queuedAtMs: number;
  attempts: number;
};

/** What one upload attempt came to. */
export type SendOutcome =
  /** Stored (or already stored: the server recognised the client id). */
  | { kind: "sent"; id: string }
  /** The server refused the measurement itself (a 4xx): retrying would not help. */
  | { kind: "rejected"; reason: string }
  /** No connection, the server is down or asks to try again (a conflict): keep it and try later. */
  | { kind: "retry" };

export type QueueStorage = Pick<Storage, "getItem" | "setItem">;

export type UploadQueueOptions<T> = {
  storage: QueueStorage;
  send: (item: QueuedUpload<T>) => Promise<SendOutcome>;
  /** The signed-in account, or null: a flush sends only this account's items, and none without one. */
  owner: () => string | null;
  /** Called after each item leaves the queue. */
  onSettled?: (item: QueuedUpload<T>, outcome: Exclude<SendOutcome, { kind: "retry" }>) => void;
  /** Serialises flushes across tabs (Web Locks) so two tabs never send the same item at once. */
  withLock?: <R>(run: () => Promise<R>) => Promise<R>;
  /**
   * Schedules the next try after an item had to wait (`retry`) while the browser is online; without it
   * the queue waits for the next flush (the "online" event, the next start, the next save).
   */
  scheduleRetry?: (delayMs: number, flush: () => void) => void;
  /** Whether the browser thinks it is online (no retry is scheduled offline: "online" will come). */
  isOnline?: () => boolean;
  key?: string;
  now?: () => number;
};

export const QUEUE_STORAGE_KEY = "tonus.measure.upload-queue";

/** The wait before try `attempts + 1` of an item: 5 s, doubling, at most 5 minutes. */
export function retryDelayMs(attempts: number): number {
  return Math.min(300_000, 5_000 * 2 ** Math.max(0, attempts - 1));
}

/**
 * The offline queue for measurements: an upload is written to storage before it is sent and removed
 * only when the server has it (or refused it for good). Flushes never overlap, so each queued
 * measurement is sent by one flush at a time; a retry after a lost answer carries the same client id,
 * and the server stores it once. Each item belongs to the account it was taken in: a flush sends only
 * the signed-in account's items, so one person's measurements never reach another's account.
 */
export function createUploadQueue<T>(options: UploadQueueOptions<T>) {
  const key = options.key ?? QUEUE_STORAGE_KEY;
  const now = options.now ?? Date.now;
  const withLock = options.withLock ?? ((run) => run());
  let flushing: Promise<void> | null = null;
  let again = false;
  let retryScheduled = false;

  function read(): QueuedUpload<T>[] {
    try {
      const parsed: unknown = JSON.parse(options.storage.getItem(key) ?? "[]");
      return Array.isArray(parsed) ? (parsed as QueuedUpload<T>[]) : [];
    } catch {
      return [];
    }
  }

  function write(items: QueuedUpload<T>[]): void {
    options.storage.setItem(key, JSON.stringify(items));
  }

  function update(clientId: string, change: (item: QueuedUpload<T>) => QueuedUpload<T> | null): void {
    write(read().flatMap((item) => (item.clientId === clientId ? (change(item) ?? []) : [item])));
  }

  const mine = (owner: string | null) => (owner ? read().filter((item) => item.ownerId === owner) : []);

  /** Sends the owner's items in order; the attempts of the item that has to wait, or null when done. */
  async function flushOnce(): Promise<number | null> {
    const owner = options.owner();
    for (const item of mine(owner)) {
      // Another tab may have sent it while this one waited for the lock.
      if (!read().some((queued) => queued.clientId === item.clientId)) continue;
      // The account may have changed while an earlier item was on its way.
      if (options.owner() !== item.ownerId) return null;
      let outcome: SendOutcome;
      try {
        outcome = await options.send(item);
      } catch {
        outcome = { kind: "retry" };
      }
      if (outcome.kind === "retry") {
        update(item.clientId, (queued) => ({ ...queued, attempts: queued.attempts + 1 }));
        return item.attempts + 1; // Offline, down or busy: the rest would fare the same now.
      }
      update(item.clientId, () => null);
      options.onSettled?.(item, outcome);
    }
    return null;
  }

  function scheduleRetry(attempts: number): void {
    if (!options.scheduleRetry || retryScheduled || options.isOnline?.() === false) return;
    retryScheduled = true;
    options.scheduleRetry(retryDelayMs(attempts), () => {
      retryScheduled = false;
      void flush();
    });
  }

  /** Sends everything queued; calls while a flush runs make it go round once more instead of overlapping. */
  function flush(): Promise<void> {
    if (flushing) {
      again = true;
      return flushing;
    }
    flushing = (async () => {
      try {
        let waiting: number | null = null;
        do {
          again = false;
          waiting = await withLock(flushOnce);
        } while (again && waiting === null);
        if (waiting !== null) scheduleRetry(waiting);
      } finally {
        flushing = null;
      }
    })();
    return flushing;
  }

  return {
    /** Keeps the upload for `ownerId` (replacing one with the same client id) and tries to send it. */
    enqueue(clientId: string, ownerId: string, payload: T): Promise<void> {
      const items = read().filter((item) => item.clientId !== clientId);
      items.push({ clientId, ownerId, payload, queuedAtMs: now(), attempts: 0 });
      write(items);
      return flush();
    },
    flush,
    /** The signed-in account's waiting items (none when nobody is signed in). */
    list: () => mine(options.owner()),
    has: (clientId: string) => read().some((item) => item.clientId === clientId),
  };
}

export type UploadQueue<T> = ReturnType<typeof createUploadQueue<T>>;

/** Web Locks where the browser has them, so two tabs never flush at once; plain run otherwise. */
export function browserLock<R>(run: () => Promise<R>): Promise<R> {
  const locks = typeof navigator === "undefined" ? undefined : navigator.locks;
  if (!locks) return run();
  return locks.request(QUEUE_STORAGE_KEY, run) as Promise<R>;
}
