// Type-checks every project with TypeScript's own compiler (no project references: four plain runs).
import { spawnSync } from "node:child_process";

const projects = ["packages/contract", "packages/hrv", "apps/server", "apps/web", "."];
let failed = false;
for (const p of projects) {
  const r = spawnSync("npx", ["tsc", "-p", p], { stdio: "inherit" });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
