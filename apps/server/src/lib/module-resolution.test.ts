import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveWithinPackage } from "./module-resolution.ts";

/**
 * Loads the server's whole module graph in a child Node with a hook that records what Node's own
 * resolver answers for each relative import made by a file of an installed package.
 */
function nodeResolutions(): { specifier: string; parent: string; url: string; format: string }[] {
  const app = pathToFileURL(path.resolve(import.meta.dirname, "../app.ts")).href;
  const script = `
    import { registerHooks } from "node:module";
    const seen = [];
    registerHooks({
      resolve(specifier, context, next) {
        const r = next(specifier, context);
        if (context.parentURL?.includes("/node_modules/") && /^\\.\\.?\\//.test(specifier))
          seen.push({ specifier, parent: context.parentURL, url: r.url, format: r.format });
        return r;
      },
    });
    await import(${JSON.stringify(app)});
    process.stdout.write(JSON.stringify(seen));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe("resolveWithinPackage", () => {
  it("answers what Node answers for every import between package files the server loads", () => {
    const seen = nodeResolutions();
    let answered = 0;
    for (const s of seen) {
      const own = resolveWithinPackage(s.specifier, s.parent);
      if (!own) continue;
      answered++;
      expect({ specifier: s.specifier, parent: s.parent, ...own }).toEqual({
        specifier: s.specifier,
        parent: s.parent,
        url: s.url,
        format: s.format,
      });
    }
    // drizzle-orm alone imports between its own files more than a hundred times.
    expect(answered).toBeGreaterThan(100);
    expect(seen.some((s) => s.parent.includes("/node_modules/drizzle-orm/"))).toBe(true);
  }, 60_000);

  describe("leaves Node to answer", () => {
    let root: string;
    const url = (...parts: string[]) => pathToFileURL(path.join(root, "node_modules", ...parts)).href;
    beforeAll(() => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-resolve-"));
      const write = (file: string, text: string) => {
        const full = path.join(root, "node_modules", file);
        fs.mkdirSync(path.dirname(full), { recursive: true });
        fs.writeFileSync(full, text);
      };
      write("esm/package.json", JSON.stringify({ name: "esm", type: "module" }));
      write("esm/lib/a.js", "export const a = 1;");
      write("esm/lib/b.mjs", "export const b = 1;");
      write("esm/lib/c.cjs", "module.exports = 1;");
      fs.mkdirSync(path.join(root, "node_modules/esm/lib/dir.js"));
      write("cjs/package.json", JSON.stringify({ name: "cjs" }));
      write("cjs/a.js", "module.exports = 1;");
      write("cjs/b.mjs", "export const b = 1;");
      write("plain/a.js", "export const a = 1;");
    });
    afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

    it("resolves relative .js and .mjs files of an ES-module package", () => {
      const from = url("esm", "lib", "index.js");
      expect(resolveWithinPackage("./a.js", from)).toEqual({
        url: url("esm", "lib", "a.js"),
        format: "module",
      });
      expect(resolveWithinPackage("../lib/b.mjs", from)).toEqual({
        url: url("esm", "lib", "b.mjs"),
        format: "module",
      });
      // An .mjs file is a module in any package.
      expect(resolveWithinPackage("./b.mjs", url("cjs", "index.js"))?.format).toBe("module");
    });

    it("for bare names, other extensions, missing files, directories and CommonJS packages", () => {
      const from = url("esm", "lib", "index.js");
      expect(resolveWithinPackage("esm/lib/a.js", from)).toBeNull();
      expect(resolveWithinPackage("./c.cjs", from)).toBeNull();
      expect(resolveWithinPackage("./a", from)).toBeNull();
      expect(resolveWithinPackage("./missing.js", from)).toBeNull();
      expect(resolveWithinPackage("./dir.js", from)).toBeNull();
      expect(resolveWithinPackage("./a.js?x=1", from)).toBeNull();
      expect(resolveWithinPackage("./a%2ejs", from)).toBeNull();
      expect(resolveWithinPackage("./a.js", url("cjs", "index.js"))).toBeNull();
      // No package.json up to the root: Node decides.
      expect(resolveWithinPackage("./a.js", url("plain", "index.js"))).toBeNull();
    });

    it("for files outside installed packages, and without a file parent", () => {
      const own = pathToFileURL(path.join(root, "src", "index.js")).href;
      expect(resolveWithinPackage("./a.js", own)).toBeNull();
      expect(resolveWithinPackage("./a.js", undefined)).toBeNull();
      expect(resolveWithinPackage("./a.js", "data:text/javascript,1")).toBeNull();
    });
  });
});
