// Type-checks every project with TypeScript's own compiler (no project references: one plain run per
// workspace that has a tsconfig.json, then the root for scripts and e2e).

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

const workspaces = ["packages", "apps"].flatMap((dir) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "tsconfig.json")))
    .map((entry) => `${dir}/${entry.name}`),
);
let failed = false;
for (const p of [...workspaces, "."]) {
  const r = spawnSync("npx", ["tsc", "-p", p], { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`typecheck: ${p} failed`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
