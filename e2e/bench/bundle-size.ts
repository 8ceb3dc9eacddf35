// The JavaScript the dashboard route loads beyond the shared shell, gzip (run by e2e/bench/run.ts).
// Prints `BENCH <name> <metric>=<value> <unit>`. Target (issue 5): ≤ 150 KB gzip.
//
// What is counted: a production build with a manifest; the shell is the entry chunk and every chunk it
// imports statically (what every page loads). The route is DashboardPage's chunk and every chunk it
// imports statically, minus the shell's: what opening /dashboard downloads on top of any other page
// (uPlot and the dashboard's own code included). CSS is reported apart. gzip at level 9, as servers
// usually compress static files.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";

type Chunk = { file: string; src?: string; isEntry?: boolean; imports?: string[]; css?: string[] };

const webDir = path.resolve(import.meta.dirname, "../../apps/web");
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-web-bench-"));
try {
  const vite = path.resolve(webDir, "../../node_modules/vite/bin/vite.js");
  const build = spawnSync(
    process.execPath,
    [vite, "build", "--manifest", "--outDir", outDir, "--emptyOutDir"],
    {
      cwd: webDir,
      encoding: "utf8",
    },
  );
  if (build.status !== 0) throw new Error(`vite build failed: ${build.stderr}`);
  const manifest = JSON.parse(fs.readFileSync(path.join(outDir, ".vite", "manifest.json"), "utf8")) as Record<
    string,
    Chunk
  >;

  const closure = (key: string, seen = new Set<string>()): Set<string> => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const next of manifest[key]?.imports ?? []) closure(next, seen);
    return seen;
  };
  const entry = Object.keys(manifest).find((key) => manifest[key]?.isEntry);
  const route = Object.keys(manifest).find((key) =>
    manifest[key]?.src?.endsWith("features/dashboard/DashboardPage.tsx"),
  );
  if (!entry || !route) throw new Error("the manifest has no entry or no dashboard route");
  const shell = closure(entry);
  const routeOnly = [...closure(route)].filter((key) => !shell.has(key));

  const gzipKb = (file: string) =>
    zlib.gzipSync(fs.readFileSync(path.join(outDir, file)), { level: 9 }).length / 1024;
  const files = routeOnly.map((key) => manifest[key]?.file as string);
  const js = files.reduce((sum, file) => sum + gzipKb(file), 0);
  const css = routeOnly
    .flatMap((key) => manifest[key]?.css ?? [])
    .filter((file) => !(manifest[entry]?.css ?? []).includes(file))
    .reduce((sum, file) => sum + gzipKb(file), 0);
  const shellJs = [...shell].reduce((sum, key) => sum + gzipKb(manifest[key]?.file as string), 0);
  process.stdout.write(`# dashboard route chunks: ${files.map((f) => path.basename(f)).join(", ")}\n`);
  process.stdout.write(`BENCH dashboard_route_js gzip=${js.toFixed(1)} KB\n`);
  process.stdout.write(`BENCH dashboard_route_css gzip=${css.toFixed(1)} KB\n`);
  process.stdout.write(`BENCH web_shell_js gzip=${shellJs.toFixed(1)} KB\n`);
} finally {
  fs.rmSync(outDir, { recursive: true, force: true });
}
