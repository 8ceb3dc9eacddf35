import type { ChartData, ChartPoint, MetricKey } from "@tonus/contract";

/**
 * Loading a chart in chunks (spec §4 "Charts data: becomes fetched when the last chunk arrives"): the
 * server answers at most 400 buckets per request; the page asks for every chunk, at most four at a
 * time across all charts, and draws once the last one is in.
 */

/** Chunk requests in flight at once, for the whole page (the embedded database answers one at a time). */
export const MAX_PARALLEL_CHUNKS = 4;

/** Runs tasks with at most `limit` running at once, in the order they were queued. */
export function createLimiter(limit: number) {
  let running = 0;
  const queue: (() => void)[] = [];
  const next = () => {
    if (running >= limit) return;
    const start = queue.shift();
    if (start) start();
  };
  return function run<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push(() => {
        running += 1;
        task()
          .then(resolve, reject)
          .finally(() => {
            running -= 1;
            next();
          });
      });
      next();
    });
  };
}

export type ChunkProgress = { received: number; total: number };

export type ChunkState =
  | { status: "loading"; progress: ChunkProgress }
  | { status: "error"; progress: ChunkProgress }
  | { status: "fetched"; progress: ChunkProgress; series: MergedSeries[] };

export type MergedSeries = { metric: MetricKey; unit: string; points: ChartPoint[] };

/** The chunks the page must ask for: what it expects, or more if an answer says there are more. */
export function chunksToRequest(expected: number, answers: readonly (ChartData | undefined)[]): number {
  return answers.reduce((most, answer) => Math.max(most, answer?.chunks ?? 0), expected);
}

/** Joins the chunks' series (each chunk holds consecutive buckets) into one, oldest bucket first. */
export function mergeChunks(chunks: readonly ChartData[]): MergedSeries[] {
  const ordered = [...chunks].sort((a, b) => a.chunk - b.chunk);
  const first = ordered[0];
  if (!first) return [];
  return first.series.map((s, index) => {
    const seen = new Set<string>();
    const points: ChartPoint[] = [];
    for (const chunk of ordered) {
      for (const point of chunk.series[index]?.points ?? []) {
        if (seen.has(point.t)) continue;
        seen.add(point.t);
        points.push(point);
      }
    }
    points.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
    return { metric: s.metric, unit: s.unit, points };
  });
}

/** The state of one chart from its chunk answers: fetched only when every chunk has arrived. */
export function chunkState(
  total: number,
  answers: readonly { data?: ChartData | undefined; isError: boolean }[],
): ChunkState {
  const received = answers.filter((a) => a.data !== undefined).length;
  const progress = { received, total };
  if (answers.some((a) => a.isError)) return { status: "error", progress };
  if (received < total || answers.length < total) return { status: "loading", progress };
  return { status: "fetched", progress, series: mergeChunks(answers.map((a) => a.data as ChartData)) };
}
