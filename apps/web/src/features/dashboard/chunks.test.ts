import type { ChartData } from "@tonus/contract";
import { describe, expect, it } from "vitest";
import { chunkState, chunksToRequest, createLimiter, mergeChunks } from "./chunks.ts";

function chunk(index: number, chunks: number, points: [string, number][]): ChartData {
  return {
    item: "stress",
    period: "day",
    from: "2025-01-01",
    to: "2025-12-31",
    chunk: index,
    chunks,
    demo: false,
    series: [
      {
        metric: "stress",
        unit: "score",
        points: points.map(([t, value]) => ({ t, value, min: value, max: value, total: null, days: 1 })),
      },
    ],
  };
}

describe("chunk loading", () => {
  it("is fetched only when the last chunk arrives (spec §4), with progress until then", () => {
    const a = chunk(0, 3, [["2025-01-02", 40]]);
    const c = chunk(2, 3, [["2025-12-30", 60]]);
    const loading = chunkState(3, [
      { data: a, isError: false },
      { data: undefined, isError: false },
      { data: c, isError: false },
    ]);
    expect(loading).toEqual({ status: "loading", progress: { received: 2, total: 3 } });
    const b = chunk(1, 3, [["2025-06-01", 50]]);
    const fetched = chunkState(
      3,
      [a, b, c].map((data) => ({ data, isError: false })),
    );
    expect(fetched.status).toBe("fetched");
    expect(fetched.progress).toEqual({ received: 3, total: 3 });
    if (fetched.status !== "fetched") return;
    expect(fetched.series[0]?.points.map((p) => p.t)).toEqual(["2025-01-02", "2025-06-01", "2025-12-30"]);
  });

  it("fails as a whole when any chunk fails", () => {
    const state = chunkState(2, [
      { data: chunk(0, 2, []), isError: false },
      { data: undefined, isError: true },
    ]);
    expect(state).toEqual({ status: "error", progress: { received: 1, total: 2 } });
  });

  it("joins chunks in order whatever order they arrived in, once per bucket", () => {
    const merged = mergeChunks([
      chunk(1, 2, [
        ["2025-03-01", 2],
        ["2025-02-28", 1],
      ]),
      chunk(0, 2, [
        ["2025-01-01", 0],
        ["2025-02-28", 1],
      ]),
    ]);
    expect(merged).toHaveLength(1);
    expect(merged[0]?.points.map((p) => [p.t, p.value])).toEqual([
      ["2025-01-01", 0],
      ["2025-02-28", 1],
      ["2025-03-01", 2],
    ]);
    expect(mergeChunks([])).toEqual([]);
  });

  it("asks for more chunks only when the server says there are more", () => {
    expect(chunksToRequest(2, [undefined, undefined])).toBe(2);
    expect(chunksToRequest(2, [chunk(0, 2, []), undefined])).toBe(2);
    expect(chunksToRequest(2, [chunk(0, 3, [])])).toBe(3);
  });

  it("runs at most four requests at once and every one of them, in order", async () => {
    const run = createLimiter(4);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const tasks = Array.from({ length: 10 }, (_, i) =>
      run(
        () =>
          new Promise<number>((resolve) => {
            running += 1;
            most = Math.max(most, running);
            started.push(i);
            releases.push(() => {
              running -= 1;
              resolve(i);
            });
          }),
      ),
    );
    expect(started).toEqual([0, 1, 2, 3]);
    while (releases.length) {
      releases.shift()?.();
      await Promise.resolve();
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(4);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("keeps going after a failed request", async () => {
    const run = createLimiter(1);
    const failed = run(() => Promise.reject(new Error("boom")));
    const next = run(() => Promise.resolve("ok"));
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("ok");
  });
});
