// `npm test`: lint, typecheck, unit and integration tests (Vitest), end-to-end tests (Playwright), then
// one closing line "N passed, N failed" summed over every runner from their JSON reports.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

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
for (const step of steps) {
  process.stdout.write(`\n=== ${step.name} ===\n`);
  const r = spawnSync(step.cmd, step.args, { stdio: "inherit", env: process.env });
  if (r.status !== 0) failedSteps.push(step.name);
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

const vitest = readJson(`${results}/vitest.json`) as
  | { numPassedTests?: number; numFailedTests?: number }
  | undefined;
passed += vitest?.numPassedTests ?? 0;
failed += vitest?.numFailedTests ?? 0;
const e2e = readJson(`${results}/e2e.json`) as
  | { stats?: { expected?: number; unexpected?: number; flaky?: number } }
  | undefined;
passed += (e2e?.stats?.expected ?? 0) + (e2e?.stats?.flaky ?? 0);
failed += e2e?.stats?.unexpected ?? 0;

// A step that failed without failing a test (lint, typecheck, a crashed runner) still counts as a failure.
const stepFailures = failedSteps.filter(
  (s) =>
    !(s === "vitest" && (vitest?.numFailedTests ?? 0) > 0) &&
    !(s === "e2e" && (e2e?.stats?.unexpected ?? 0) > 0),
);
failed += stepFailures.length;
if (stepFailures.length) process.stdout.write(`\nFailed steps: ${stepFailures.join(", ")}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
