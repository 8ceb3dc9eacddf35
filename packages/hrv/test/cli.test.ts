// The tonus-hrv command run as a real process (Node 24 runs the .ts directly).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeRr } from "../src/index.ts";
import { FIXTURES, readRr } from "./load.ts";

const BIN = path.join(import.meta.dirname, "..", "bin", "tonus-hrv.ts");
const SYN03 = path.join(FIXTURES, "rr", "synthetic", "syn03_ectopic_rr.csv");

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
