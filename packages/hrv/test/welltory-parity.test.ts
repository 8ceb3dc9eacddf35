// Parity with the app the spec describes: every Welltory measurement recomputed from its rr_data
// reproduces the exported meanrr, sdnn, rmssd, pnn50, mode, amo and mxdmn to the exported precision,
// and bpm in all but at most 2 (floor of a mean that is 64.9999… where the app says 65).
import { describe, expect, it } from "vitest";
import { analyzeRr } from "../src/index.ts";
import { readWelltory } from "./load.ts";

const rows = readWelltory();

// Exported precision of each column (decimals), from the CSV.
const fields = [
  ["meanrr", 3],
  ["sdnn", 3],
  ["rmssd", 3],
  ["pnn50", 2],
  ["mode", 3],
  ["amo", 3],
  ["mxdmn", 3],
] as const;

describe("analyzeRr on the Welltory dataset", () => {
  it("holds all 3,245 measurements", () => {
    expect(rows).toHaveLength(3245);
  });

  it("reproduces meanrr, sdnn, rmssd, pnn50, mode, amo and mxdmn of every measurement, bpm of ≥ 3,243", () => {
    const mismatches: string[] = [];
    let bpmMismatches = 0;
    for (const row of rows) {
      const rr = (row.rr_data ?? "").split(",").map(Number);
      const raw = analyzeRr(rr).raw;
      if (!raw) throw new Error(`no metrics for ${row.rr_code}`);
      const { timeDomain: t, baevsky: b } = raw;
      const ours = {
        meanrr: t.meanRr,
        sdnn: t.sdnn,
        rmssd: t.rmssd,
        pnn50: t.pnn50Pct,
        mode: b.moS,
        amo: b.amoPct,
        mxdmn: b.mxdmnS,
      };
      for (const [key, decimals] of fields) {
        const exported = Number(row[key]);
        if (Math.abs(ours[key] - exported) > 0.5 * 10 ** -decimals + 1e-9) {
          mismatches.push(`${row.rr_code} ${key}: ours ${ours[key]}, exported ${exported}`);
        }
      }
      if (t.bpm !== Number(row.bpm)) bpmMismatches++;
    }
    expect(mismatches).toEqual([]);
    expect(bpmMismatches).toBeLessThanOrEqual(2);
  });

  it("ranks LF and HF like the app's own (unpublished) spectral method on the 142 records over 280 intervals", () => {
    const long = rows.filter((row) => (row.rr_data ?? "").split(",").length > 280);
    expect(long).toHaveLength(142);
    const ours = long.map((row) => analyzeRr((row.rr_data ?? "").split(",").map(Number)).raw?.frequency);
    const lf = spearman(
      ours.map((f) => f?.lfMs2 ?? Number.NaN),
      long.map((row) => Number(row.lf)),
    );
    const hf = spearman(
      ours.map((f) => f?.hfMs2 ?? Number.NaN),
      long.map((row) => Number(row.hf)),
    );
    // measured: LF 0.95, HF 0.89 (the app's method is not public; only the ranking can agree)
    expect(lf).toBeGreaterThan(0.9);
    expect(hf).toBeGreaterThan(0.85);
  });
});

function ranks(xs: number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(xs.length);
  order.forEach(([, i], rank) => {
    out[i] = rank;
  });
  return out;
}

/** Spearman rank correlation (no tie correction; the values are continuous). */
function spearman(a: number[], b: number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const mid = (a.length - 1) / 2;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < a.length; i++) {
    const x = (ra[i] as number) - mid;
    const y = (rb[i] as number) - mid;
    num += x * y;
    da += x * x;
    db += y * y;
  }
  return num / Math.sqrt(da * db);
}
