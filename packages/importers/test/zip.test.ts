import { leftOutOf } from "@tonus/contract";
import { describe, expect, it } from "vitest";
import {
  bytesSource,
  collect,
  ImportInputError,
  importAppleHealthZip,
  isSafeZipPath,
  openZip,
  readZipEntry,
} from "../src/index.ts";
import { emptyCounts, generateAppleHealthExport } from "./synthetic-apple-health.ts";
import { buildZip, deflatedZeros } from "./zip-writer.ts";

const enc = new TextEncoder();
const XML = `<?xml version="1.0" encoding="UTF-8"?>
<HealthData locale="en_US">
 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 08:00:00 +0100" value="64"/>
 <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" startDate="2024-02-01 08:00:00 +0100" endDate="2024-02-01 08:10:00 +0100" value="812"/>
</HealthData>
`;

async function openError(bytes: Uint8Array) {
  try {
    await openZip(bytesSource(bytes));
  } catch (e) {
    if (e instanceof ImportInputError) return e.rejection.reason;
    throw e;
  }
  return "opened";
}

async function importZip(bytes: Uint8Array) {
  const session = importAppleHealthZip(bytesSource(bytes));
  const records = await collect(session.records);
  return { records, report: session.report };
}

describe("isSafeZipPath", () => {
  it("refuses parent, absolute, drive and backslash paths", () => {
    for (const name of ["../x", "a/../../b", "/abs", "C:\\x", "c:x", "a\\..\\b", "", "a\0b"]) {
      expect(isSafeZipPath(name), name).toBe(false);
    }
    expect(isSafeZipPath("apple_health_export/export.xml")).toBe(true);
    expect(isSafeZipPath("workout-routes/route_2024-01-01..gpx")).toBe(true);
  });
});

describe("importAppleHealthZip", () => {
  it("streams export.xml out of an Apple Health export.zip", async () => {
    const zip = buildZip([
      { name: "apple_health_export/", method: 0 },
      { name: "apple_health_export/export_cda.xml", data: enc.encode("<ClinicalDocument/>") },
      { name: "apple_health_export/workout-routes/route_1.gpx", data: enc.encode("<gpx/>"), method: 0 },
      { name: "apple_health_export/export.xml", data: enc.encode(XML) },
      { name: "apple_health_export/old/export.zip", data: enc.encode("PK"), method: 0 },
    ]);
    const { records, report } = await importZip(zip);
    expect(report.fatal).toBeUndefined();
    expect(records.map((r) => (r.kind === "sample" ? r.metric : r.kind))).toEqual(["heart_rate", "steps"]);
    // A zip inside is not opened, and the report says which.
    expect(leftOutOf(report.warnings)).toMatchObject({
      files: ["apple_health_export/old/export.zip"],
      other: [],
    });
    expect(report.bytesRead).toBeGreaterThan(0);
    expect(report.bytesRead).toBeLessThanOrEqual(zip.length);
  });

  it("resumes a stopped import by inflating again and skipping to the checkpoint", async () => {
    const parts: Uint8Array[] = [];
    for await (const c of generateAppleHealthExport(2_000_000, emptyCounts(), 100_000)) parts.push(c);
    const zip = buildZip([
      { name: "apple_health_export/export.xml", data: new Uint8Array(Buffer.concat(parts)) },
    ]);
    const all = (await importZip(zip)).records.map((r) => r.clientId);
    const first = importAppleHealthZip(bytesSource(zip));
    const seen: string[] = [];
    let resumeAt = 0;
    for await (const batch of first.batches) {
      seen.push(...batch.map((r) => r.clientId));
      resumeAt = first.report.resumeOffset ?? 0;
      if (seen.length > all.length / 3) break;
    }
    const rest = importAppleHealthZip(bytesSource(zip), { resumeFrom: resumeAt });
    const more = (await collect(rest.records)).map((r) => r.clientId);
    expect(rest.report.fatal).toBeUndefined();
    expect(seen.length).toBeLessThan(all.length);
    expect([...seen, ...more]).toEqual(all);
  });

  it("reads a zip64 archive (exports over 4 GB are written so)", async () => {
    const zip = buildZip(
      [
        { name: "apple_health_export/export_cda.xml", data: enc.encode("<ClinicalDocument/>") },
        { name: "apple_health_export/export.xml", data: enc.encode(XML) },
      ],
      { zip64: true },
    );
    const archive = await openZip(bytesSource(zip));
    expect(archive.entries.map((e) => e.name)).toEqual([
      "apple_health_export/export_cda.xml",
      "apple_health_export/export.xml",
    ]);
    const { records, report } = await importZip(zip);
    expect(report.fatal).toBeUndefined();
    expect(records).toHaveLength(2);
  });

  it.each(["../x", "/abs", "C:\\x", "a\\..\\b", "apple_health_export/../../etc/passwd"])(
    "refuses the whole archive when an entry is named %s",
    async (name) => {
      const zip = buildZip([
        { name: "apple_health_export/export.xml", data: enc.encode(XML) },
        { name, data: enc.encode("x") },
      ]);
      const { records, report } = await importZip(zip);
      expect(records).toHaveLength(0);
      expect(report.fatal?.reason).toBe("zip_unsafe_path");
    },
  );

  it("refuses a symlink entry", async () => {
    const zip = buildZip([
      { name: "apple_health_export/export.xml", data: enc.encode(XML) },
      { name: "link", data: enc.encode("/etc/passwd"), symlink: true },
    ]);
    expect((await importZip(zip)).report.fatal).toMatchObject({
      reason: "zip_unsafe_path",
      detail: "symlink link",
    });
  });

  it("refuses more than 10,000 entries", async () => {
    const entries = Array.from({ length: 10_001 }, (_, i) => ({ name: `f${i}`, method: 0 as const }));
    expect(await openError(buildZip(entries))).toBe("zip_too_many_entries");
  });

  it("refuses entries that share their data (overlap bomb)", async () => {
    const zip = buildZip([
      { name: "a.xml", data: enc.encode(XML) },
      { name: "b.xml", data: enc.encode(XML), sameDataAs: 0 },
    ]);
    expect(await openError(zip)).toBe("zip_invalid");
  });

  it("stops an entry whose declared size lies", async () => {
    const zip = buildZip([
      { name: "apple_health_export/export.xml", data: enc.encode(XML), declaredSize: 100 },
    ]);
    const { report } = await importZip(zip);
    expect(report.fatal).toMatchObject({ reason: "zip_invalid" });
    expect(report.fatal?.detail).toContain("declared size");
  });

  it("refuses a bomb by its declared ratio before inflating anything", async () => {
    const { deflated, crc32 } = deflatedZeros(64 << 20);
    const zip = buildZip([{ name: "export.xml", deflated, crc32, uncompressedSize: 64 << 20 }]);
    expect(await openError(zip)).toBe("zip_ratio_exceeded");
  });

  it("aborts a bomb that lies about its size once the inflated bytes pass the ratio", async () => {
    const total = process.env.TONUS_HEAVY ? 1 << 30 : 64 << 20;
    const { deflated, crc32 } = deflatedZeros(total);
    // declared 100x the compressed size: within the ratio cap, so only streaming can catch it, by the
    // ratio of inflated to compressed bytes read so far or by passing the declared size, whichever first
    const zip = buildZip([{ name: "export.xml", deflated, crc32, uncompressedSize: deflated.length * 100 }]);
    const archive = await openZip(bytesSource(zip));
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    let inflated = 0;
    const entry = archive.entries[0];
    if (!entry) throw new Error("no entry");
    let reason = "";
    try {
      for await (const chunk of readZipEntry(archive, entry)) inflated += chunk.length;
    } catch (e) {
      if (e instanceof ImportInputError) reason = e.rejection.reason;
    }
    expect(["zip_ratio_exceeded", "zip_invalid"]).toContain(reason);
    expect(inflated).toBeLessThan(total);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
  }, 120_000);

  it("reports a corrupt entry, a zip without export.xml and bytes that are no zip", async () => {
    const good = buildZip([{ name: "apple_health_export/export.xml", data: enc.encode(XML) }]);
    const corrupt = good.slice();
    for (let i = 60; i < 90; i++) corrupt[i] = 0xff;
    expect((await importZip(corrupt)).report.fatal?.reason).toBe("zip_invalid");
    const other = buildZip([{ name: "notes.txt", data: enc.encode("hi") }]);
    expect((await importZip(other)).report.fatal?.reason).toBe("zip_entry_not_found");
    expect((await importZip(enc.encode(XML))).report.fatal?.reason).toBe("zip_invalid");
    expect((await importZip(new Uint8Array(0))).report.fatal?.reason).toBe("zip_invalid");
  });
});
