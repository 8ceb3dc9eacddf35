// What the benchmarks share: the load generator (bench/load.ts) as a
// process of its own, so the server under test keeps this process's event loop to itself.
import { spawn } from "node:child_process";
import path from "node:path";
import type { LoadJob, LoadResult } from "./load.ts";

/** Starts the load generator; `done` answers its results when its time is up, `stop` ends it sooner. */
export function startLoad(job: LoadJob): { done: Promise<LoadResult>; stop: () => Promise<LoadResult> } {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "load.ts")], {
    env: { ...process.env, LOAD: JSON.stringify(job) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const done = new Promise<LoadResult>((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out) as LoadResult)
        : reject(new Error(`load generator exited ${code}`)),
    ),
  );
  return {
    done,
    stop: () => {
      child.kill("SIGTERM");
      return done;
    },
  };
}

export function runLoad(job: LoadJob): Promise<LoadResult> {
  return startLoad(job).done;
}

/** `p50=… ms p99=… ms` and the rest of a result, for a BENCH line. */
export function describeLoad(r: LoadResult): string {
  return `req_per_s=${Math.round(r.requests / r.seconds)} p50=${r.p50.toFixed(1)} ms p90=${r.p90.toFixed(1)} ms p99=${r.p99.toFixed(1)} ms max=${r.max.toFixed(0)} ms non_2xx=${r.non2xx} errors=${r.errors}`;
}
