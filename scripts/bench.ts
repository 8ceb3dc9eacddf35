// `npm run bench`: runs every workspace's `bench` script; each prints `BENCH <name> <metric>=<value> <unit>`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = JSON.parse(fs.readFileSync("package.json", "utf8")) as { workspaces: string[] };
const dirs = root.workspaces.flatMap((pattern) => {
  if (!pattern.endsWith("/*")) return [pattern];
  const base = pattern.slice(0, -2);
  return fs.readdirSync(base).map((d) => path.join(base, d));
});

let failed = false;
for (const dir of dirs) {
  const file = path.join(dir, "package.json");
  if (!fs.existsSync(file)) continue;
  const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as { name: string; scripts?: Record<string, string> };
  if (!pkg.scripts?.bench) continue;
  process.stdout.write(`# ${pkg.name}\n`);
  const r = spawnSync("npm", ["run", "--silent", "bench", "-w", pkg.name], { stdio: "inherit" });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
