// `npm run bench -w @tonus/importers` (and the root `npm run bench`): prints one line per measurement,
// `BENCH <name> <metric>=<value> <unit>`. Goals (issue 7) on the project's 2-core machine: Apple Health
// export.xml parsed at ≥ 150 MB/s (fed in the chunks the server's file reader reads); FIT decoding at
// least as fast as the common JavaScript decoders.
import fs from "node:fs";
import path from "node:path";
import { chunksOf, importAppleHealthXml, importFit } from "../src/index.ts";
import { FILE_CHUNK_BYTES } from "../src/node.ts";
import { emptyCounts, generateAppleHealthExport } from "../test/synthetic-apple-health.ts";

const MB = 1024 * 1024;

/** Drains a session the way the server's import job does: batch by batch. */
async function drain(batches: AsyncIterable<unknown[]>): Promise<number> {
  let n = 0;
  for await (const batch of batches) n += batch.length;
  return n;
}

/** The export in the chunks the server's import reads a file in. */
async function* replay(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks)
    for (let i = 0; i < c.length; i += FILE_CHUNK_BYTES) yield c.subarray(i, i + FILE_CHUNK_BYTES);
}

async function benchAppleHealth(): Promise<void> {
  const chunks: Uint8Array[] = [];
  const counts = emptyCounts();
  for await (const c of generateAppleHealthExport(Number(process.env.BENCH_AH_MB ?? 200) * MB, counts))
    chunks.push(c);
  // Warm-up over the first 32 MB: the figures below are the steady state a long export runs in, not
  // the optimising compiler's first seconds (run to run, the same pass varies by ±15 % here).
  await drain(importAppleHealthXml(replay(chunks.slice(0, 32))).batches);
  const runs: { s: number; cpuS: number; records: number }[] = [];
  for (let run = 0; run < 5; run++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const records = await drain(importAppleHealthXml(replay(chunks)).batches);
    const cpu = process.cpuUsage(c0);
    runs.push({ s: (performance.now() - t0) / 1000, cpuS: (cpu.user + cpu.system) / 1e6, records });
  }
  const bySpeed = [...runs].sort((a, b) => a.s - b.s);
  const best = bySpeed[0] as (typeof runs)[number];
  const median = bySpeed[2] as (typeof runs)[number];
  const cpuS = Math.min(...runs.map((r) => r.cpuS));
  const name = "importers.applehealth_parse";
  const mbps = (s: number) => (counts.bytes / MB / s).toFixed(1);
  process.stdout.write(`BENCH ${name} throughput=${mbps(best.s)} MB/s\n`);
  process.stdout.write(`BENCH ${name} throughput_median=${mbps(median.s)} MB/s\n`);
  // CPU-time throughput, the process's (its garbage collector's and compiler's threads included): what
  // the parse costs when the machine is shared (wall time then understates it).
  process.stdout.write(`BENCH ${name} cpu_throughput=${mbps(cpuS)} MB/s\n`);
  process.stdout.write(`BENCH ${name} records=${Math.round(best.records / best.s)} records/s\n`);
}

/** Median ms of `runs` calls of `fn` after 3 warm-up calls. */
async function medianMs(fn: () => Promise<unknown>, runs: number): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)] as number;
}

// The common JavaScript FIT decoders, measured on the same file in the same run (dev dependencies of
// this package, used only here): fit-file-parser and Garmin's own @garmin/fitsdk.
type Other = { name: string; decode: (bytes: Uint8Array) => Promise<unknown> };

async function others(): Promise<Other[]> {
  const out: Other[] = [];
  try {
    const { default: FitParser } = await import("fit-file-parser");
    out.push({
      name: "fit_file_parser",
      decode: (bytes) => new FitParser({ force: true, mode: "list" }).parseAsync(Buffer.from(bytes)),
    });
  } catch {
    process.stdout.write("# fit-file-parser not installed: skipped\n");
  }
  try {
    const { Decoder, Stream } = await import("@garmin/fitsdk");
    out.push({
      name: "garmin_fitsdk",
      decode: async (bytes) => new Decoder(Stream.fromByteArray(bytes)).read(),
    });
  } catch {
    process.stdout.write("# @garmin/fitsdk not installed: skipped\n");
  }
  return out;
}

async function benchFit(): Promise<void> {
  const file = path.join(
    import.meta.dirname,
    "..",
    "test",
    "fixtures",
    "fit",
    "activity-large-fenxi2-multisport.fit",
  );
  const bytes = new Uint8Array(fs.readFileSync(file));
  const runs = 15;
  const ours = await medianMs(() => drain(importFit(chunksOf(bytes)).batches), runs);
  const mb = bytes.length / MB;
  process.stdout.write(`BENCH importers.fit_decode throughput=${(mb / (ours / 1000)).toFixed(1)} MB/s\n`);
  process.stdout.write(`BENCH importers.fit_decode file_1mb=${ours.toFixed(2)} ms\n`);
  for (const other of await others()) {
    const ms = await medianMs(() => other.decode(bytes), runs);
    process.stdout.write(`BENCH importers.fit_decode_${other.name} file_1mb=${ms.toFixed(2)} ms\n`);
    process.stdout.write(`BENCH importers.fit_decode speedup_vs_${other.name}=${(ms / ours).toFixed(2)} x\n`);
  }
}

await benchFit();
await benchAppleHealth();
