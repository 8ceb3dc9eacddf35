import fs from "node:fs";
import path from "node:path";
import { leftOutOf } from "@tonus/contract";
import { describe, expect, it } from "vitest";
import {
  chunksOf,
  collect,
  FIT_MESSAGE,
  FitDecoder,
  type ImportRecord,
  importFit,
  type RrSeriesRecord,
  type SampleRecord,
} from "../src/index.ts";

const dir = path.join(import.meta.dirname, "fixtures", "fit");
const read = (name: string) => new Uint8Array(fs.readFileSync(path.join(dir, name)));

async function importFile(name: string, chunkSize = 4096) {
  const session = importFit(chunksOf(read(name), chunkSize));
  const records = await collect(session.records);
  return { records, report: session.report };
}

function decodeCounts(name: string, chunkSize: number): Map<number, number> {
  const decoder = new FitDecoder({ messages: new Set() });
  const bytes = read(name);
  for (let i = 0; i < bytes.length; i += chunkSize) decoder.push(bytes.subarray(i, i + chunkSize));
  decoder.finish();
  return decoder.counts;
}

const samples = (records: ImportRecord[], metric: string) =>
  records.filter((r): r is SampleRecord => r.kind === "sample" && r.metric === metric);
const rrOf = (records: ImportRecord[]) => records.filter((r): r is RrSeriesRecord => r.kind === "rr");

describe("importFit on real device files", () => {
  it.each([
    ["garmin-fenix-5-run.fit", 113, 75005, 456, 1448, 21],
    ["garmin-fenix-5-walk.fit", 62, 49592, 731, 935, 17],
    ["garmin-edge-820-bike.fit", 126, 66289, 495, 990, 15],
  ])(
    "reads the beat intervals of %s as one RR series",
    async (name, beats, sumMs, minMs, maxMs, hrRecords) => {
      const { records, report } = await importFile(name);
      expect(report.fatal).toBeUndefined();
      const [rr, ...more] = rrOf(records);
      expect(more).toHaveLength(0);
      expect(rr?.rrMs).toHaveLength(beats);
      expect(rr?.rrMs.reduce((a, b) => a + b, 0)).toBe(sumMs);
      expect(Math.min(...(rr?.rrMs ?? []))).toBe(minMs);
      expect(Math.max(...(rr?.rrMs ?? []))).toBe(maxMs);
      // the series starts at a real date in the activity (2017–2018 devices)
      expect(new Date(rr?.startedAt ?? 0).getUTCFullYear()).toBeGreaterThanOrEqual(2017);
      expect(samples(records, "heart_rate")).toHaveLength(hrRecords);
    },
  );

  it("counts 71, 49 and 66 hrv messages in the three HRV files", () => {
    expect(decodeCounts("garmin-fenix-5-run.fit", 7).get(FIT_MESSAGE.hrv)).toBe(71);
    expect(decodeCounts("garmin-fenix-5-walk.fit", 1).get(FIT_MESSAGE.hrv)).toBe(49);
    expect(decodeCounts("garmin-edge-820-bike.fit", 100).get(FIT_MESSAGE.hrv)).toBe(66);
  });

  it("yields no RR series for a ride without beat intervals", async () => {
    const { records, report } = await importFile("garmin-fenix-5-bike.fit");
    expect(report.fatal).toBeUndefined();
    expect(rrOf(records)).toHaveLength(0);
    expect(records.some((r) => r.kind === "workout" && r.activity === "cycling")).toBe(true);
  });

  it.each([
    ["activity-small-fenix2-run.fit", 2809],
    ["activity-large-fenxi2-multisport.fit", 24239],
    ["developer-types-sample.fit", 3424],
    ["coros-pace-2-cycling-misaligned-fields.fit", 11272],
  ])("decodes every record of %s (%i)", async (name, count) => {
    const { records, report } = await importFile(name, 65536);
    expect(report.fatal).toBeUndefined();
    expect(decodeCounts(name, 333).get(FIT_MESSAGE.record)).toBe(count);
    const hr = samples(records, "heart_rate");
    expect(hr.length).toBeGreaterThan(count * 0.75);
    expect(hr.every((s) => s.value > 30 && s.value < 230 && s.unit === "bpm")).toBe(true);
    // timestamps move forward (compressed and full timestamps resolved alike); devices do step back a
    // second now and then
    const backwards = hr.filter((s, i) => i > 0 && s.at < (hr[i - 1]?.at ?? 0)).length;
    expect(backwards).toBeLessThan(hr.length / 1000);
  });

  it("skips developer fields and says so", async () => {
    const { report } = await importFile("developer-types-sample.fit");
    expect(report.warnings.map((w) => w.detail)).toContain("developer fields skipped");
    // The report's reader (the web's "Left out" list) knows this warning.
    expect(leftOutOf(report.warnings)).toMatchObject({ developerFields: true, other: [] });
  });

  it("reads 337 monitoring messages and their steps", async () => {
    expect(decodeCounts("MonitoringFile.fit", 50).get(FIT_MESSAGE.monitoring)).toBe(337);
    const { records, report } = await importFile("MonitoringFile.fit", 100);
    expect(report.fatal).toBeUndefined();
    const steps = samples(records, "steps");
    expect(steps.length).toBeGreaterThan(10);
    expect(steps.every((s) => Number.isInteger(s.value) && s.value > 0)).toBe(true);
    // timestamp_16 values resolve to dates of the file's day (2014-12-27, from its monitoring_info)
    expect(steps.every((s) => new Date(s.at).toISOString().startsWith("2014-12-2"))).toBe(true);
    expect(new Set(steps.map((s) => s.clientId)).size).toBe(steps.length);
  });

  it.each([
    ["WeightScaleSingleUser.fit", [75.8, 76.09]],
    ["WeightScaleMultiUser.fit", [75.8, 58.2]],
  ])("reads the weights of %s in kg", async (name, kg) => {
    const { records, report } = await importFile(name);
    expect(report.fatal).toBeUndefined();
    expect(samples(records, "weight").map((s) => s.value)).toEqual(kg);
    expect(samples(records, "weight").every((s) => s.unit === "kg")).toBe(true);
  });

  it("gives the same records and client ids on a re-import, whatever the chunk size", async () => {
    const a = await importFile("garmin-fenix-5-run.fit", 1);
    const b = await importFile("garmin-fenix-5-run.fit", 100000);
    expect(a.records).toEqual(b.records);
    expect(new Set(a.records.map((r) => r.clientId)).size).toBe(a.records.length);
  });
});

describe("importFit on broken files", () => {
  it.each([
    ["activity-filecrc.fit", "crc_mismatch"],
    ["activity-settings-corruptheader.fit", "invalid_header"],
    ["activity-settings-nodata.fit", "unexpected_eof"],
    ["activity-unexpected-eof.fit", "unexpected_eof"],
    ["nick.fit", "invalid_record"],
  ])("ends %s with a %s report", async (name, reason) => {
    const { report } = await importFile(name);
    expect(report.done).toBe(true);
    expect(report.fatal?.reason).toBe(reason);
    expect(report.fatal?.offset).toBeGreaterThan(0);
  });

  it("keeps the readable part of a truncated activity", async () => {
    const { records, report } = await importFile("nick.fit");
    expect(report.fatal).toBeDefined();
    expect(samples(records, "heart_rate").length).toBeGreaterThan(14000);
  });

  it("reports an empty input and a non-FIT file", async () => {
    const empty = importFit(chunksOf(new Uint8Array(0)));
    await collect(empty.records);
    expect(empty.report.fatal?.reason).toBe("empty_file");
    const text = importFit(chunksOf(new TextEncoder().encode("id,value\n1,2\n")));
    await collect(text.records);
    expect(text.report.fatal?.reason).toBe("invalid_header");
  });

  it("never throws on a file truncated at any byte", async () => {
    const bytes = read("garmin-fenix-5-walk.fit");
    for (let cut = 0; cut < bytes.length; cut += 37) {
      const session = importFit(chunksOf(bytes.subarray(0, cut), 512));
      await collect(session.records);
      expect(session.report.done).toBe(true);
      expect(session.report.fatal).toBeDefined();
    }
  });

  it("never throws on random byte mutations", async () => {
    const bytes = read("garmin-fenix-5-run.fit");
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const runs = process.env.TONUS_HEAVY ? 10000 : 300;
    for (let k = 0; k < runs; k++) {
      const copy = bytes.slice();
      const flips = 1 + Math.floor(rand() * 8);
      for (let i = 0; i < flips; i++) copy[Math.floor(rand() * copy.length)] = Math.floor(rand() * 256);
      const started = performance.now();
      const session = importFit(chunksOf(copy, 1024));
      const records = await collect(session.records);
      expect(session.report.done).toBe(true);
      expect(performance.now() - started).toBeLessThan(2000);
      for (const r of records) if (r.kind === "sample") expect(Number.isFinite(r.value)).toBe(true);
    }
  }, 300_000);
});
