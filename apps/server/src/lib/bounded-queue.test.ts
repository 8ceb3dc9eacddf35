import { describe, expect, it } from "vitest";
import { BoundedQueue, QueueFullError } from "./bounded-queue.ts";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("BoundedQueue", () => {
  it("runs at most `concurrency` tasks, lets `maxWaiting` wait and refuses the rest at once", async () => {
    const queue = new BoundedQueue(2, 3);
    const gate = deferred();
    let active = 0;
    let maxActive = 0;
    const task = async () => {
      active += 1;
      maxActive = Math.max(maxActive, active);
      await gate.promise;
      active -= 1;
      return "done";
    };
    const results = Array.from({ length: 8 }, () => queue.run(task).catch((error: unknown) => error));
    expect(queue.running).toBe(2);
    expect(queue.waiting).toBe(3);
    gate.resolve();
    const settled = await Promise.all(results);
    expect(settled.filter((r) => r === "done")).toHaveLength(5);
    expect(settled.filter((r) => r instanceof QueueFullError)).toHaveLength(3);
    expect(maxActive).toBe(2);
    expect(queue.running).toBe(0);
    expect(queue.waiting).toBe(0);
  });

  it("frees the slot when a task fails and keeps serving in order", async () => {
    const queue = new BoundedQueue(1, 5);
    const order: number[] = [];
    const runs = [1, 2, 3].map((n) =>
      queue.run(async () => {
        order.push(n);
        if (n === 1) throw new Error("boom");
        return n;
      }),
    );
    await expect(runs[0]).rejects.toThrow("boom");
    await expect(Promise.all(runs.slice(1))).resolves.toEqual([2, 3]);
    expect(order).toEqual([1, 2, 3]);
    expect(queue.running).toBe(0);
  });
});
