import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigSchema } from "./config.ts";

const DOC = path.join(import.meta.dirname, "../../../../docs/configuration.md");

/** The variable names in the first column of the doc's table. */
function readDocumentedNames(markdown: string): string[] {
  return [...markdown.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/gm)].map((m) => m[1] ?? "");
}

describe("docs/configuration.md", () => {
  it("documents exactly the variables of ConfigSchema, once each", () => {
    const names = readDocumentedNames(readFileSync(DOC, "utf8"));
    expect(names.length).toBe(new Set(names).size);
    expect(new Set(names)).toEqual(new Set(Object.keys(ConfigSchema.shape)));
  });
});
