// The server's benchmarks: every `*.bench.ts` beside this file, each in its own process, in name order.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const dir = import.meta.dirname;
let failed = false;
for (const file of fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .sort()) {
  process.stdout.write(`## ${file}\n`);
  const r = spawnSync(process.execPath, ["--expose-gc", path.join(dir, file)], { stdio: "inherit" });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
