import { afterEach, describe, expect, it, vi } from "vitest";
import { createUploadQueue, type QueuedUpload, retryDelayMs, type SendOutcome } from "./upload-queue.ts";

function memoryStorage() {
  const data = new Map<string, string>();
  return {
    getItem: (key: string) => data.get(key) ?? null,
    setItem: (key: string, value: string) => void data.set(key, value),
  };
}

/** A server that stores each client id once, per account, reachable or not. */
function fakeServer() {
  const stored = new Map<string, { owner: string; rrMs: number[] }>();
  let isOnline = false;
  const send = vi.fn(async (item: QueuedUpload<{ rrMs: number[] }>): Promise<SendOutcome> => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (!isOnline) throw new TypeError("Failed to fetch");
    if (!stored.has(item.clientId)) stored.set(item.clientId, { owner: item.ownerId, ...item.payload });
    return { kind: "sent", id: `m-${item.clientId}` };
  });
  return {
    stored,
    send,
    goOnline: () => {
      isOnline = true;
    },
  };
}

afterEach(() => vi.useRealTimers());

describe("offline upload queue", () => {
  it("keeps a measurement taken offline and uploads it exactly once when the connection returns", async () => {
    const storage = memoryStorage();
    const server = fakeServer();
    const settled = vi.fn();
    const owner = () => "alice";
    const queue = createUploadQueue({ storage, send: server.send, owner, onSettled: settled });

    await queue.enqueue("a", "alice", { rrMs: [800, 810] });
    expect(queue.list()).toMatchObject([{ clientId: "a", ownerId: "alice", attempts: 1 }]);
    expect(server.stored.size).toBe(0);

    // The page is reloaded while offline: a new queue over the same storage still has it.
    const reloaded = createUploadQueue({ storage, send: server.send, owner, onSettled: settled });
    expect(reloaded.has("a")).toBe(true);

    server.goOnline();
    // "online" fires, the app starts on another page, and a second tab flushes too: all at once.
    await Promise.all([reloaded.flush(), reloaded.flush(), reloaded.flush()]);
    expect(server.stored.size).toBe(1);
    expect(server.send.mock.calls.filter(([item]) => item.clientId === "a")).toHaveLength(2);
    expect(reloaded.list()).toEqual([]);
    expect(settled).toHaveBeenCalledTimes(1);
    expect(settled.mock.calls[0]?.[1]).toEqual({ kind: "sent", id: "m-a" });

    await reloaded.flush();
    expect(server.send).toHaveBeenCalledTimes(2);
  });

  it("sends an account's measurements only while that account is signed in, never into another", async () => {
    const storage = memoryStorage();
    const server = fakeServer();
    server.goOnline();
    let signedIn: string | null = "alice";
    const queue = createUploadQueue({ storage, send: server.send, owner: () => signedIn });
    // Alice's measurement waits (say her session ended); then Bob signs in on the same browser.
    storage.setItem(
      "tonus.measure.upload-queue",
      JSON.stringify([
        { clientId: "a1", ownerId: "alice", payload: { rrMs: [1] }, queuedAtMs: 1, attempts: 3 },
        { clientId: "legacy", payload: { rrMs: [2] }, queuedAtMs: 2, attempts: 0 },
      ]),
    );
    signedIn = "bob";
    await queue.enqueue("b1", "bob", { rrMs: [3] });
    expect([...server.stored.entries()]).toEqual([["b1", { owner: "bob", rrMs: [3] }]]);
    // Bob sees only his own waiting list; Alice's stays on the device, untouched.
    expect(queue.list()).toEqual([]);
    expect(queue.has("a1")).toBe(true);
    signedIn = null;
    await queue.flush();
    expect(server.send).toHaveBeenCalledTimes(1);
    // Alice signs in again: hers goes to her account; an item without an owner is never sent.
    signedIn = "alice";
    await queue.flush();
    expect(server.stored.get("a1")).toEqual({ owner: "alice", rrMs: [1] });
    expect(server.send.mock.calls.map(([item]) => item.clientId)).toEqual(["b1", "a1"]);
    expect(queue.has("legacy")).toBe(true);
  });

  it("stops sending when the account changes in the middle of a flush", async () => {
    const storage = memoryStorage();
    let signedIn: string | null = "alice";
    const send = vi.fn(async (): Promise<SendOutcome> => {
      signedIn = "bob"; // Alice logged out and Bob signed in while the first upload was on its way.
      return { kind: "sent", id: "x" };
    });
    const queue = createUploadQueue({ storage, send, owner: () => signedIn });
    storage.setItem(
      "tonus.measure.upload-queue",
      JSON.stringify([
        { clientId: "a1", ownerId: "alice", payload: {}, queuedAtMs: 1, attempts: 0 },
        { clientId: "a2", ownerId: "alice", payload: {}, queuedAtMs: 2, attempts: 0 },
      ]),
    );
    await queue.flush();
    expect(send).toHaveBeenCalledTimes(1);
    expect(queue.has("a2")).toBe(true);
  });

  it("keeps order, stops at the first failure and drops uploads the server refuses for good", async () => {
    const storage = memoryStorage();
    const outcomes: SendOutcome[] = [{ kind: "rejected", reason: "validation_failed" }, { kind: "retry" }];
    const send = vi.fn(
      async (_item: QueuedUpload<unknown>): Promise<SendOutcome> =>
        outcomes.shift() ?? { kind: "sent", id: "x" },
    );
    const queue = createUploadQueue({ storage, send, owner: () => "u", withLock: (run) => run() });
    storage.setItem(
      "tonus.measure.upload-queue",
      JSON.stringify([
        { clientId: "bad", ownerId: "u", payload: {}, queuedAtMs: 1, attempts: 0 },
        { clientId: "b", ownerId: "u", payload: {}, queuedAtMs: 2, attempts: 0 },
        { clientId: "c", ownerId: "u", payload: {}, queuedAtMs: 3, attempts: 0 },
      ]),
    );
    await queue.flush();
    expect(send.mock.calls.map(([item]) => item.clientId)).toEqual(["bad", "b"]);
    expect(queue.list().map((item) => item.clientId)).toEqual(["b", "c"]);
    await queue.flush();
    expect(queue.list()).toEqual([]);
  });

  it("tries again by itself while online after an item had to wait (a conflict, a busy server)", async () => {
    vi.useFakeTimers();
    const storage = memoryStorage();
    const outcomes: SendOutcome[] = [{ kind: "retry" }, { kind: "retry" }];
    const send = vi.fn(async (): Promise<SendOutcome> => outcomes.shift() ?? { kind: "sent", id: "m-1" });
    let online = true;
    const queue = createUploadQueue({
      storage,
      send,
      owner: () => "u",
      scheduleRetry: (delayMs, flush) => setTimeout(flush, delayMs),
      isOnline: () => online,
    });
    await queue.enqueue("a", "u", {});
    expect(send).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(retryDelayMs(1) - 1);
    expect(send).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(send).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(retryDelayMs(2));
    expect(send).toHaveBeenCalledTimes(3);
    expect(queue.list()).toEqual([]);
    // Offline, nothing is scheduled: the "online" event flushes instead.
    online = false;
    outcomes.push({ kind: "retry" });
    await queue.enqueue("b", "u", {});
    await vi.advanceTimersByTimeAsync(600_000);
    expect(send).toHaveBeenCalledTimes(4);
    expect(retryDelayMs(1)).toBe(5_000);
    expect(retryDelayMs(2)).toBe(10_000);
    expect(retryDelayMs(20)).toBe(300_000);
  });

  it("survives corrupt storage and replaces a re-queued client id instead of doubling it", async () => {
    const storage = memoryStorage();
    storage.setItem("tonus.measure.upload-queue", "{not json");
    const queue = createUploadQueue({ storage, send: async () => ({ kind: "retry" }), owner: () => "u" });
    expect(queue.list()).toEqual([]);
    await queue.enqueue("a", "u", 1);
    await queue.enqueue("a", "u", 2);
    expect(queue.list()).toMatchObject([{ clientId: "a", payload: 2 }]);
  });
});
