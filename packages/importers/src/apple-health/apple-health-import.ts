// Apple Health export.xml → Tonus records, streaming: the scanner keeps only unfinished markup between
// chunks and the mapper only the element being read (a Record with its beats, a Correlation, a Workout).
import { ImportInputError } from "../errors.ts";
import { createReport, createSession, fail } from "../report.ts";
import type { ImportOptions, ImportRecord, ImportReport, ImportSession } from "../types.ts";
import { AppleHealthMapper } from "./apple-health-mapper.ts";
import { XmlScanner } from "./xml-scanner.ts";

const WANTED = new Set([
  "Record",
  "Correlation",
  "Workout",
  "WorkoutStatistics",
  "InstantaneousBeatsPerMinute",
  "HealthData",
]);

/** Options of the Apple Health importers. */
export type AppleHealthOptions = ImportOptions & {
  /**
   * Resume a stopped import at a `report.resumeOffset` it gave: for export.xml the input must start at
   * that byte of the file; for export.zip the importer skips that many bytes of the inflated export.xml.
   */
  resumeFrom?: number;
};

/**
 * Reads an Apple Health `export.xml` from chunks (of any size; never more than one unfinished tag is
 * kept between them) and yields:
 * - quantity Records of the types in `QUANTITY_TYPES` as samples in storage units (heart rate bpm,
 *   SDNN s, steps, distance m, energy J, weight kg, height m, body fat and SpO2 %, water L, carbs kg);
 * - the per-beat list of an SDNN Record (`InstantaneousBeatsPerMinute`) as an RR series
 *   (60 000 / bpm ms each), started at the Record's start;
 * - sleep analysis as `sleep` samples (duration s, stage in `meta.stage`);
 * - blood-pressure Correlations as `bp` records; Workouts with duration, distance and energy (from
 *   the Workout's totals or, in newer exports, its WorkoutStatistics).
 * Other types are counted in `report.ignored` and named once in the warnings. The DTD is never
 * interpreted (declared entities are reported and not expanded), control characters are dropped, a
 * malformed Record is rejected with its offset and the scan goes on; a truncated file ends with fatal
 * `unexpected_eof` after everything complete before the cut was yielded. `clientId`s hash the record's
 * own attributes, so re-importing the same export repeats them.
 */
export function importAppleHealthXml(
  input: AsyncIterable<Uint8Array>,
  options: AppleHealthOptions = {},
): ImportSession {
  const report = createReport("apple_health_xml");
  return createSession(report, runAppleHealthXml(input, options, report));
}

/**
 * The reading loop of {@link importAppleHealthXml}, also used by the zip importer (which counts
 * `bytesRead` itself, in compressed bytes, and passes `countBytes: false`).
 */
export async function* runAppleHealthXml(
  input: AsyncIterable<Uint8Array>,
  options: AppleHealthOptions,
  report: ImportReport,
  countBytes = true,
): AsyncGenerator<ImportRecord[], void, undefined> {
  const mapper = new AppleHealthMapper(report, options.source ?? "apple_health");
  const scanner = new XmlScanner(WANTED, mapper);
  const base = options.resumeFrom ?? 0;
  if (base > 0) scanner.resumeInsideRoot();
  if (countBytes) report.bytesRead = base;
  let inputBytes = 0;
  try {
    try {
      for await (const chunk of input) {
        if (options.signal?.aborted) {
          fail(report, { reason: "aborted", offset: inputBytes });
          break;
        }
        inputBytes += chunk.length;
        if (countBytes) report.bytesRead += chunk.length;
        scanner.push(chunk);
        // A checkpoint where only the root is open: everything before it has been yielded (with this
        // batch) and a restart from it reads the rest exactly once.
        // Batches are handed out only there, so the offset always matches what was yielded.
        if (!mapper.isInsideElement && scanner.openElements === 1) {
          report.resumeOffset = base + inputBytes - scanner.pendingLength;
          if (mapper.out.length > 0) yield take(mapper);
        }
        if (scanner.error) break;
      }
    } catch (e) {
      if (!(e instanceof ImportInputError)) throw e;
      fail(report, e.rejection);
    }
    if (!report.fatal) {
      const problem = scanner.finish();
      if (mapper.out.length > 0) yield take(mapper);
      if (inputBytes === 0) fail(report, { reason: "empty_file", offset: 0 });
      else if (problem) fail(report, problem);
    }
  } finally {
    report.done = true;
  }
}

function take(mapper: AppleHealthMapper): ImportRecord[] {
  const batch = mapper.out;
  mapper.out = [];
  return batch;
}
