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
});
