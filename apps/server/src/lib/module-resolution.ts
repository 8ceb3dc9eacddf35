// Faster loading of ES-module packages. For every file it loads, Node 24 looks up the file's package
// and spreads its package.json, which parses the package's whole "exports" map again each time.
// drizzle-orm's package.json is 179 KB and the server loads over 100 of its files, so loading drizzle
// cost about a second of CPU on every thread that loads it (measured: drizzle's modules in 987 ms
// without this hook, 80 ms with it). The server (main.ts), the CLI (cli.ts) and an import's writer
// thread (imports.worker.ts) register it.
// The hook resolves a relative import between the files of an installed ES-module package itself, to
// the same URL and format Node would answer, and leaves every other import to Node.
import fs from "node:fs";
import { registerHooks } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The `type` of the nearest package.json above each directory looked at (null: none, or unreadable). */
const typeOfDirectory = new Map<string, string | null>();

function packageType(dir: string): string | null {
  const known = typeOfDirectory.get(dir);
  if (known !== undefined) return known;
  let type: string | null = null;
  const manifest = path.join(dir, "package.json");
  if (fs.existsSync(manifest)) {
    try {
      const parsed = JSON.parse(fs.readFileSync(manifest, "utf8")) as { type?: unknown };
      type = typeof parsed.type === "string" ? parsed.type : "commonjs";
    } catch {
      type = null; // Node reports a broken package.json itself
    }
  } else if (path.dirname(dir) !== dir) {
    type = packageType(path.dirname(dir));
  }
  typeOfDirectory.set(dir, type);
  return type;
}

/**
 * Where `specifier`, imported by `parentUrl`, resolves when both are files of an installed ES-module
 * package: a relative `.js` or `.mjs` path to an existing file. Null for anything else (Node resolves it).
 */
export function resolveWithinPackage(
  specifier: string,
  parentUrl: string | undefined,
): { url: string; format: "module" } | null {
  if (!parentUrl?.startsWith("file:") || !parentUrl.includes("/node_modules/")) return null;
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return null;
  // Encoded characters, queries and fragments take Node's own checks.
  if (/[%?#\\]/.test(specifier)) return null;
  const isMjs = specifier.endsWith(".mjs");
  if (!isMjs && !specifier.endsWith(".js")) return null;
  let file: string;
  try {
    file = fs.realpathSync.native(fileURLToPath(new URL(specifier, parentUrl)));
    if (!fs.statSync(file).isFile()) return null;
  } catch {
    return null; // missing: Node raises its own error
  }
  if (!isMjs && packageType(path.dirname(file)) !== "module") return null;
  return { url: pathToFileURL(file).href, format: "module" };
}

let registered = false;

/** Registers the hook on the calling thread (a worker thread would need its own). Idempotent. */
export function speedUpPackageLoading(): void {
  if (registered) return;
  registered = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const own = resolveWithinPackage(specifier, context.parentURL);
      return own ? { ...own, shortCircuit: true } : nextResolve(specifier, context);
    },
  });
}
