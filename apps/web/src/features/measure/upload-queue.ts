/** A measurement waiting to reach the server; `clientId` makes every retry the same upload. */
export type QueuedUpload<T> = { clientId: string; payload: T; queuedAtMs: number; attempts: number };

/** What one upload attempt came to. */
export type SendOutcome =
  /** Stored (or already stored: the server recognised the client id). */
  | { kind: "sent"; id: string }
  /** The server refused the measurement itself (a 4xx): retrying would not help. */
  | { kind: "rejected"; reason: string }
  /** No connection or the server is down: keep it and try again later. */
  | { kind: "retry" };

export type QueueStorage = Pick<Storage, "getItem" | "setItem">;

export type UploadQueueOptions<T> = {
  storage: QueueStorage;
  send: (item: QueuedUpload<T>) => Promise<SendOutcome>;
  /** Called after each item leaves the queue. */
  onSettled?: (item: QueuedUpload<T>, outcome: Exclude<SendOutcome, { kind: "retry" }>) => void;
  /** Serialises flushes across tabs (Web Locks) so two tabs never send the same item at once. */
  withLock?: <R>(run: () => Promise<R>) => Promise<R>;
  key?: string;
  now?: () => number;
};

export const QUEUE_STORAGE_KEY = "tonus.measure.upload-queue";

/**
 * The offline queue for measurements: an upload is written to storage before it is sent and removed
 * only when the server has it (or refused it for good). Flushes never overlap, so each queued
 * measurement is sent by one flush at a time; a retry after a lost answer carries the same client id,
 * and the server stores it once.
 */
export function createUploadQueue<T>(options: UploadQueueOptions<T>) {
  const key = options.key ?? QUEUE_STORAGE_KEY;
  const now = options.now ?? Date.now;
  const withLock = options.withLock ?? ((run) => run());
  let flushing: Promise<void> | null = null;
  let again = false;

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

  async function flushOnce(): Promise<void> {
    for (const item of read()) {
      // Another tab may have sent it while this one waited for the lock.
      if (!read().some((queued) => queued.clientId === item.clientId)) continue;
      let outcome: SendOutcome;
      try {
        outcome = await options.send(item);
      } catch {
        outcome = { kind: "retry" };
      }
      if (outcome.kind === "retry") {
        update(item.clientId, (queued) => ({ ...queued, attempts: queued.attempts + 1 }));
        return; // Offline or down: the rest would fail the same way.
      }
      update(item.clientId, () => null);
      options.onSettled?.(item, outcome);
    }
  }

  /** Sends everything queued; calls while a flush runs make it go round once more instead of overlapping. */
  function flush(): Promise<void> {
    if (flushing) {
      again = true;
      return flushing;
    }
    flushing = (async () => {
      try {
        do {
          again = false;
          await withLock(flushOnce);
        } while (again);
      } finally {
        flushing = null;
      }
    })();
    return flushing;
  }

  return {
    /** Keeps the upload (replacing one with the same client id) and tries to send it. */
    enqueue(clientId: string, payload: T): Promise<void> {
      const items = read().filter((item) => item.clientId !== clientId);
      items.push({ clientId, payload, queuedAtMs: now(), attempts: 0 });
      write(items);
      return flush();
    },
    flush,
    list: read,
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
