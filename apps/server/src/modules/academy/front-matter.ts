/**
 * A deliberately small YAML subset for content files, so the academy needs no YAML dependency and no
 * content file can reach a feature (tags, anchors, custom types) we did not plan for. Supported:
 * `key: value`, one level of nested keys, inline lists `[a, b]`, inline maps `{ a: 1 }`, quoted strings,
 * numbers, booleans and full-line `#` comments. Anything else is an error, not a guess.
 */
export type YamlValue = string | number | boolean | YamlValue[] | { [key: string]: YamlValue };
export type YamlMap = { [key: string]: YamlValue };

export class FrontMatterError extends Error {}

const KEY_PATTERN = /^([A-Za-z_][A-Za-z0-9_-]*):(?:\s+(.*))?$/;

export function parseYamlSubset(text: string): YamlMap {
  const root: YamlMap = {};
  let nested: YamlMap | null = null;
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  for (const [index, rawLine] of lines.entries()) {
    if (rawLine.trim() === "" || rawLine.trimStart().startsWith("#")) continue;
    const indented = /^\s/.test(rawLine);
    if (indented && !/^ {2}\S/.test(rawLine)) {
      throw new FrontMatterError(`line ${index + 1}: indent nested keys by exactly two spaces`);
    }
    const match = KEY_PATTERN.exec(rawLine.trim());
    if (!match) throw new FrontMatterError(`line ${index + 1}: expected "key: value"`);
    const key = match[1] ?? "";
    const rawValue = (match[2] ?? "").trim();
    if (indented) {
      if (!nested) throw new FrontMatterError(`line ${index + 1}: indented key without a parent`);
      assignOnce(nested, key, parseScalarOrInline(rawValue, index), index);
      continue;
    }
    if (rawValue === "") {
      nested = {};
      assignOnce(root, key, nested, index);
    } else {
      nested = null;
      assignOnce(root, key, parseScalarOrInline(rawValue, index), index);
    }
  }
  return root;
}

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

function assignOnce(target: YamlMap, key: string, value: YamlValue, index: number): void {
  if (FORBIDDEN_KEYS.has(key))
    throw new FrontMatterError(`line ${index + 1}: the key "${key}" is not allowed`);
  if (Object.hasOwn(target, key)) throw new FrontMatterError(`line ${index + 1}: duplicate key "${key}"`);
  target[key] = value;
}

function parseScalarOrInline(raw: string, index: number): YamlValue {
  if (raw.startsWith("[")) {
    if (!raw.endsWith("]")) throw new FrontMatterError(`line ${index + 1}: unclosed list`);
    return splitTopLevel(raw.slice(1, -1), index).map((item) => parseScalar(item, index));
  }
  if (raw.startsWith("{")) {
    if (!raw.endsWith("}")) throw new FrontMatterError(`line ${index + 1}: unclosed map`);
    const map: YamlMap = {};
    for (const entry of splitTopLevel(raw.slice(1, -1), index)) {
      const match = KEY_PATTERN.exec(entry);
      if (!match) throw new FrontMatterError(`line ${index + 1}: expected "key: value" in a map`);
      assignOnce(map, match[1] ?? "", parseScalar((match[2] ?? "").trim(), index), index);
    }
    return map;
  }
  return parseScalar(stripTrailingComment(raw), index);
}

/** Splits "a, b, 'c, d'" on commas outside quotes. Nesting inside inline collections is not supported. */
function splitTopLevel(inner: string, index: number): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (const char of inner) {
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === "[" || char === "{") {
      throw new FrontMatterError(`line ${index + 1}: nested inline collections are not supported`);
    } else if (char === ",") {
      parts.push(current.trim());
      current = "";
      continue;
    }
    current += char;
  }
  if (quote) throw new FrontMatterError(`line ${index + 1}: unclosed quote`);
  if (current.trim() !== "") parts.push(current.trim());
  else if (parts.length > 0) throw new FrontMatterError(`line ${index + 1}: empty list item`);
  return parts;
}

function stripTrailingComment(raw: string): string {
  if (raw.startsWith('"') || raw.startsWith("'")) return raw;
  const at = raw.indexOf(" #");
  return at === -1 ? raw : raw.slice(0, at).trim();
}

function parseScalar(raw: string, index: number): YamlValue {
  if (raw.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === "string") return value;
    } catch {
      // reported below
    }
    throw new FrontMatterError(`line ${index + 1}: malformed double-quoted string`);
  }
  if (raw.startsWith("'")) {
    if (!raw.endsWith("'") || raw.length < 2) throw new FrontMatterError(`line ${index + 1}: unclosed quote`);
    return raw.slice(1, -1).replaceAll("''", "'");
  }
  if (raw === "true") return true;
  if (raw === "false") return false;
  if (/^-?\d+(?:\.\d+)?$/.test(raw)) return Number(raw);
  if (raw === "" || /^[&*!|>%@`]/.test(raw)) {
    throw new FrontMatterError(`line ${index + 1}: unsupported YAML value "${raw}"`);
  }
  if (/:\s/.test(raw)) throw new FrontMatterError(`line ${index + 1}: quote a value that contains ": "`);
  return raw;
}

/** Splits a Markdown file into its front matter (between the first two `---` lines) and body. */
export function splitFrontMatter(source: string): { data: YamlMap; body: string } {
  const text = source.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!text.startsWith("---\n"))
    throw new FrontMatterError("the file must start with a --- front matter line");
  const end = text.indexOf("\n---\n", 3);
  if (end === -1) throw new FrontMatterError("the front matter has no closing --- line");
  return { data: parseYamlSubset(text.slice(4, end)), body: text.slice(end + 5) };
}
