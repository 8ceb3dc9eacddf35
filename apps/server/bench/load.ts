// A closed-loop HTTP load generator for the benchmarks (RELIABILITY R1, R2), run as a process of its own
// beside the server's, like autocannon: `connections` keep-alive connections, each sending its next
// request when the previous answer has arrived, for `seconds`. Ingest requests are built fresh each
// time (a new Idempotency-Key and new client ids), so every one is real work, never a replay.
// Reads its job from the LOAD environment variable (JSON) and prints one JSON line of results when its
// time is up or on SIGTERM.
import { randomUUID } from "node:crypto";
import http from "node:http";

export type LoadJob = {
  url: string;
  connections: number;
  seconds: number;
  headers: Record<string, string>;
  /** Per connection (connection i uses entry i modulo the length): an Authorization header each. */
  authorizations?: string[];
  /** A connection's wait after each answer before its next request (default none: closed loop). */
  pauseMs?: number;
  /** `get`: the same GET each time; `ingest`: a POST of `records` fresh heart-rate samples. */
  kind: "get" | "ingest";
  records?: number;
};
export type LoadResult = {
  requests: number;
  non2xx: number;
  errors: number;
  statuses: Record<string, number>;
  seconds: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
};

const job = JSON.parse(process.env.LOAD ?? "{}") as LoadJob;
const agent = new http.Agent({ keepAlive: true, maxSockets: job.connections });
const target = new URL(job.url);
let sampleTime = Date.UTC(2026, 0, 1);

function ingestBody(): string {
  const records = [];
  for (let i = 0; i < (job.records ?? 50); i++) {
    sampleTime += 1000;
    records.push({
      type: "sample",
      client_id: randomUUID(),
      metric: "heart_rate",
      at: new Date(sampleTime).toISOString(),
      value: 55 + (sampleTime % 40),
    });
  }
  return JSON.stringify({ records });
}

function once(connection: number): Promise<number> {
  const body = job.kind === "ingest" ? ingestBody() : undefined;
  const headers: Record<string, string | number> = { ...job.headers };
  const auth = job.authorizations?.[connection % job.authorizations.length];
  if (auth) headers.authorization = auth;
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    headers["content-length"] = Buffer.byteLength(body);
    headers["idempotency-key"] = randomUUID();
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      target,
      { method: body === undefined ? "GET" : "POST", agent, headers },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const latencies: number[] = [];
const statuses: Record<string, number> = {};
let errors = 0;
const started = performance.now();
const deadline = started + job.seconds * 1000;
// SIGTERM ends the run early (a benchmark measuring while something else runs, until it ends).
let stopped = false;
process.on("SIGTERM", () => {
  stopped = true;
});
const pause = () => new Promise((resolve) => setTimeout(resolve, job.pauseMs));
await Promise.all(
  Array.from({ length: job.connections }, async (_, connection) => {
    while (!stopped && performance.now() < deadline) {
      const t = performance.now();
      try {
        const status = await once(connection);
        latencies.push(performance.now() - t);
        statuses[status] = (statuses[status] ?? 0) + 1;
      } catch {
        errors++;
      }
      if (job.pauseMs) await pause();
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
const non2xx = Object.entries(statuses)
  .filter(([s]) => !s.startsWith("2"))
  .reduce((n, [, c]) => n + c, 0);
const result: LoadResult = {
  requests: latencies.length,
  non2xx,
  errors,
  statuses,
  seconds,
  p50: q(0.5),
  p90: q(0.9),
  p99: q(0.99),
  max: latencies.at(-1) ?? 0,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
agent.destroy();
