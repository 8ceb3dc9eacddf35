import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chunksOf, detectFileKind, previewCsv } from "../src/index.ts";
import { buildZip } from "./zip-writer.ts";

const enc = new TextEncoder();

describe("detectFileKind", () => {
  it("tells each supported file apart by its first bytes", () => {
    const fit = new Uint8Array(
      fs.readFileSync(path.join(import.meta.dirname, "fixtures", "fit", "garmin-fenix-5-run.fit")),
    );
    expect(detectFileKind(fit.subarray(0, 4096))).toEqual({ kind: "fit" });
    expect(
      detectFileKind(
        buildZip([{ name: "apple_health_export/export.xml", data: enc.encode("<HealthData/>") }]),
      ),
    ).toEqual({
      kind: "zip",
    });
    expect(
      detectFileKind(enc.encode('\uFEFF<?xml version="1.0"?>\n<!DOCTYPE HealthData [\n]>\n<HealthData>')),
    ).toEqual({
      kind: "apple_health_xml",
    });
    expect(detectFileKind(enc.encode("com.samsung.shealth.tracker.heart_rate,6313011,12\nx,y\n"))).toEqual({
      kind: "health_export",
      format: "samsung_health",
    });
    expect(
      detectFileKind(
        enc.encode('[{"dateTime":"01/01/23 00:00:05","value":{"bpm":62}}]'),
        "heart_rate-2023.json",
      ),
    ).toEqual({
      kind: "health_export",
      format: "fitbit_json",
    });
    expect(detectFileKind(enc.encode("RR\n812\n798\n805\n"))).toEqual({ kind: "rr_text" });
    // Google Fit's daily metrics hold an average weight too; Withings' weight.csv starts with the weight.
    const googleFit =
      "Date,Move Minutes count,Calories (kcal),Distance (m),Heart Points,Heart Minutes,Average heart rate (bpm),Average weight (kg),Max weight (kg),Min weight (kg),Step count\n2024-02-01,40,350,6100.5,12,10,72,72.5,72.6,72.4,8123\n";
    expect(detectFileKind(enc.encode(googleFit), "Daily activity metrics.csv")).toEqual({
      kind: "health_export",
      format: "google_fit",
    });
    expect(detectFileKind(enc.encode('Date,"Weight (kg)","Fat mass (kg)",Comments\n'))).toEqual({
      kind: "health_export",
      format: "withings",
    });
    expect(detectFileKind(enc.encode("when;pulse\n01.02.2024;60\n"))).toEqual({ kind: "csv" });
    expect(detectFileKind(enc.encode("\u0089PNG\r\n"))).toEqual({ kind: "unknown" });
    expect(detectFileKind(new Uint8Array(0))).toEqual({ kind: "unknown" });
  });

  // "Дата;Пульс;Вес (кг)\r\n01.03.2024;72;72,5\r\n" as a Russian Excel saves it, in Windows-1251.
  const cp1251Csv = new Uint8Array([
    0xc4,
    0xe0,
    0xf2,
    0xe0,
    0x3b,
    0xcf,
    0xf3,
    0xeb,
    0xfc,
    0xf1,
    0x3b,
    0xc2,
    0xe5,
    0xf1,
    0x20,
    0x28,
    0xea,
    0xe3,
    0x29,
    0x0d,
    0x0a,
    ...enc.encode("01.03.2024;72;72,5\r\n"),
  ]);

  it("takes a CSV in a single-byte encoding for a CSV, which the preview refuses as not UTF-8", async () => {
    expect(detectFileKind(cp1251Csv, "пульс.csv")).toEqual({ kind: "csv" });
    const preview = await previewCsv(chunksOf(cp1251Csv));
    expect(preview.header).toEqual([]);
    expect(preview.warnings[0]).toMatch(/^not_utf8\b/);
  });

  it("still takes a UTF-16 CSV, whose zero bytes are its ASCII characters' high halves", () => {
    const csv = "Date,Pulse\n2024-02-01,61\n";
    expect(detectFileKind(new Uint8Array(Buffer.from(csv, "utf16le")))).toEqual({ kind: "csv" });
    expect(detectFileKind(new Uint8Array(Buffer.from(`\uFEFF${csv}`, "utf16le")))).toEqual({ kind: "csv" });
  });

  it("does not take binary bytes with a delimiter and a line break for a CSV", () => {
    let seed = 1;
    const random = new Uint8Array(4096).map(() => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      // No NUL, which alone would make it binary: the share of other control characters decides.
      return seed >>> 24 || 1;
    });
    // a first line with a delimiter and a line break, as a binary file's may have
    random.set(enc.encode("a,b"), 0);
    random[3] = 0x0a;
    expect(detectFileKind(random)).toEqual({ kind: "unknown" });
    expect(detectFileKind(enc.encode("a;b\n\u0000\u0000\u0000\n"))).toEqual({ kind: "unknown" });
    const controls = new Uint8Array([
      ...enc.encode("a;b\n"),
      ...Array.from({ length: 20 }, (_, i) => (i % 8) + 1),
    ]);
    expect(detectFileKind(controls)).toEqual({ kind: "unknown" });
  });
});
