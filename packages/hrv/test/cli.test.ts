// The tonus-hrv command run as a real process (Node 24 runs the .ts directly).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeRr } from "../src/index.ts";
import { FIXTURES, readRr } from "./load.ts";

const BIN = path.join(import.meta.dirname, "..", "bin", "tonus-hrv.ts");
const SYN03 = path.join(FIXTURES, "rr", "synthetic", "syn03_ectopic_rr.csv");
const PPG = path.join(FIXTURES, "ppg", "nk_bio_resting_5min_ppg_100hz.csv");

function run(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { input, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("tonus-hrv analyze", () => {
  it("prints the analyzeRr result of a file as JSON", () => {
    const r = run(["analyze", SYN03]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(analyzeRr(readRr("syn03_ectopic")))));
  });

  it("reads standard input with -, including a Welltory comma list", () => {
    const rr = readRr("welltory_90c4d3e033");
    const r = run(["analyze", "-"], rr.join(","));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).raw.timeDomain.meanRr).toBeCloseTo(
      analyzeRr(rr).raw?.timeDomain.meanRr ?? 0,
      9,
    );
  });

  it("prints a table for people with raw and corrected columns", () => {
    const r = run(["analyze", SYN03, "--format", "table"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/metric\s+raw\s+corrected/);
    expect(r.stdout).toMatch(/\n {2}rmssd\s+93\.52\s+\d/);
    expect(r.stdout).toContain("lfHf");
  });

  it("reports skipped values with line numbers on stderr and analyses the rest", () => {
    const text = `rr_ms\n${readRr("syn07_welltory_like_100").join("\n")}\nabc\n`;
    const r = run(["analyze", "-"], text);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/line 102: invalid_value/);
    expect(JSON.parse(r.stdout).raw.timeDomain.beats).toBe(100);
  });

  it("exits 1 with a message when nothing can be read", () => {
    expect(run(["analyze", "-"], "hello\n").code).toBe(1);
    const missing = run(["analyze", path.join(FIXTURES, "no-such-file.csv")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("ENOENT");
  });

  it("exits 2 with usage on wrong arguments and 0 on --help", () => {
    expect(run([]).code).toBe(2);
    expect(run(["analyse", SYN03]).stderr).toContain("unknown command");
    expect(run(["analyze", SYN03, "--format", "xml"]).code).toBe(2);
    const help = run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: tonus-hrv analyze");
  });

  it("is declared as the package's bin", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "package.json"), "utf8"));
    expect(pkg.bin["tonus-hrv"]).toBe("./bin/tonus-hrv.ts");
  });
});

describe("tonus-hrv ppg", () => {
  const ecgRr = readRr("nk_bio_resting_5min_ecg");
  const ecgMean = ecgRr.reduce((a, b) => a + b, 0) / ecgRr.length;

  it("detects the pulses of a 100-Hz oximeter file and analyses their intervals like the ECG's", () => {
    const r = run(["ppg", PPG, "--fs", "100", "--polarity", "oximeter"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.ppg.beats.length).toBeGreaterThan(425);
    expect(Math.abs(out.rr.raw.timeDomain.beats - ecgRr.length)).toBeLessThanOrEqual(3);
    expect(Math.abs(out.rr.raw.timeDomain.meanRr / ecgMean - 1)).toBeLessThan(0.01);
  });

  it("reads a camera-like table with a time column in seconds (30 fps, jittered, inverted)", () => {
    const pleth = fs.readFileSync(PPG, "utf8").trim().split("\n").slice(1).map(Number);
    const rows = ["t,brightness"];
    let seed = 7;
    for (let k = 0; k < 120 * 30; k++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const t = k / 30 + ((seed / 2147483648 - 0.5) * 6) / 1000; // ±3 ms jitter
      const x = t * 100;
      const i = Math.floor(x);
      const v = (pleth[i] ?? 0) + (x - i) * ((pleth[i + 1] ?? 0) - (pleth[i] ?? 0));
      rows.push(`${t.toFixed(4)},${(190 - 40 * v).toFixed(3)}`);
    }
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tonus-hrv-")), "camera.csv");
    fs.writeFileSync(file, `${rows.join("\n")}\n`);
    const r = run(["ppg", file, "--format", "json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    const ecgIn120s = ecgRr.slice(0, Math.round(120000 / ecgMean));
    const ecgHr = 60000 / (ecgIn120s.reduce((a, b) => a + b, 0) / ecgIn120s.length);
    expect(Math.abs(out.ppg.hrBpm - ecgHr)).toBeLessThan(1.5);
    expect(out.rr.raw.timeDomain.beats).toBeGreaterThan(150);
    expect(run(["ppg", file, "--format", "table"]).stdout).toMatch(/fingerPresent\s+true/);
  });

  it("prints no RR analysis for noise, and asks for --fs when there is no time column", () => {
    let seed = 3;
    const noise = Array.from({ length: 3000 }, () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return (seed / 2147483648).toFixed(4);
    });
    const r = run(["ppg", "-", "--fs", "30"], noise.join("\n"));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.rr).toBeUndefined();
    expect(out.ppg.issues.map((i: { code: string }) => i.code)).toContain("poor_signal");
    const noFs = run(["ppg", "-"], noise.join("\n"));
    expect(noFs.code).toBe(2);
    expect(noFs.stderr).toContain("--fs");
  });
});
