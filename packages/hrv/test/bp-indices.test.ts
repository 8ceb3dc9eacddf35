import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bpCategory, computeBpIndices } from "../src/index.ts";
import { FIXTURES } from "./load.ts";

type Row = {
  user: string;
  dbp: number;
  sbp: number;
  fci: number;
  kek: number;
  kerdo: number;
  robinson: number;
};

/** The Welltory rows that carry the app's indices (the others have empty index columns). */
function welltoryRows(): Row[] {
  const lines = fs
    .readFileSync(path.join(FIXTURES, "blood_pressure.csv"), "utf8")
    .trim()
    .split("\n")
    .slice(1);
  return lines
    .map((line) => line.split(",").map((cell) => cell.replaceAll('"', "")))
    .filter((cells) => cells[7] !== "")
    .map(([user, , dbp, sbp, fci, kek, kerdo, robinson]) => ({
      user: user ?? "",
      dbp: Number(dbp),
      sbp: Number(sbp),
      fci: Number(fci),
      kek: Number(kek),
      kerdo: kerdo === "" ? Number.NaN : Number(kerdo),
      robinson: Number(robinson),
    }));
}

describe("blood-pressure indices", () => {
  const rows = welltoryRows();

  it("reproduce the Welltory export: Kerdo, Robinson and circulatory efficiency", () => {
    expect(rows.length).toBeGreaterThan(250);
    let kerdoMatches = 0;
    for (const row of rows) {
      const hrBpm = (row.robinson * 100) / row.sbp;
      const indices = computeBpIndices({ systolic: row.sbp, diastolic: row.dbp, hrBpm });
      expect(indices.robinson).toBeCloseTo(row.robinson, 6);
      // The export's HR has two decimals; recovered from Robinson it may differ by up to 0.005 bpm.
      const pulsePressure = row.sbp - row.dbp;
      expect(Math.abs((indices.kek ?? Number.NaN) - row.kek)).toBeLessThanOrEqual(
        pulsePressure * 0.005 + 0.01,
      );
      if (Number.isNaN(row.kerdo) || Math.round(indices.kerdo ?? Number.NaN) === row.kerdo) kerdoMatches += 1;
    }
    // Two readings land exactly on .5, which the export rounds half to even (Math.round goes up).
    expect(kerdoMatches).toBeGreaterThanOrEqual(rows.length - 2);
  });

  it("reproduce the export's functional-changes index up to each person's age, weight and height term", () => {
    const offsets = new Map<string, number[]>();
    for (const row of rows) {
      const hrBpm = (row.robinson * 100) / row.sbp;
      const indices = computeBpIndices({
        systolic: row.sbp,
        diastolic: row.dbp,
        hrBpm,
        ageYears: 1,
        weightKg: 1,
        heightCm: 1,
      });
      const list = offsets.get(row.user) ?? [];
      list.push(row.fci - (indices.adaptationPotential ?? Number.NaN));
      offsets.set(row.user, list);
    }
    for (const [user, list] of offsets) {
      const spread = Math.max(...list) - Math.min(...list);
      // What remains is 0.014·age + 0.009·weight − 0.009·height − 0.27: constant but for weight drifting
      // a few kilograms over the months (0.009 per kg). A wrong HR/SBP/DBP coefficient would spread by
      // far more across these readings (HR 50–120, SBP 95–160).
      expect(spread, user).toBeLessThan(0.05);
    }
  });

  it("grade office blood pressure by the 2018 ESC/ESH table, the higher of SBP and DBP", () => {
    expect(bpCategory(119, 79)).toBe("optimal");
    expect(bpCategory(120, 70)).toBe("normal");
    expect(bpCategory(110, 84)).toBe("normal");
    expect(bpCategory(135, 70)).toBe("high_normal");
    expect(bpCategory(139, 90)).toBe("grade_1");
    expect(bpCategory(165, 95)).toBe("grade_2");
    expect(bpCategory(150, 112)).toBe("grade_3");
    expect(bpCategory(145, 85)).toBe("isolated_systolic_1");
    expect(bpCategory(170, 80)).toBe("isolated_systolic_2");
    expect(bpCategory(185, 89)).toBe("isolated_systolic_3");
    expect(bpCategory(185, 90)).toBe("grade_3");
  });

  it("compute adaptation potential and physical state with their levels from anthropometry", () => {
    const indices = computeBpIndices({
      systolic: 120,
      diastolic: 80,
      hrBpm: 60,
      ageYears: 30,
      weightKg: 70,
      heightCm: 175,
    });
    // 0.66 + 1.68 + 0.64 + 0.42 + 0.63 − 1.575 − 0.27
    expect(indices.adaptationPotential).toBeCloseTo(2.185, 9);
    expect(indices.adaptationLevel).toBe("tension");
    expect(indices.meanArterialPressure).toBeCloseTo(93.333333, 5);
    // (700 − 180 − 233.333 − 81 + 19.6) / (350 − 78 + 36.75)
    expect(indices.physicalState).toBeCloseTo(225.266667 / 308.75, 6);
    expect(indices.physicalStateLevel).toBe("above_average");
    expect(indices.kvas).toBeCloseTo(15, 9);
    expect(indices.issues).toEqual([]);
  });

  it("say what is missing instead of throwing", () => {
    expect(computeBpIndices({ systolic: 120, diastolic: 80, hrBpm: 60 }).issues).toEqual([
      { code: "missing_anthropometry", fields: ["ageYears", "weightKg", "heightCm"] },
    ]);
    const flat = computeBpIndices({
      systolic: 80,
      diastolic: 80,
      hrBpm: 60,
      ageYears: 40,
      weightKg: 80,
      heightCm: 180,
    });
    expect(flat.pulsePressure).toBeUndefined();
    expect(flat.kvas).toBeUndefined();
    expect(flat.physicalState).toBeUndefined();
    expect(flat.adaptationPotential).toBeDefined();
    expect(flat.issues).toContainEqual({ code: "no_pulse_pressure" });
    expect(computeBpIndices({ systolic: Number.NaN, diastolic: 80, hrBpm: 0 })).toEqual({
      issues: [
        { code: "invalid_reading", field: "systolic" },
        { code: "invalid_reading", field: "hrBpm" },
      ],
    });
  });

  it("never throw and give finite values for any input", () => {
    fc.assert(
      fc.property(
        fc.record({
          systolic: fc.double(),
          diastolic: fc.double(),
          hrBpm: fc.double(),
          ageYears: fc.option(fc.double(), { nil: undefined }),
          weightKg: fc.option(fc.double(), { nil: undefined }),
          heightCm: fc.option(fc.double(), { nil: undefined }),
        }),
        (input) => {
          const result = computeBpIndices(input);
          for (const value of Object.values(result)) {
            if (typeof value === "number") expect(Number.isFinite(value)).toBe(true);
          }
        },
      ),
      { numRuns: process.env.TONUS_HEAVY ? 20_000 : 500 },
    );
  });
});
