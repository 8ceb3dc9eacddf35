import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Checkpoint, readImport } from "./imports.reader.ts";
import { withingsBpCsv } from "./test/fixtures.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-reader-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The batches' record counts and checkpoints of one run of the reader. */
async function run(file: string, checkpoint: Checkpoint | null) {
  const batches: { records: number; recordsEnd: number }[] = [];
  const reader = readImport({
    file,
    kind: "health_export",
    fileName: "bp.csv",
    timezoneOffsetMin: 0,
    recordedAtMs: 0,
    checkpoint,
    batchSize: { records: 1000, slow: 20 },
  });
  for await (const batch of reader)
    batches.push({ records: batch.records.length, recordsEnd: batch.recordsEnd });
  return batches;
}

describe("the import reader's checkpoints", () => {
  it("count from the start of the file on a resumed run too, so a second restart skips as much", async () => {
    const file = path.join(dir, "bp.csv");
    fs.writeFileSync(file, withingsBpCsv(5000));
    const whole = await run(file, null);
    const total = whole.reduce((n, b) => n + b.records, 0);
    expect(whole.length).toBeGreaterThan(2);
    expect(whole.at(-1)?.recordsEnd).toBe(total);

    // Restart after the first two batches, then again after the first batch of the resumed run.
    const firstResume = await run(file, { records: 40 });
    expect(firstResume[0]?.recordsEnd).toBe(40 + (firstResume[0]?.records ?? 0));
    expect(firstResume.at(-1)?.recordsEnd).toBe(total);
    const secondResume = await run(file, { records: firstResume[0]?.recordsEnd ?? 0 });
    expect(secondResume.reduce((n, b) => n + b.records, 0)).toBe(total - (firstResume[0]?.recordsEnd ?? 0));
    expect(secondResume.at(-1)?.recordsEnd).toBe(total);
  });
});
