// `npm test`: lint, typecheck, unit and integration tests (Vitest), end-to-end tests (Playwright), then
// one closing line "N passed, N failed" summed over every runner from their JSON reports.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { stripVTControlCharacters } from "node:util";

const results = "test-results";
fs.mkdirSync(results, { recursive: true });

type Step = { name: string; cmd: string; args: string[] };
const steps: Step[] = [
  { name: "lint", cmd: "npx", args: ["biome", "check", "."] },
  { name: "typecheck", cmd: "node", args: ["scripts/typecheck.ts"] },
  {
    name: "vitest",
    cmd: "npx",
    args: [
      "vitest",
      "run",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${results}/vitest.json`,
    ],
  },
  { name: "build", cmd: "npm", args: ["run", "build"] },
  { name: "e2e", cmd: "npx", args: ["playwright", "test", "-c", "e2e/playwright.config.ts"] },
];

let passed = 0;
let failed = 0;
const failedSteps: string[] = [];
// What a runner printed of errors outside any test (vitest's "Unhandled Errors": a crashed worker, a
// rejection after a test ended): such an error fails the run but is in no test's report.
const unhandled: string[] = [];

/** Runs a step with its output passed through, keeping the lines of its unhandled errors. */
function run(step: Step): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(step.cmd, step.args, { stdio: ["inherit", "pipe", "pipe"], env: process.env });
    let inErrors = false;
    const keep = (line: string) => {
      const plain = stripVTControlCharacters(line);
      if (/Unhandled (Errors?|Rejection)/.test(plain)) inErrors = true;
      else if (inErrors && /^\s*(Test Files|Tests)\s/.test(plain)) inErrors = false;
      if (inErrors && plain.trim() !== "" && unhandled.length < 40)
        unhandled.push(`  ${plain.slice(0, 300)}`);
    };
    // Each stream's unfinished last line waits for its next chunk.
    const partials = { stdout: "", stderr: "" };
    const pass = (name: keyof typeof partials, to: NodeJS.WriteStream) => (chunk: Buffer) => {
      to.write(chunk);
      const lines = (partials[name] + chunk.toString("utf8")).split("\n");
      partials[name] = lines.pop() ?? "";
      for (const line of lines) keep(line);
    };
    child.stdout.on("data", pass("stdout", process.stdout));
    child.stderr.on("data", pass("stderr", process.stderr));
    child.on("close", (code) => {
      keep(partials.stdout);
      keep(partials.stderr);
      resolve(code);
    });
  });
}

for (const step of steps) {
  process.stdout.write(`\n=== ${step.name} ===\n`);
  if ((await run(step)) !== 0) failedSteps.push(step.name);
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

type VitestReport = {
  numPassedTests?: number;
  numFailedTests?: number;
  testResults?: {
    name?: string;
    message?: string;
    assertionResults?: { fullName?: string; status?: string; failureMessages?: string[] }[];
  }[];
};
type E2eSuite = {
  title?: string;
  file?: string;
  specs?: {
    title?: string;
    line?: number;
    tests?: { status?: string; results?: { error?: { message?: string } }[] }[];
  }[];
  suites?: E2eSuite[];
};
type E2eReport = { stats?: { expected?: number; unexpected?: number; flaky?: number }; suites?: E2eSuite[] };

/** The first lines of an error, enough to tell which assertion failed without the whole stack. */
function firstLines(text: string | undefined, n = 6): string {
  return (text ?? "")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(0, n)
    .map((l) => `      ${l.slice(0, 300)}`)
    .join("\n");
}

function vitestFailures(report: VitestReport | undefined): string[] {
  const out: string[] = [];
  for (const file of report?.testResults ?? []) {
    const where = (file.name ?? "").replace(`${process.cwd()}/`, "");
    const failedTests = (file.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failedTests)
      out.push(`  ✗ ${where} › ${a.fullName}\n${firstLines(a.failureMessages?.[0])}`);
    // A file that failed outside any test (an import error, a crashed worker) has only a message.
    if (failedTests.length === 0 && file.message) out.push(`  ✗ ${where}\n${firstLines(file.message)}`);
  }
  return out;
}

function e2eFailures(report: E2eReport | undefined): string[] {
  const out: string[] = [];
  const walk = (suite: E2eSuite, titles: string[]) => {
    const path = suite.title && !suite.file?.endsWith(suite.title) ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status !== "unexpected") continue;
        const error = t.results?.at(-1)?.error?.message;
        out.push(
          `  ✗ ${suite.file}:${spec.line} › ${[...path, spec.title].join(" › ")}\n${firstLines(error)}`,
        );
      }
    }
    for (const child of suite.suites ?? []) walk({ file: suite.file, ...child }, path);
  };
  for (const s of report?.suites ?? []) walk(s, []);
  return out;
}

const vitest = readJson(`${results}/vitest.json`) as VitestReport | undefined;
passed += vitest?.numPassedTests ?? 0;
failed += vitest?.numFailedTests ?? 0;
const e2e = readJson(`${results}/e2e.json`) as E2eReport | undefined;
passed += (e2e?.stats?.expected ?? 0) + (e2e?.stats?.flaky ?? 0);
failed += e2e?.stats?.unexpected ?? 0;

// A step that failed without failing a test (lint, typecheck, a crashed runner) still counts as a failure.
const stepFailures = failedSteps.filter(
  (s) =>
    !(s === "vitest" && (vitest?.numFailedTests ?? 0) > 0) &&
    !(s === "e2e" && (e2e?.stats?.unexpected ?? 0) > 0),
);
failed += stepFailures.length;
// CI keeps only the end of the output, so the failures are named again just above the closing line.
const failures = [...vitestFailures(vitest), ...e2eFailures(e2e)];
if (failures.length) process.stdout.write(`\nFailed tests:\n${failures.join("\n")}\n`);
if (unhandled.length)
  process.stdout.write(`\nUnhandled errors (outside any test):\n${unhandled.join("\n")}\n`);
if (stepFailures.length) process.stdout.write(`\nFailed steps: ${stepFailures.join(", ")}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
