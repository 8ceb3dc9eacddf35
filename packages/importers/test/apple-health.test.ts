import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { leftOutOf } from "@tonus/contract";
import { describe, expect, it } from "vitest";
import {
  type BloodPressureRecord,
  chunksOf,
  collect,
  type ImportRecord,
  importAppleHealthXml,
  parseHealthDate,
  type RrSeriesRecord,
  type SampleRecord,
  type WorkoutRecord,
} from "../src/index.ts";
import { emptyCounts, generateAppleHealthExport } from "./synthetic-apple-health.ts";
import { startTrap } from "./trap-listener.ts";

const HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
]>
<HealthData locale="en_US">
 <ExportDate value="2024-03-01 09:00:00 +0100"/>
`;
const src = 'sourceName="Anna&apos;s Watch" sourceVersion="10.1"';

const EXPORT = `${HEAD}
 <Record type="HKQuantityTypeIdentifierHeartRate" ${src} unit="count/min" creationDate="2024-02-01 08:00:05 +0100" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 08:00:00 +0100" value="64">
  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>
 </Record>
 <Record type="HKQuantityTypeIdentifierStepCount" ${src} unit="count" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 08:10:00 +0100" value="812"/>
 <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" ${src} unit="km" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 08:10:00 +0100" value="0.61"/>
 <Record type="HKQuantityTypeIdentifierActiveEnergyBurned" ${src} unit="kcal" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 08:10:00 +0100" value="10"/>
 <Record type="HKQuantityTypeIdentifierBodyMass" ${src} unit="lb" startDate="2024-02-01 07:00:00 -0500" endDate="2024-02-01 07:00:00 -0500" value="150"/>
 <Record type="HKQuantityTypeIdentifierHeight" ${src} unit="cm" startDate="2024-02-01 07:00:00 +0000" endDate="2024-02-01 07:00:00 +0000" value="172"/>
 <Record type="HKQuantityTypeIdentifierOxygenSaturation" ${src} unit="%" startDate="2024-02-01 07:00:00 +0000" endDate="2024-02-01 07:00:00 +0000" value="0.97"/>
 <Record type="HKQuantityTypeIdentifierDietaryWater" ${src} unit="mL" startDate="2024-02-01 07:00:00 +0000" endDate="2024-02-01 07:00:00 +0000" value="250"/>
 <Record type="HKQuantityTypeIdentifierDietaryCarbohydrates" ${src} unit="g" startDate="2024-02-01 07:00:00 +0000" endDate="2024-02-01 07:00:00 +0000" value="30"/>
 <Record type="HKQuantityTypeIdentifierRestingHeartRate" ${src} unit="count/min" startDate="2024-02-01 00:00:00 +0000" endDate="2024-02-01 23:59:00 +0000" value="52"/>
 <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" ${src} unit="ms" startDate="2024-02-01 06:00:00 +0000" endDate="2024-02-01 06:01:00 +0000" value="48.5">
  <HeartRateVariabilityMetadataList>
   <InstantaneousBeatsPerMinute bpm="60" time="6:00:01.00 AM"/>
   <InstantaneousBeatsPerMinute bpm="75" time="6:00:01.80 AM"/>
   <InstantaneousBeatsPerMinute bpm="50" time="6:00:03.00 AM"/>
  </HeartRateVariabilityMetadataList>
 </Record>
 <Record type="HKCategoryTypeIdentifierSleepAnalysis" ${src} startDate="2024-02-01 01:00:00 +0000" endDate="2024-02-01 01:30:00 +0000" value="HKCategoryValueSleepAnalysisAsleepDeep"/>
 <Record type="HKQuantityTypeIdentifierFlightsClimbed" ${src} unit="count" startDate="2024-02-01 01:00:00 +0000" endDate="2024-02-01 01:30:00 +0000" value="3"/>
 <Correlation type="HKCorrelationTypeIdentifierBloodPressure" ${src} startDate="2024-02-01 09:00:00 +0000" endDate="2024-02-01 09:00:00 +0000">
  <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" ${src} unit="mmHg" startDate="2024-02-01 09:00:00 +0000" endDate="2024-02-01 09:00:00 +0000" value="121"/>
  <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" ${src} unit="mmHg" startDate="2024-02-01 09:00:00 +0000" endDate="2024-02-01 09:00:00 +0000" value="79"/>
 </Correlation>
 <Workout workoutActivityType="HKWorkoutActivityTypeTraditionalStrengthTraining" duration="45" durationUnit="min" ${src} startDate="2024-02-01 18:00:00 +0000" endDate="2024-02-01 18:45:00 +0000">
  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-02-01 18:00:00 +0000" endDate="2024-02-01 18:45:00 +0000" sum="250" unit="kcal"/>
 </Workout>
 <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="1800" durationUnit="s" totalDistance="3.1" totalDistanceUnit="mi" totalEnergyBurned="1200" totalEnergyBurnedUnit="kJ" ${src} startDate="2024-02-02 18:00:00 +0000" endDate="2024-02-02 18:30:00 +0000"/>
</HealthData>
`;

async function importText(text: string, chunkSize = 64) {
  const session = importAppleHealthXml(chunksOf(new TextEncoder().encode(text), chunkSize));
  const records = await collect(session.records);
  return { records, report: session.report };
}

const byMetric = (records: ImportRecord[], metric: string) =>
  records.filter((r): r is SampleRecord => r.kind === "sample" && r.metric === metric);

describe("parseHealthDate", () => {
  it("reads the export's local time with its offset as UTC ms", () => {
    expect(parseHealthDate("2024-02-01 08:00:00 +0100")).toBe(Date.UTC(2024, 1, 1, 7));
    expect(parseHealthDate("2024-02-01 07:00:00 -0530")).toBe(Date.UTC(2024, 1, 1, 12, 30));
    expect(parseHealthDate("2024-02-01T07:00")).toBeNaN();
    expect(parseHealthDate("yesterday at noon, more or less")).toBeNaN();
  });
});

describe("importAppleHealthXml", () => {
  it("yields every supported type in storage units", async () => {
    const { records, report } = await importText(EXPORT);
    expect(report.fatal).toBeUndefined();
    expect(report.rejectedCount).toBe(0);
    const one = (metric: string) => byMetric(records, metric)[0];
    expect(one("heart_rate")).toMatchObject({ value: 64, unit: "bpm", at: Date.UTC(2024, 1, 1, 7) });
    expect(one("heart_rate")?.meta?.device).toBe("Anna's Watch");
    expect(one("steps")).toMatchObject({ value: 812, endAt: Date.UTC(2024, 1, 1, 7, 10) });
    expect(one("distance")?.value).toBeCloseTo(610, 6);
    expect(one("active_energy")?.value).toBeCloseTo(41840, 6);
    expect(one("weight")?.value).toBeCloseTo(68.0388555, 6);
    expect(one("weight")?.at).toBe(Date.UTC(2024, 1, 1, 12));
    expect(one("height")?.value).toBeCloseTo(1.72, 9);
    expect(one("spo2")?.value).toBeCloseTo(97, 9);
    expect(one("water")?.value).toBeCloseTo(0.25, 9);
    expect(one("carbohydrates")?.value).toBeCloseTo(0.03, 9);
    expect(one("resting_heart_rate")?.value).toBe(52);
    expect(one("sdnn")?.value).toBeCloseTo(0.0485, 9);
    expect(one("sleep")).toMatchObject({ value: 1800, unit: "s", meta: { stage: "deep" } });
    const rr = records.find((r): r is RrSeriesRecord => r.kind === "rr");
    expect(rr).toMatchObject({ rrMs: [1000, 800, 1200], startedAt: Date.UTC(2024, 1, 1, 6) });
    const bp = records.filter((r): r is BloodPressureRecord => r.kind === "bp");
    expect(bp).toEqual([expect.objectContaining({ systolicMmHg: 121, diastolicMmHg: 79 })]);
    // the correlation's member records are not also stored as loose samples
    expect(byMetric(records, "bp_systolic")).toHaveLength(0);
    const workouts = records.filter((r): r is WorkoutRecord => r.kind === "workout");
    expect(workouts[0]).toMatchObject({
      activity: "traditional_strength_training",
      durationS: 2700,
      energyJ: 1046000,
    });
    expect(workouts[1]?.distanceM).toBeCloseTo(4988.9664, 4);
    expect(workouts[1]).toMatchObject({ activity: "running", durationS: 1800, energyJ: 1200000 });
    expect(report.ignored).toBe(1);
    expect(report.warnings.map((w) => w.detail)).toContain("HKQuantityTypeIdentifierFlightsClimbed");
    expect(leftOutOf(report.warnings)).toMatchObject({ types: ["FlightsClimbed"], other: [] });
    expect(report.read).toBe(18);
    expect(report.emitted).toBe(records.length);
  });

  it("gives the same records whatever the chunking, so a re-import repeats its client ids", async () => {
    const a = await importText(EXPORT, 1);
    const b = await importText(EXPORT, 1 << 20);
    expect(a.records).toEqual(b.records);
    expect(new Set(a.records.map((r) => r.clientId)).size).toBe(a.records.length);
  });

  it("does not expand entities of a billion-laughs DTD, reads no file and calls no URL (U5)", async () => {
    const trap = await startTrap();
    const secretDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-xxe-"));
    const secret = path.join(secretDir, "secret.txt");
    fs.writeFileSync(secret, "TONUS-SECRET-MARKER");
    try {
      let dtd = '<!ENTITY lol "lol">\n';
      for (let i = 1; i <= 10; i++) dtd += `<!ENTITY lol${i} "${`&lol${i - 1 || ""};`.repeat(10)}">\n`;
      dtd += `<!ENTITY xxe SYSTEM "file://${secret}">\n<!ENTITY web SYSTEM "${trap.url}/entity">\n`;
      dtd += `<!ENTITY % pe SYSTEM "${trap.url}/x.dtd">\n%pe;\n`;
      // a literal and a comment holding "]>" must not end the subset early
      dtd += `<!ENTITY trick "]><Record type='HKQuantityTypeIdentifierHeartRate' value='1'/>">\n<!-- ]> -->\n`;
      const bomb = `<?xml version="1.0"?>\n<!DOCTYPE HealthData SYSTEM "${trap.url}/external.dtd" [\n${dtd}]>\n<HealthData>
 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="&lol10;" unit="count/min" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 08:00:00 +0100" value="&lol10;"/>
 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="&xxe;&web;" unit="count/min" startDate="2024-02-01 08:01:00 +0100" endDate="2024-02-01 08:01:00 +0100" value="61"/>
</HealthData>`;
      const started = performance.now();
      const { records, report } = await importText(bomb, 4096);
      expect(performance.now() - started).toBeLessThan(500);
      expect(report.fatal).toBeUndefined();
      expect(report.warnings[0]).toMatchObject({ reason: "xml_entity_declared" });
      expect(report.warnings[0]?.detail).toContain("15 entities");
      expect(leftOutOf(report.warnings)).toMatchObject({ entitiesDeclared: true, other: [] });
      expect(report.rejected).toEqual([expect.objectContaining({ reason: "invalid_value" })]);
      // the entity references stay literal text: nothing read from the file system
      expect(records).toEqual([expect.objectContaining({ value: 61, meta: { device: "&xxe;&web;" } })]);
      expect(JSON.stringify(records)).not.toContain("TONUS-SECRET-MARKER");
      // and nothing fetched: the listener the external DTD, entities and parameter entity name saw no one
      expect(await trap.settle()).toBe(0);
      // (the listener does count a connection: the assertion above can fail)
      await fetch(`${trap.url}/probe`).catch(() => {});
      expect(await trap.settle()).toBe(1);
    } finally {
      await trap.close();
      fs.rmSync(secretDir, { recursive: true, force: true });
    }
  });

  it("imports despite a broken DTD like iOS 16's (duplicate and malformed ATTLIST)", async () => {
    const text = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
<!ATTLIST ExportDate value CDATA #REQUIRED>
<!ATTLIST ExportDate value CDATA #REQUIRED>
<!ATTLIST Record
  type CDATA #REQUIRED
  unit CDATA #IMPLIED
  value CDATA #IMPLIED
  HKMetadataKeySyncVersion CDATA (#IMPLIED
>
<!-- a comment with ]> inside the subset -->
]>
<HealthData locale="ru_RU">
 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Часы" unit="count/min" startDate="2024-02-01 08:00:00 +0300" endDate="2024-02-01 08:00:00 +0300" value="66"/>
</HealthData>
`;
    const { records, report } = await importText(text, 13);
    expect(report.fatal).toBeUndefined();
    expect(records).toEqual([
      expect.objectContaining({ value: 66, at: Date.UTC(2024, 1, 1, 5), meta: { device: "Часы" } }),
    ]);
  });

  it("drops control characters such as \\x0b that strict parsers reject", async () => {
    const text = `${HEAD} <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Anna\u000b’s\u0001 Watch" unit="count/min" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 08:00:00 +0100" value="\u000b70"/>\u000b\n</HealthData>\n`;
    const { records, report } = await importText(text, 7);
    expect(report.fatal).toBeUndefined();
    expect(records).toEqual([expect.objectContaining({ value: 70, meta: { device: "Anna’s Watch" } })]);
  });

  it("rejects a record with a space in an attribute name and goes on", async () => {
    const text = `${HEAD} <Record type="HKQuantityTypeIdentifierHeartRate" source Name="x" unit="count/min" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 08:00:00 +0100" value="70"/>
 <Record type="HKQuantityTypeIdentifierHeartRate" unit="count/min" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 08:00:00 +0100" value="71"/>
 <Record type="HKQuantityTypeIdentifierHeartRate" unit="furlongs" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 08:00:00 +0100" value="72"/>
 <Record type="HKQuantityTypeIdentifierHeartRate" unit="count/min" startDate="someday" endDate="2024-02-01 08:00:00 +0100" value="73"/>
</HealthData>`;
    const { records, report } = await importText(text);
    expect(report.fatal).toBeUndefined();
    expect(records.map((r) => (r.kind === "sample" ? r.value : 0))).toEqual([71]);
    expect(report.rejected.map((r) => r.reason)).toEqual(["invalid_record", "unknown_unit", "invalid_date"]);
    expect(report.rejected.every((r) => (r.offset ?? 0) > 0)).toBe(true);
  });

  it("takes type, unit and stage names that are Object.prototype's keys for unknown ones", async () => {
    const rec = (type: string, unit: string, value: string) =>
      ` <Record type="${type}" sourceName="x" unit="${unit}" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 09:00:00 +0100" value="${value}"/>\n`;
    const text = `${HEAD}${rec("toString", "count", "1")}${rec("__proto__", "count", "2")}${rec("HKQuantityTypeIdentifierStepCount", "constructor", "3")}${rec("HKCategoryTypeIdentifierSleepAnalysis", "", "hasOwnProperty")}
 <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="valueOf" sourceName="x" startDate="2024-02-03 07:00:00 +0300" endDate="2024-02-03 07:30:00 +0300"/>
</HealthData>`;
    const { records, report } = await importText(text);
    expect(report.fatal).toBeUndefined();
    expect(report.ignored).toBe(2);
    expect(report.rejected.map((r) => r.reason)).toEqual(["unknown_unit", "invalid_value"]);
    expect(records).toEqual([expect.objectContaining({ kind: "workout", activity: "running" })]);
    expect(records[0]).not.toHaveProperty("durationS");
  });

  it("keeps what came before the cut of a truncated file and reports the cut", async () => {
    const bytes = new TextEncoder().encode(EXPORT);
    for (const cut of [0.2, 0.5, 0.77, 0.95]) {
      const at = Math.floor(bytes.length * cut);
      const session = importAppleHealthXml(chunksOf(bytes.subarray(0, at), 100));
      const records = await collect(session.records);
      expect(session.report.fatal?.reason).toBe("unexpected_eof");
      expect(records.length).toBeLessThan(16);
    }
  });

  it("reports empty input and a file that is not XML", async () => {
    expect((await importText("")).report.fatal?.reason).toBe("empty_file");
    expect((await importText("date,steps\n2024-01-01,100\n")).report.fatal?.reason).toBe("xml_malformed");
  });

  it("stops on markup longer than the cap instead of buffering it", async () => {
    async function* endless() {
      yield new TextEncoder().encode('<HealthData><Record type="');
      const junk = new Uint8Array(1 << 16).fill(0x61);
      for (let i = 0; i < 64; i++) yield junk;
    }
    const session = importAppleHealthXml(endless());
    await collect(session.records);
    expect(session.report.fatal?.reason).toBe("xml_malformed");
  });

  it("reads a generated export with the counts it was built with", async () => {
    const counts = emptyCounts();
    const session = importAppleHealthXml(generateAppleHealthExport(2_000_000, counts, 100_000));
    const tally = { sample: 0, rr: 0, bp: 0, workout: 0 };
    for await (const r of session.records) tally[r.kind]++;
    expect(session.report.fatal).toBeUndefined();
    expect(tally).toEqual({ sample: counts.samples, rr: counts.rr, bp: counts.bp, workout: counts.workouts });
    expect(session.report.bytesRead).toBe(counts.bytes);
  });

  it("resumes from its checkpoint after a stop and yields exactly the rest", async () => {
    const parts: Uint8Array[] = [];
    for await (const c of generateAppleHealthExport(600_000, emptyCounts(), 50_000)) parts.push(c);
    const bytes = new Uint8Array(Buffer.concat(parts));
    const all = (await collect(importAppleHealthXml(chunksOf(bytes, 30_000)).records)).map((r) => r.clientId);
    for (const stopAfter of [1, 5, 11]) {
      const first = importAppleHealthXml(chunksOf(bytes, 30_000));
      const seen: string[] = [];
      let resumeAt = 0;
      let left = stopAfter;
      for await (const batch of first.batches) {
        seen.push(...batch.map((r) => r.clientId));
        resumeAt = first.report.resumeOffset ?? 0;
        if (--left <= 0) break; // the process "dies" after storing this batch
      }
      expect(resumeAt).toBeGreaterThan(0);
      const rest = importAppleHealthXml(chunksOf(bytes.subarray(resumeAt), 7_000), { resumeFrom: resumeAt });
      const more = (await collect(rest.records)).map((r) => r.clientId);
      expect(rest.report.fatal).toBeUndefined();
      expect([...seen, ...more]).toEqual(all);
    }
  });

  it.runIf(process.env.TONUS_HEAVY)(
    "streams a 1 GB generated export with bounded memory",
    async () => {
      // The live heap is what must not grow with the file; RSS also carries V8's lazily collected garbage.
      v8.setFlagsFromString("--expose-gc");
      const gc = vm.runInNewContext("gc") as () => void;
      const counts = emptyCounts();
      const session = importAppleHealthXml(generateAppleHealthExport(1 << 30, counts, 256 * 1024));
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      const rssBefore = process.memoryUsage().rss;
      let peakRss = rssBefore;
      let peakLiveHeap = 0;
      let n = 0;
      for await (const batch of session.batches) {
        n += batch.length;
        if (n % 200 < batch.length) peakRss = Math.max(peakRss, process.memoryUsage().rss);
        if (n % 2_000_000 < batch.length) {
          gc();
          peakLiveHeap = Math.max(peakLiveHeap, process.memoryUsage().heapUsed - heapBefore);
        }
      }
      expect(session.report.fatal).toBeUndefined();
      expect(counts.bytes).toBeGreaterThan(1 << 30);
      expect(session.report.emitted).toBe(counts.samples + counts.rr + counts.bp + counts.workouts);
      expect(peakLiveHeap).toBeLessThan(50 * 1024 * 1024);
      expect(peakRss - rssBefore).toBeLessThan(400 * 1024 * 1024);
    },
    600_000,
  );
});
