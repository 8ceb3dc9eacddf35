// `npm run bench -w @tonus/e2e` (and the root `npm run bench`): the dashboard's browser benchmarks,
// each printing `BENCH <name> <metric>=<value> <unit>`.
import { spawnSync } from "node:child_process";
import path from "node:path";

let failed = false;
for (const file of ["bundle-size.ts", "dashboard-render.ts"]) {
  const r = spawnSync(process.execPath, [path.join(import.meta.dirname, file)], { stdio: "inherit" });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
