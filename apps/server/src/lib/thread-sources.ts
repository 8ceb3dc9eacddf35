// Worker threads without WebAssembly. Node strips TypeScript with a WebAssembly module that each thread
// instantiates for itself (17 MB a thread), and freeing such code when a thread ends can crash the
// whole process while PGlite's WebAssembly is compiled on other threads (a V8 bug, nodejs/node#64500:
// "Check failed: jit_page_->allocations_.erase(addr) == 1"; it ended two test runs here, both in the
// imports' tests). So the main thread, which strips TypeScript anyway, strips the project's own
// sources once, and a thread started through `thread-entry.mjs` (plain JavaScript) loads them from
// that map instead of stripping them itself.
import fs from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.resolve(import.meta.dirname, "../../../..");

/** The folders whose TypeScript a thread may load: the server's and the workspace packages' sources. */
function sourceFolders(): string[] {
  return [
    path.join(ROOT, "apps/server/src"),
    ...fs
      .readdirSync(path.join(ROOT, "packages"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => path.join(ROOT, "packages", d.name, "src")),
  ];
}

function typeScriptFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return typeScriptFiles(full);
    return d.name.endsWith(".ts") && !d.name.endsWith(".test.ts") && !d.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** Strips without Node's one-time "experimental" warning (the server's log would show it). */
function strip(source: string): string {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes("stripTypeScriptTypes")) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return stripTypeScriptTypes(source);
  } finally {
    process.emitWarning = emit;
  }
}

let stripped: Promise<Record<string, string>> | null = null;

/** Files stripped between two turns of the event loop (a few milliseconds of work). */
const SLICE = 8;

/**
 * The project's TypeScript sources as JavaScript, by file URL: built on the first call (about a second
 * of CPU, in slices that leave the event loop free for requests between them), then kept (1.6 MB).
 * Type stripping keeps every line and column, so stack traces stay right.
 */
export function strippedSources(): Promise<Record<string, string>> {
  stripped ??= (async () => {
    const out: Record<string, string> = {};
    // Read on the first import, not when the server starts.
    const files = sourceFolders().flatMap(typeScriptFiles);
    for (const [i, file] of files.entries()) {
      if (i % SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      out[pathToFileURL(file).href] = strip(fs.readFileSync(file, "utf8"));
    }
    return out;
  })();
  // A failed build (a file unreadable for a moment) is tried again by the next caller.
  stripped.catch(() => {
    stripped = null;
  });
  return stripped;
}

/** The plain-JavaScript entry that loads `module` (a file URL) in a thread with `strippedSources()`. */
export const THREAD_ENTRY = new URL("./thread-entry.mjs", import.meta.url);
