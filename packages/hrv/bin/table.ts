// The `--format table` rendering of an analyzeRr result: one row per metric with the raw and (when
// artifacts were corrected) corrected values. Labels are the JSON keys, so the table needs no
// translation and maps one-to-one onto docs/json-keys.md.
import type { PpgAnalysis, RrAnalysis, SeriesMetrics } from "../src/index.ts";

type Row = [label: string, raw: unknown, corrected: unknown];

function fmt(v: unknown): string {
  if (v === undefined) return "—";
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(1) : v.toPrecision(4);
}

function rows(raw: SeriesMetrics, corrected: SeriesMetrics | undefined): Row[] {
  const out: Row[] = [];
  const section = <T extends object>(name: string, pick: (m: SeriesMetrics) => T | undefined) => {
    const a = pick(raw);
    const b = corrected ? pick(corrected) : undefined;
    if (!a && !b) return;
    out.push([`[${name}]`, "", ""]);
    for (const key of Object.keys((a ?? b) as object)) {
      const va = a ? (a as Record<string, unknown>)[key] : undefined;
      const vb = b ? (b as Record<string, unknown>)[key] : undefined;
      if (typeof (va ?? vb) === "object") continue;
      out.push([`  ${key}`, va, vb]);
    }
  };
  section("timeDomain", (m) => m.timeDomain);
  section("baevsky", (m) => m.baevsky);
  section("baevsky.classic", (m) => m.baevsky.classic);
  section("frequency", (m) => m.frequency);
  return out;
}

export function formatTable(result: RrAnalysis): string {
  const lines: string[] = [`algorithmVersion  ${result.algorithmVersion}`];
  if (result.artifacts) {
    const { share, counts } = result.artifacts;
    const byType = Object.entries(counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
    lines.push(`artifacts         ${(share * 100).toFixed(1)} % (${byType})`);
  }
  for (const issue of result.issues) {
    const { code, ...data } = issue;
    lines.push(`issue             ${code} ${JSON.stringify(data)}`);
  }
  if (result.raw) {
    const table = rows(result.raw, result.corrected);
    const w = Math.max(...table.map((r) => r[0].length), 6);
    lines.push(
      "",
      `${"metric".padEnd(w)}  ${"raw".padStart(12)}  ${result.corrected ? "corrected".padStart(12) : ""}`.trimEnd(),
    );
    for (const [label, a, b] of table) {
      const right = result.corrected && !label.startsWith("[") ? `  ${fmt(b).padStart(12)}` : "";
      lines.push(label.startsWith("[") ? label : `${label.padEnd(w)}  ${fmt(a).padStart(12)}${right}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** The `ppg --format table` rendering: pulse detection summary, then the RR table of the intervals. */
export function formatPpgTable(result: { ppg: PpgAnalysis; rr?: RrAnalysis }): string {
  const { ppg } = result;
  const lines = [
    `pulses            ${ppg.beats.length} (${ppg.ppMs.length} intervals, ${(ppg.goodShare * 100).toFixed(1)} % usable)`,
    `fingerPresent     ${ppg.fingerPresent}`,
    `hrBpm             ${fmt(ppg.hrBpm)}`,
    `rmssdMs           ${fmt(ppg.rmssdMs)}`,
    `sampleRateHz      ${fmt(ppg.sampleRateHz)}`,
  ];
  for (const issue of ppg.issues) {
    const { code, ...data } = issue;
    lines.push(`ppg issue         ${code} ${JSON.stringify(data)}`);
  }
  const rr = result.rr ? `\n[rr]\n${formatTable(result.rr)}` : "";
  return `${lines.join("\n")}\n${rr}`;
}
