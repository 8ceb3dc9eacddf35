import { describe, expect, it, vi } from "vitest";
import { createUploadQueue, type QueuedUpload, type SendOutcome } from "./upload-queue.ts";

function memoryStorage() {
  const data = new Map<string, string>();
  return {
    getItem: (key: string) => data.get(key) ?? null,
    setItem: (key: string, value: string) => void data.set(key, value),
  };
}

/** A server that stores each client id once, reachable or not. */
function fakeServer() {
  const stored = new Map<string, { rrMs: number[] }>();
  let isOnline = false;
  const send = vi.fn(async (item: QueuedUpload<{ rrMs: number[] }>): Promise<SendOutcome> => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (!isOnline) throw new TypeError("Failed to fetch");
    if (!stored.has(item.clientId)) stored.set(item.clientId, item.payload);
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

describe("offline upload queue", () => {
  it("keeps a measurement taken offline and uploads it exactly once when the connection returns", async () => {
    const storage = memoryStorage();
    const server = fakeServer();
    const settled = vi.fn();
    const queue = createUploadQueue({ storage, send: server.send, onSettled: settled });

    await queue.enqueue("a", { rrMs: [800, 810] });
    expect(queue.list()).toMatchObject([{ clientId: "a", attempts: 1 }]);
    expect(server.stored.size).toBe(0);

    // The page is reloaded while offline: a new queue over the same storage still has it.
    const reloaded = createUploadQueue({ storage, send: server.send, onSettled: settled });
    expect(reloaded.has("a")).toBe(true);

    server.goOnline();
    // "online" fires, the page also flushes on focus, and a second tab flushes too: all at once.
    await Promise.all([reloaded.flush(), reloaded.flush(), reloaded.flush()]);
    expect(server.stored.size).toBe(1);
    expect(server.send.mock.calls.filter(([item]) => item.clientId === "a")).toHaveLength(2);
    expect(reloaded.list()).toEqual([]);
    expect(settled).toHaveBeenCalledTimes(1);
    expect(settled.mock.calls[0]?.[1]).toEqual({ kind: "sent", id: "m-a" });

    await reloaded.flush();
    expect(server.send).toHaveBeenCalledTimes(2);
  });

  it("keeps order, stops at the first failure and drops uploads the server refuses for good", async () => {
    const storage = memoryStorage();
    const outcomes: SendOutcome[] = [{ kind: "rejected", reason: "validation_failed" }, { kind: "retry" }];
    const send = vi.fn(
      async (_item: QueuedUpload<unknown>): Promise<SendOutcome> =>
        outcomes.shift() ?? { kind: "sent", id: "x" },
    );
    const queue = createUploadQueue({ storage, send, withLock: (run) => run() });
    storage.setItem(
      "tonus.measure.upload-queue",
      JSON.stringify([
        { clientId: "bad", payload: {}, queuedAtMs: 1, attempts: 0 },
        { clientId: "b", payload: {}, queuedAtMs: 2, attempts: 0 },
        { clientId: "c", payload: {}, queuedAtMs: 3, attempts: 0 },
      ]),
    );
    await queue.flush();
    expect(send.mock.calls.map(([item]) => item.clientId)).toEqual(["bad", "b"]);
    expect(queue.list().map((item) => item.clientId)).toEqual(["b", "c"]);
    await queue.flush();
    expect(queue.list()).toEqual([]);
  });

  it("survives corrupt storage and replaces a re-queued client id instead of doubling it", async () => {
    const storage = memoryStorage();
    storage.setItem("tonus.measure.upload-queue", "{not json");
    const queue = createUploadQueue({ storage, send: async () => ({ kind: "retry" }) });
    expect(queue.list()).toEqual([]);
    await queue.enqueue("a", 1);
    await queue.enqueue("a", 2);
    expect(queue.list()).toMatchObject([{ clientId: "a", payload: 2 }]);
  });
});
