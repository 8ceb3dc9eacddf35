// A synthetic Apple Health export.xml of any size, shaped like a real one (Apple's DTD head, Records with
// metadata, SDNN Records with per-beat lists, blood-pressure correlations, sleep, workouts), generated in
// chunks so a multi-gigabyte file never exists in memory or on disk. Used by the heavy test and the bench.
// Run as a script (`node synthetic-apple-health.ts <bytes> <file> <headBytes>`) it writes one to a file
// and prints what `writeAppleHealthExport` answers, as JSON: what `writeAppleHealthExportInChild` runs.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";

const HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 13 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record
  type          CDATA #REQUIRED
  unit          CDATA #IMPLIED
  value         CDATA #IMPLIED
  sourceName    CDATA #REQUIRED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
]>
<HealthData locale="en_US">
 <ExportDate value="2024-03-01 09:00:00 +0100"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="1985-04-12" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
`;
const TAIL = "</HealthData>\n";
const DEVICE =
  "&lt;&lt;HKDevice: 0x283f1c2d0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.1&gt;";

function date(ms: number): string {
  const d = new Date(ms + 3600_000);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0100`;
}

/** What a generated export holds, to check an import against. */
export type SyntheticCounts = { samples: number; rr: number; bp: number; workouts: number; bytes: number };

function element(k: number, t0: number, counts: SyntheticCounts): string {
  const at = t0 + k * 60_000;
  const start = date(at);
  const end = date(at + 60_000);
  const common = `sourceName="Anna’s Apple Watch" sourceVersion="10.1" device="${DEVICE}" creationDate="${end}" startDate="${start}"`;
  const kind = k % 100;
  if (kind === 7) {
    counts.samples++;
    counts.rr++;
    let beats = "";
    for (let b = 0; b < 60; b++)
      beats += `    <InstantaneousBeatsPerMinute bpm="${58 + ((b * 7) % 11)}" time="9:${String(b).padStart(2, "0")}:01.23 AM"/>\n`;
    return ` <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" ${common} endDate="${end}" unit="ms" value="${40 + (k % 30)}.5">\n  <HeartRateVariabilityMetadataList>\n${beats}  </HeartRateVariabilityMetadataList>\n </Record>\n`;
  }
  if (kind === 13) {
    counts.bp++;
    return ` <Correlation type="HKCorrelationTypeIdentifierBloodPressure" ${common} endDate="${start}">\n  <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" ${common} endDate="${start}" unit="mmHg" value="${115 + (k % 20)}"/>\n  <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" ${common} endDate="${start}" unit="mmHg" value="${72 + (k % 10)}"/>\n </Correlation>\n`;
  }
  if (kind === 29) {
    counts.workouts++;
    return ` <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" totalDistance="5.2" totalDistanceUnit="km" totalEnergyBurned="320" totalEnergyBurnedUnit="kcal" ${common} endDate="${date(at + 1_800_000)}">\n  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="${start}" duration="10" durationUnit="min"/>\n </Workout>\n`;
  }
  counts.samples++;
  if (kind % 3 === 0) {
    return ` <Record type="HKQuantityTypeIdentifierStepCount" ${common} endDate="${end}" unit="count" value="${k % 140}"/>\n`;
  }
  if (kind % 3 === 1) {
    return ` <Record type="HKQuantityTypeIdentifierActiveEnergyBurned" ${common} endDate="${end}" unit="kcal" value="${(k % 50) / 10}"/>\n`;
  }
  return ` <Record type="HKQuantityTypeIdentifierHeartRate" ${common} endDate="${end}" unit="count/min" value="${60 + (k % 40)}">\n  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>\n </Record>\n`;
}

/**
 * Yields an export of at least `targetBytes` in chunks of about `chunkBytes`; `counts` fills in with
 * what it holds (complete once the generator has finished).
 */
export async function* generateAppleHealthExport(
  targetBytes: number,
  counts: SyntheticCounts,
  chunkBytes = 1 << 20,
): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  const t0 = Date.UTC(2021, 0, 1);
  let text = HEAD;
  let k = 0;
  while (counts.bytes + text.length < targetBytes) {
    text += element(k++, t0, counts);
    if (text.length >= chunkBytes) {
      const bytes = encoder.encode(text);
      counts.bytes += bytes.length;
      yield bytes;
      text = "";
    }
  }
  const bytes = encoder.encode(text + TAIL);
  counts.bytes += bytes.length;
  yield bytes;
}

/** A fresh counter for {@link generateAppleHealthExport}. */
export function emptyCounts(): SyntheticCounts {
  return { samples: 0, rr: 0, bp: 0, workouts: 0, bytes: 0 };
}

/** A written export: what it holds, its SHA-256 and its first bytes (as an upload's checks read them). */
export type WrittenExport = { counts: SyntheticCounts; sha256: string; head: Uint8Array };

/** Writes an export of at least `targetBytes` to `file`, streamed, keeping its first `headBytes`. */
export async function writeAppleHealthExport(
  targetBytes: number,
  file: string,
  headBytes: number,
): Promise<WrittenExport> {
  const counts = emptyCounts();
  const hash = createHash("sha256");
  let head = Buffer.alloc(0);
  const out = fs.createWriteStream(file);
  for await (const chunk of generateAppleHealthExport(targetBytes, counts)) {
    if (head.length < headBytes) head = Buffer.concat([head, chunk]).subarray(0, headBytes);
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return { counts, sha256: hash.digest("hex"), head: new Uint8Array(head) };
}

/**
 * {@link writeAppleHealthExport} in a child process, so that measuring an import's memory in this one
 * does not measure the garbage of generating a gigabyte of text (V8 keeps the heap it grew for a while).
 */
export function writeAppleHealthExportInChild(
  targetBytes: number,
  file: string,
  headBytes: number,
): Promise<WrittenExport> {
  const args = [import.meta.filename, String(targetBytes), file, String(headBytes)];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, (error, stdout, stderr) => {
      if (error) return reject(new Error(`writing the export failed: ${stderr || error.message}`));
      const written = JSON.parse(stdout) as Omit<WrittenExport, "head"> & { head: string };
      resolve({ ...written, head: new Uint8Array(Buffer.from(written.head, "base64")) });
    });
  });
}

if (process.argv[1] === import.meta.filename) {
  const [bytes, file, headBytes] = process.argv.slice(2);
  const written = await writeAppleHealthExport(Number(bytes), file ?? "", Number(headBytes));
  process.stdout.write(JSON.stringify({ ...written, head: Buffer.from(written.head).toString("base64") }));
}
