import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSync } from "rolldown/utils";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..");
// Attributes a person reads or hears; their values must come from t() as well.
const VISIBLE_ATTRIBUTES = new Set([
  "alt",
  "title",
  "placeholder",
  "label",
  "aria-label",
  "aria-description",
]);

function listTsxFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listTsxFiles(path);
    return entry.name.endsWith(".tsx") && !entry.name.endsWith(".test.tsx") ? [path] : [];
  });
}

type Node = { type: string; [key: string]: unknown };

function walk(node: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  if (typeof (node as Node).type === "string") visit(node as Node);
  for (const value of Object.values(node)) if (typeof value === "object") walk(value, visit);
}

/** Literal text in JSX (text nodes and visible attributes) that contains a letter in any script. */
export function findLiteralJsxText(fileName: string, source: string): string[] {
  const { program } = parseSync(fileName, source);
  const found: string[] = [];
  walk(program, (node) => {
    if (node.type === "JSXText" && /\p{L}/u.test(String(node.value))) found.push(String(node.value).trim());
    if (node.type === "JSXAttribute") {
      const name = (node.name as Node | undefined)?.name;
      const value = node.value as Node | null;
      if (
        typeof name === "string" &&
        VISIBLE_ATTRIBUTES.has(name) &&
        value?.type === "Literal" &&
        /\p{L}/u.test(String(value.value))
      ) {
        found.push(`${name}="${String(value.value)}"`);
      }
    }
  });
  return found;
}

describe("JSX text", () => {
  it("detects literal words in text and visible attributes", () => {
    expect(findLiteralJsxText("a.tsx", "const a = <p>Hello {name}</p>;")).toEqual(["Hello"]);
    expect(findLiteralJsxText("a.tsx", "const a = <p>Привет</p>;")).toEqual(["Привет"]);
    expect(findLiteralJsxText("a.tsx", 'const a = <img alt="Photo" src="x" />;')).toEqual(['alt="Photo"']);
    expect(findLiteralJsxText("a.tsx", 'const a = <p className="x">{t("x")} · {t("y")}</p>;')).toEqual([]);
  });

  it("goes through t() everywhere: no .tsx file has literal text", () => {
    const offenders = listTsxFiles(SRC).flatMap((file) =>
      findLiteralJsxText(file, readFileSync(file, "utf8")).map(
        (text) => `${file.slice(SRC.length)}: ${text}`,
      ),
    );
    expect(offenders).toEqual([]);
  });
});
