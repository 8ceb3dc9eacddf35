import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { detectRrFileFormat, parseRrFile } from "../src/files/index.ts";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

const KUBIOS_REPORT = [
  "Kubios HRV Standard Analysis Results",
  "Software version,3.5.0",
  "Artefact correction,none",
  "",
  "Mean RR (ms),806.1",
  "RR (ms),see table",
  "",
  "RR Interval Data",
  "Time (s),RR interval (s),Heart rate (bpm)",
  "0.812,0.812,73.9",
  "1.603,0.791,75.9",
  "2.418,0.815,73.6",
  "",
  "Spectrum",
  "Frequency (Hz),PSD (s^2/Hz)",
  "0.000,0.0012",
].join("\r\n");

describe("parseRrFile", () => {
  it("reads one interval per line in milliseconds (Elite HRV, Polar)", () => {
    const r = parseRrFile("812\n790\n805\n");
    expect(r).toMatchObject({ format: "one_per_line", unit: "ms", rrMs: [812, 790, 805], lines: [1, 2, 3] });
    expect(r.issues).toEqual([]);
  });

  it("detects seconds and converts them to milliseconds", () => {
    const r = parseRrFile("0.812\n0.790\n0.805");
    expect(r.unit).toBe("s");
    expect(r.rrMs).toEqual([812, 790, 805]);
  });

  it("accepts decimal commas in a one-per-line file of seconds", () => {
    const r = parseRrFile("0,812\n0,790\n1,005\n");
    expect(r.format).toBe("one_per_line");
    expect(r.rrMs).toEqual([812, 790, 1005]);
  });

  it("takes the unit from a one-line header", () => {
    const r = parseRrFile("RR (s)\n0.8\n0.9\n");
    expect(r).toMatchObject({ format: "one_per_line", unit: "s", rrMs: [800, 900], lines: [2, 3] });
  });

  it("reads a Welltory rr_data comma string", () => {
    const r = parseRrFile("819,1008,831,847,785");
    expect(r).toMatchObject({ format: "list", unit: "ms", rrMs: [819, 1008, 831, 847, 785] });
  });

  it("reads a bracketed Polar-style list over several lines", () => {
    const r = parseRrFile("[812, 790; 805\n 799 801]");
    expect(r.format).toBe("list");
    expect(r.rrMs).toEqual([812, 790, 805, 799, 801]);
    expect(r.lines).toEqual([1, 1, 1, 2, 2]);
  });

  it("reads an HRV Logger RR export", () => {
    const text = "date,rr,since start\n2025-03-15 09:00:15.123,823,0\n2025-03-15 09:00:15.946,812,823\n";
    expect(detectRrFileFormat(text)).toBe("hrv_logger");
    const r = parseRrFile(text);
    expect(r).toMatchObject({ format: "hrv_logger", unit: "ms", rrMs: [823, 812], lines: [2, 3] });
  });

  it("reads the RR table of a Kubios report and stops at the next section", () => {
    const r = parseRrFile(KUBIOS_REPORT);
    expect(r).toMatchObject({ format: "kubios", unit: "s", rrMs: [812, 791, 815], lines: [10, 11, 12] });
    expect(r.issues).toEqual([]);
  });

  it("reads a delimited table with an rr_ms column (the project's fixtures)", () => {
    const r = parseRrFile(fixture("rr/mitdb_100_first5min_rr.csv"));
    expect(r.format).toBe("table");
    expect(r.unit).toBe("ms");
    expect(r.rrMs).toHaveLength(371);
    expect(r.rrMs[0]).toBeCloseTo(813.8889, 4);
    expect(r.issues).toEqual([]);
  });

  it("reads semicolon tables with a decimal point", () => {
    const r = parseRrFile("time;RR-interval [ms]\n0;812.5\n0.81;790\n");
    expect(r).toMatchObject({ format: "table", unit: "ms", rrMs: [812.5, 790] });
  });

  it("skips a non-numeric value and names its line", () => {
    const r = parseRrFile("812\n790\nabc\n805\n");
    expect(r.rrMs).toEqual([812, 790, 805]);
    expect(r.issues).toEqual([{ code: "invalid_value", line: 3, text: "abc" }]);
  });

  it("skips zero, negative and over-30-s intervals with out_of_range and their lines", () => {
    const r = parseRrFile("812\n0\n-5\n40000\n805\n");
    expect(r.rrMs).toEqual([812, 805]);
    expect(r.issues).toEqual([
      { code: "out_of_range", line: 2, text: "0" },
      { code: "out_of_range", line: 3, text: "-5" },
      { code: "out_of_range", line: 4, text: "40000" },
    ]);
  });

  it("names the line of a bad token inside a list", () => {
    const r = parseRrFile("812,790\n805,x1,799");
    expect(r.rrMs).toEqual([812, 790, 805, 799]);
    expect(r.issues).toEqual([{ code: "invalid_value", line: 2, text: "x1" }]);
  });

  it("flags a bad cell in an HRV Logger file with its line", () => {
    const r = parseRrFile("date,rr,since start\n2025-03-15 09:00:15,823,0\n2025-03-15 09:00:16,--,823\n");
    expect(r.rrMs).toEqual([823]);
    expect(r.issues).toEqual([{ code: "invalid_value", line: 3, text: "--" }]);
  });

  it("returns empty_file for blank text", () => {
    expect(parseRrFile(" \n\r\n")).toEqual({ rrMs: [], lines: [], issues: [{ code: "empty_file" }] });
  });

  it("returns unrecognised_format for text without numbers", () => {
    const r = parseRrFile("hello\nworld\n");
    expect(r.rrMs).toEqual([]);
    expect(r.issues[0]?.code).toBe("unrecognised_format");
  });

  it("refuses values that are neither seconds nor milliseconds", () => {
    const r = parseRrFile("40\n42\n41\n");
    expect(r.rrMs).toEqual([]);
    expect(r.issues).toEqual([{ code: "ambiguous_unit" }]);
  });

  it("lets the caller force the unit and format", () => {
    expect(parseRrFile("40\n42", { unit: "ms" }).rrMs).toEqual([40, 42]);
    expect(parseRrFile("812,790", { format: "one_per_line" }).issues[0]?.code).toBe("unrecognised_format");
  });

  it("returns missing_rr_column when a table has no RR column", () => {
    const r = parseRrFile("time,hr\n0,60\n", { format: "table" });
    expect(r.issues).toEqual([{ code: "missing_rr_column" }]);
  });

  it("caps the listed issues and counts the rest", () => {
    const text = ["800", ...Array.from({ length: 150 }, () => "bad"), "810"].join("\n");
    const r = parseRrFile(text);
    expect(r.rrMs).toEqual([800, 810]);
    expect(r.issues).toHaveLength(101);
    expect(r.issues.at(-1)).toEqual({ code: "more_issues", count: 50 });
  });

  it("ignores a stray separator at the end of each line", () => {
    const r = parseRrFile("812,\n790,\n805;\n");
    expect(r).toMatchObject({ format: "one_per_line", rrMs: [812, 790, 805] });
    expect(r.issues).toEqual([]);
  });

  it("handles a byte-order mark and CR line ends", () => {
    expect(parseRrFile("\uFEFF812\r790\r").rrMs).toEqual([812, 790]);
  });
});
