#!/usr/bin/env node
// tonus-hrv: command-line front end of @tonus/hrv. `tonus-hrv analyze FILE|-` reads an RR file (any
// layout the RR-file reader knows: one per line in ms or s, Welltory/Polar lists, HRV Logger, Kubios,
// RR-named tables) and prints what `analyzeRr` returns, as JSON (default) or a table for people.
// Exit codes: 0 analysed (issues may still be present), 1 unreadable input, 2 wrong usage.
import fs from "node:fs";
import { parseRrFile } from "../src/files/index.ts";
import { analyzeRr } from "../src/index.ts";
import { formatTable } from "./table.ts";

const USAGE = `Usage: tonus-hrv analyze FILE|- [--format json|table]

  analyze   Read RR intervals from FILE (or standard input with -) and print the HRV analysis:
            artifact correction, time domain, Baevsky indices, frequency domain (> 280 intervals).
  --format  json (default): the analyzeRr result, camelCase keys, ms unless a key names a unit
            (keys documented in packages/hrv/docs/json-keys.md); table: a summary for people.
`;

interface Args {
  command?: string;
  file?: string;
  format: "json" | "table";
  help: boolean;
}

function parseArgs(argv: string[]): Args | string {
  const args: Args = { format: "json", help: false };
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "-h" || a === "--help") args.help = true;
    else if (a === "--format" || a.startsWith("--format=")) {
      const value = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (value !== "json" && value !== "table")
        return `--format must be json or table, got ${value ?? "nothing"}`;
      args.format = value;
    } else if (a.startsWith("-") && a !== "-") return `unknown option ${a}`;
    else positional.push(a);
  }
  [args.command, args.file] = positional;
  if (positional.length > 2) return `unexpected argument ${positional[2]}`;
  return args;
}

function readInput(file: string): string {
  return fs.readFileSync(file === "-" ? 0 : file, "utf8");
}

/** Indented JSON with arrays of numbers (the spectrum) kept on one line each. */
function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /\[\s*(-?\d[^\]{}"]*?)\s*\]/g,
    (_, items: string) => `[${items.split(/,\s*/).join(", ")}]`,
  );
}

function main(argv: string[]): number {
  const args = parseArgs(argv);
  if (typeof args === "string") {
    process.stderr.write(`tonus-hrv: ${args}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.command !== "analyze" || !args.file) {
    process.stderr.write(
      args.command && args.command !== "analyze"
        ? `tonus-hrv: unknown command ${args.command}\n\n${USAGE}`
        : USAGE,
    );
    return 2;
  }
  let text: string;
  try {
    text = readInput(args.file);
  } catch (e) {
    process.stderr.write(
      `tonus-hrv: cannot read ${args.file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}\n`,
    );
    return 1;
  }
  const parsed = parseRrFile(text);
  for (const issue of parsed.issues) {
    const where = issue.line ? `line ${issue.line}: ` : "";
    const what =
      issue.text !== undefined ? ` (${JSON.stringify(issue.text)})` : issue.count ? ` (${issue.count})` : "";
    process.stderr.write(`tonus-hrv: ${args.file}: ${where}${issue.code}${what}\n`);
  }
  if (parsed.rrMs.length === 0) {
    process.stderr.write(`tonus-hrv: ${args.file}: no RR intervals read\n`);
    return 1;
  }
  const result = analyzeRr(parsed.rrMs);
  process.stdout.write(args.format === "table" ? formatTable(result) : `${toJson(result)}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
