import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectFileKind } from "../src/index.ts";
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
});
