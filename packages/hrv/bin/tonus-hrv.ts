#!/usr/bin/env node
// tonus-hrv: command-line front end of @tonus/hrv.
//   tonus-hrv analyze FILE|-   RR file (any layout the RR-file reader knows) → what analyzeRr returns
//   tonus-hrv ppg FILE|-       PPG samples → beats (analyzePpg) → analyzeRr of the pulse intervals
// Output JSON (default) or a table for people. Exit codes: 0 analysed (issues may still be present),
// 1 unreadable input, 2 wrong usage.
import fs from "node:fs";
import { analyzePpg, analyzeRr, parseRrFile } from "../src/index.ts";
import { readPpgText } from "./ppg-input.ts";
import { formatPpgTable, formatTable } from "./table.ts";

const USAGE = `Usage: tonus-hrv analyze FILE|- [--format json|table]
       tonus-hrv ppg FILE|- [--fs HZ] [--polarity camera|oximeter] [--format json|table]

  analyze     Read RR intervals from FILE (or standard input with -) and print the HRV analysis:
              artifact correction, time domain, Baevsky indices, frequency domain (> 280 intervals).
  ppg         Read a photoplethysmogram (one sample per line with --fs, or a table with a time column
              t/time/timestamp in s or ms), detect the pulses and analyse their intervals. Prints
              { ppg, rr }; rr is absent when the signal is too poor (issue poor_signal).
  --fs        sample rate of a PPG file without a time column, Hz
  --polarity  camera (default: brightness, darker = more blood) or oximeter (larger = more blood)
  --format    json (default): camelCase keys, ms unless a key names a unit (keys documented in
              packages/hrv/docs/json-keys.md); table: a summary for people.
`;

interface Args {
  command?: string;
  file?: string;
  format: "json" | "table";
  fsHz?: number;
  polarity: "camera" | "oximeter";
  help: boolean;
}

function parseArgs(argv: string[]): Args | string {
  const args: Args = { format: "json", polarity: "camera", help: false };
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const [flag, inline] =
      a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a];
    const value = () => inline ?? argv[++i];
    if (flag === "-h" || flag === "--help") args.help = true;
    else if (flag === "--format") {
      const v = value();
      if (v !== "json" && v !== "table") return `--format must be json or table, got ${v ?? "nothing"}`;
      args.format = v;
    } else if (flag === "--polarity") {
      const v = value();
      if (v !== "camera" && v !== "oximeter")
        return `--polarity must be camera or oximeter, got ${v ?? "nothing"}`;
      args.polarity = v;
    } else if (flag === "--fs") {
      const v = Number(value());
      if (!(v > 0 && Number.isFinite(v))) return "--fs must be a positive number of Hz";
      args.fsHz = v;
    } else if (a.startsWith("-") && a !== "-") return `unknown option ${a}`;
    else positional.push(a);
  }
  if (positional.length > 2) return `unexpected argument ${positional[2]}`;
  [args.command, args.file] = positional;
  return args;
}

/** Indented JSON with arrays of numbers (the spectrum) kept on one line each. */
function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /\[\s*(-?\d[^\]{}"]*?)\s*\]/g,
    (_, items: string) => `[${items.split(/,\s*/).join(", ")}]`,
  );
}

function fail(message: string, code: number): number {
  process.stderr.write(`tonus-hrv: ${message}\n`);
  return code;
}

function analyzeCommand(file: string, text: string, args: Args): number {
  const parsed = parseRrFile(text);
  for (const issue of parsed.issues) {
    const where = issue.line ? `line ${issue.line}: ` : "";
    const what =
      issue.text !== undefined ? ` (${JSON.stringify(issue.text)})` : issue.count ? ` (${issue.count})` : "";
    process.stderr.write(`tonus-hrv: ${file}: ${where}${issue.code}${what}\n`);
  }
  if (parsed.rrMs.length === 0) return fail(`${file}: no RR intervals read`, 1);
  const result = analyzeRr(parsed.rrMs);
  process.stdout.write(args.format === "table" ? formatTable(result) : `${toJson(result)}\n`);
  return 0;
}

function ppgCommand(file: string, text: string, args: Args): number {
  const input = readPpgText(text, args.fsHz);
  if ("error" in input)
    return fail(`${file}: ${input.error}`, input.error.startsWith("no time column") ? 2 : 1);
  const ppg = analyzePpg(input.values, input.timesMs, { polarity: args.polarity });
  const poor = ppg.issues.some((i) => i.code === "poor_signal");
  const result = { ppg, ...(poor ? {} : { rr: analyzeRr(ppg.ppMs) }) };
  process.stdout.write(args.format === "table" ? formatPpgTable(result) : `${toJson(result)}\n`);
  return 0;
}

function main(argv: string[]): number {
  const args = parseArgs(argv);
  if (typeof args === "string") return fail(`${args}\n\n${USAGE}`, 2);
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const command =
    args.command === "analyze" ? analyzeCommand : args.command === "ppg" ? ppgCommand : undefined;
  if (!command || !args.file) {
    if (args.command && !command) return fail(`unknown command ${args.command}\n\n${USAGE}`, 2);
    process.stderr.write(USAGE);
    return 2;
  }
  let text: string;
  try {
    text = fs.readFileSync(args.file === "-" ? 0 : args.file, "utf8");
  } catch (e) {
    return fail(`cannot read ${args.file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, 1);
  }
  return command(args.file, text, args);
}

process.exitCode = main(process.argv.slice(2));
