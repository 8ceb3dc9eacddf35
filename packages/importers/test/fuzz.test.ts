// Byte and mutation fuzzing of every text reader (RELIABILITY Z3): the Apple Health XML scanner and
// importer, the CSV engine and the known CSV/JSON exports, CSV preview and detection, and RR text files.
// The package's contract is that bad input never throws: it ends in the report (`fatal` for the whole
// file, `rejected` per line or element). So each case must finish, with `report.done`, records that keep
// the documented invariants, and no exception of any kind. FIT has its own mutation test (fit.test.ts).
// Reduced counts by default; TONUS_HEAVY=1 runs 10,000 cases per reader.
import { parseRrFile } from "@tonus/hrv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  chunksOf,
  detectFileKind,
  type ImportRecord,
  type ImportSession,
  importAppleHealthXml,
  importCsv,
  importHealthExport,
  importRrText,
  previewCsv,
  XmlScanner,
} from "../src/index.ts";
import {
  APPLE_HEALTH,
  CSV_EXPORTS,
  FITBIT_JSON,
  GENERIC_CSV,
  GENERIC_MAPPING,
  inputs,
  mutate,
  mutation,
  RR_TEXTS,
  syntheticExport,
  utf8,
} from "./fuzz-inputs.ts";

const HEAVY = Boolean(process.env.TONUS_HEAVY);
const RUNS = HEAVY ? 10_000 : 250;
const TIMEOUT_MS = HEAVY ? 1_800_000 : 120_000;
/**
 * A hang detector, not a speed goal: inputs here are a few kilobytes (at most about 100 KB), read in
 * milliseconds; a case still running after this long is looping.
 */
const HANG_MS = 5_000;

const METRIC = /^[a-z][a-z0-9_]*$/;
const SOURCE = /^[a-z][a-z0-9_.-]*$/;

/** The documented invariants of every record (types.ts). */
function checkRecord(r: ImportRecord): void {
  expect(SOURCE.test(r.source), r.source).toBe(true);
  expect(typeof r.clientId === "string" && r.clientId.length > 0).toBe(true);
  switch (r.kind) {
    case "sample":
      expect(METRIC.test(r.metric), r.metric).toBe(true);
      expect(Number.isFinite(r.value) && Number.isFinite(r.at), JSON.stringify(r)).toBe(true);
      if (r.endAt !== undefined) expect(Number.isFinite(r.endAt)).toBe(true);
      break;
    case "rr":
      expect(Number.isFinite(r.startedAt)).toBe(true);
      expect(r.rrMs.every((v) => Number.isFinite(v))).toBe(true);
      break;
    case "bp":
      expect([r.at, r.systolicMmHg, r.diastolicMmHg].every(Number.isFinite), JSON.stringify(r)).toBe(true);
      break;
    case "workout":
      expect(Number.isFinite(r.startedAt) && Number.isFinite(r.endedAt), JSON.stringify(r)).toBe(true);
      break;
  }
}

/** Runs one session to its end: nothing may escape, the report ends `done` and every record holds. */
async function drain(session: ImportSession, size: number): Promise<void> {
  const started = performance.now();
  let count = 0;
  for await (const record of session.records) {
    checkRecord(record);
    count++;
  }
  const { report } = session;
  expect(report.done).toBe(true);
  expect(report.rejectedCount).toBeGreaterThanOrEqual(report.rejected.length);
  if (report.fatal) expect(typeof report.fatal.reason).toBe("string");
  expect(count).toBe(report.emitted);
  expect(performance.now() - started, `${size} bytes`).toBeLessThan(HANG_MS);
}

describe("the Apple Health XML reader under byte and mutation fuzzing (Z3)", () => {
  it(
    "never throws or hangs in the scanner, whatever the text and its pieces",
    () => {
      const handler = { open: () => {}, close: () => {}, doctype: () => {} };
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string({ unit: "binary", maxLength: 600 }),
            fc
              .array(
                fc.constantFrom("<", ">", "/", "<!", "--", "[", "]", '"', "'", "=", "?", "a ", "Record", "&"),
                { maxLength: 200 },
              )
              .map((a) => a.join("")),
          ),
          fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 20 }),
          (text, cuts) => {
            const bytes = Buffer.from(text);
            const scanner = new XmlScanner(new Set(["Record", "HealthData"]), handler);
            let at = 0;
            for (const n of cuts) {
              scanner.push(bytes.subarray(at, at + n));
              at = Math.min(bytes.length, at + n);
              // What is kept is exactly the bytes not consumed yet, and their count is kept right.
              const pending = scanner.pending;
              expect(pending.length).toBe(scanner.pendingLength);
              expect(Buffer.compare(bytes.subarray(at - pending.length, at), pending)).toBe(0);
            }
            scanner.push(bytes.subarray(at));
            const problem = scanner.finish();
            if (problem) expect(["xml_malformed", "unexpected_eof"]).toContain(problem.reason);
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "ends every mutated or random export in a report",
    async () => {
      const seeds = [utf8(APPLE_HEALTH), utf8(await syntheticExport(40_000))];
      await fc.assert(
        fc.asyncProperty(inputs(seeds), async ({ bytes, chunk }) => {
          await drain(importAppleHealthXml(chunksOf(bytes, chunk)), bytes.length);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it("reads a DTD that never ends, fed a byte at a time, without rescanning it for every byte", async () => {
    // Found by this fuzzer: unfinished markup was scanned again from its start for each chunk, so a long
    // one fed in tiny chunks took quadratic time (13 s for 40 KB). 400 KB here would take many minutes.
    const text = (await syntheticExport(400_000)).replace("]>", "");
    const started = performance.now();
    const session = importAppleHealthXml(chunksOf(utf8(text), 1));
    await drain(session, text.length);
    expect(session.report.fatal?.reason).toBe("unexpected_eof");
    expect(performance.now() - started).toBeLessThan(60_000);
  }, 120_000);

  it(
    "resumes from any offset of a mutated export without throwing",
    async () => {
      const seed = utf8(APPLE_HEALTH);
      await fc.assert(
        fc.asyncProperty(inputs([seed]), fc.nat(), async ({ bytes, chunk }, offset) => {
          const from = bytes.length === 0 ? 0 : offset % bytes.length;
          await drain(
            importAppleHealthXml(chunksOf(bytes.subarray(from), chunk), { resumeFrom: from }),
            bytes.length,
          );
        }),
        { numRuns: Math.ceil(RUNS / 5) },
      );
    },
    TIMEOUT_MS,
  );
});

describe("the CSV and JSON readers under byte and mutation fuzzing (Z3)", () => {
  const exportSeeds = [...CSV_EXPORTS, FITBIT_JSON].map(utf8);

  it(
    "ends every mutated or random known export in a report",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          inputs(exportSeeds),
          fc.constantFrom("heart_rate.csv", "steps-2024-01-02.json", "weight.csv", "x"),
          fc.integer({ min: -720, max: 840 }),
          async ({ bytes, chunk }, fileName, timezoneOffsetMin) => {
            await drain(
              importHealthExport(chunksOf(bytes, chunk), { fileName, timezoneOffsetMin }),
              bytes.length,
            );
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "ends every mutated generic CSV in a report, with a mapping or a named encoding",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          inputs([utf8(GENERIC_CSV), ...exportSeeds]),
          fc.constantFrom(undefined, "windows-1251", "utf-16le", "no-such-encoding"),
          fc.boolean(),
          async ({ bytes, chunk }, encoding, requireColumns) => {
            const session = importCsv(chunksOf(bytes, chunk), {
              mapping: GENERIC_MAPPING,
              requireColumns,
              ...(encoding ? { encoding } : {}),
            });
            await drain(session, bytes.length);
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "previews and detects any bytes without throwing",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          inputs([utf8(GENERIC_CSV), ...exportSeeds, utf8(APPLE_HEALTH)]),
          async ({ bytes, chunk }) => {
            const preview = await previewCsv(chunksOf(bytes, chunk));
            expect(Array.isArray(preview.header) && Array.isArray(preview.rows)).toBe(true);
            const kind = detectFileKind(bytes.subarray(0, 4096), "upload.csv");
            expect(typeof kind.kind).toBe("string");
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );
});

describe("the RR text reader under byte and mutation fuzzing (Z3)", () => {
  const seeds = RR_TEXTS.map(utf8);

  it(
    "ends every mutated or random RR file in a report with finite intervals",
    async () => {
      await fc.assert(
        fc.asyncProperty(inputs(seeds), async ({ bytes, chunk }) => {
          await drain(
            importRrText(chunksOf(bytes, chunk), { startedAt: Date.UTC(2024, 0, 2, 8) }),
            bytes.length,
          );
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "parses any text with packages/hrv's parseRrFile without throwing",
    () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string({ unit: "binary", maxLength: 2000 }),
            fc
              .tuple(fc.constantFrom(...RR_TEXTS), fc.array(mutation, { maxLength: 6 }))
              .map(([t, ms]) => new TextDecoder().decode(mutate(utf8(t), ms))),
          ),
          (text) => {
            const parsed = parseRrFile(text);
            expect(parsed.rrMs.every((v) => Number.isFinite(v) && v > 0)).toBe(true);
            expect(Array.isArray(parsed.issues)).toBe(true);
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );
});
