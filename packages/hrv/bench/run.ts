// `npm run bench -w @tonus/hrv` (and the root `npm run bench`): prints one line per measurement,
// `BENCH <name> <metric>=<value> <unit>`. Inputs are real recordings from test/fixtures.
// Target (issue 3): full analysis of a 300-beat record ≤ 1 ms median on the project's 2-core machine.
import fs from "node:fs";
import path from "node:path";
import { analyzeRr, computeFrequencyDomain, correctArtifacts } from "../src/index.ts";

function readRr(file: string): number[] {
  const text = fs.readFileSync(path.join(import.meta.dirname, "..", "test", "fixtures", "rr", file), "utf8");
  return text
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => Number(line.split(",")[0]));
}

/** Runs `fn` `warmup` times, then `runs` timed times; returns the median and 95th percentile in ms. */
function measure(fn: () => unknown, runs = 2000, warmup = 300): { median: number; p95: number } {
  for (let i = 0; i < warmup; i++) fn();
  const times = new Float64Array(runs);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times[i] = performance.now() - t0;
  }
  times.sort();
  return { median: times[Math.floor(runs / 2)] as number, p95: times[Math.floor(runs * 0.95)] as number };
}

function report(name: string, r: { median: number; p95: number }): void {
  process.stdout.write(`BENCH ${name} median=${r.median.toFixed(3)} ms\n`);
  process.stdout.write(`BENCH ${name} p95=${r.p95.toFixed(3)} ms\n`);
}

const clean300 = readRr("nk_bio_resting_5min_ecg_rr.csv").slice(0, 300);
const ectopic300 = readRr("ltdb_14046_pvc_5min_rr.csv").slice(0, 300);
const spot100 = readRr("welltory_90c4d3e033_rr.csv");

// Full analysis: validation, artifact correction, time domain, Baevsky, frequency (and, for the
// record with PVCs, all of it again on the corrected series).
report(
  "hrv.analyze300",
  measure(() => analyzeRr(clean300)),
);
report(
  "hrv.analyze300_ectopic",
  measure(() => analyzeRr(ectopic300)),
);
report(
  "hrv.analyze100_spot",
  measure(() => analyzeRr(spot100)),
);
report(
  "hrv.artifacts300",
  measure(() => correctArtifacts(Float64Array.from(ectopic300))),
);
report(
  "hrv.frequency300",
  measure(() => computeFrequencyDomain(clean300)),
);
