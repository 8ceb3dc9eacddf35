/**
 * Indices from blood pressure, heart rate and anthropometry (DEFINITIONS.md §5–§6): pulse and mean
 * arterial pressure, Kerdo, Robinson, Kvas, circulatory efficiency (KEK), Baevsky's adaptation
 * potential ("functional changes") and Pirogova's physical state, and the 2018 ESC/ESH office
 * blood-pressure category. Inputs in mmHg, beats per minute, years, kilograms and centimetres.
 * Poor input never throws: an index that cannot be computed is absent and `issues` says why.
 *
 * These are descriptive indices from Russian sports and preventive medicine, not diagnoses; the
 * category thresholds are the ones most often reproduced in that literature.
 */

export type BpInput = {
  systolic: number;
  diastolic: number;
  hrBpm: number;
  ageYears?: number;
  weightKg?: number;
  heightCm?: number;
};

/** 2018 ESC/ESH office categories; `isolated_systolic_*` is graded by SBP alone. */
export type BpCategory =
  | "optimal"
  | "normal"
  | "high_normal"
  | "grade_1"
  | "grade_2"
  | "grade_3"
  | "isolated_systolic_1"
  | "isolated_systolic_2"
  | "isolated_systolic_3";

/** Baevsky & Berseneva 1987 levels of the adaptation potential. */
export type AdaptationLevel = "satisfactory" | "tension" | "unsatisfactory" | "failure";

/** Pirogova 1985 levels of the physical-state index. */
export type PhysicalStateLevel = "low" | "below_average" | "average" | "above_average" | "high";

export type BpIssue =
  /** SBP, DBP or HR missing, not finite or outside physiological limits: nothing is computed. */
  | { code: "invalid_reading"; field: "systolic" | "diastolic" | "hrBpm" }
  /** Diastolic not below systolic: pressure-difference indices are absent. */
  | { code: "no_pulse_pressure" }
  /** Age, weight or height unknown: the adaptation potential and physical state are absent. */
  | { code: "missing_anthropometry"; fields: ("ageYears" | "weightKg" | "heightCm")[] };

export type BpIndices = {
  /** SBP − DBP, mmHg. */
  pulsePressure?: number;
  /** DBP + PP/3, mmHg. */
  meanArterialPressure?: number;
  /** Kerdo vegetative index (1 − DBP/HR)·100: > 0 sympathetic, < 0 parasympathetic predominance. */
  kerdo?: number;
  /** Robinson index (double product) HR·SBP/100. */
  robinson?: number;
  /** Kvas endurance coefficient 10·HR/PP (about 16 is the quoted norm). */
  kvas?: number;
  /** Circulatory efficiency coefficient PP·HR (mmHg·bpm; about 2600 at rest). */
  kek?: number;
  /** Baevsky's adaptation potential, points. */
  adaptationPotential?: number;
  adaptationLevel?: AdaptationLevel;
  /** Pirogova's physical-state index. */
  physicalState?: number;
  physicalStateLevel?: PhysicalStateLevel;
  category?: BpCategory;
  issues: BpIssue[];
};

const LIMITS = {
  systolic: [50, 300],
  diastolic: [20, 200],
  hrBpm: [20, 250],
} as const;

function isValid(field: keyof typeof LIMITS, value: number): boolean {
  const [low, high] = LIMITS[field];
  return Number.isFinite(value) && value >= low && value <= high;
}

/** The 2018 ESC/ESH office category: the higher of the SBP and DBP categories; ISH by SBP alone. */
export function bpCategory(systolic: number, diastolic: number): BpCategory {
  if (systolic >= 140 && diastolic < 90) {
    return systolic >= 180
      ? "isolated_systolic_3"
      : systolic >= 160
        ? "isolated_systolic_2"
        : "isolated_systolic_1";
  }
  const order: BpCategory[] = ["optimal", "normal", "high_normal", "grade_1", "grade_2", "grade_3"];
  const bySystolic =
    systolic >= 180
      ? 5
      : systolic >= 160
        ? 4
        : systolic >= 140
          ? 3
          : systolic >= 130
            ? 2
            : systolic >= 120
              ? 1
              : 0;
  const byDiastolic =
    diastolic >= 110
      ? 5
      : diastolic >= 100
        ? 4
        : diastolic >= 90
          ? 3
          : diastolic >= 85
            ? 2
            : diastolic >= 80
              ? 1
              : 0;
  return order[Math.max(bySystolic, byDiastolic)] ?? "optimal";
}

function adaptationLevel(points: number): AdaptationLevel {
  if (points <= 2.1) return "satisfactory";
  if (points <= 3.2) return "tension";
  if (points <= 4.3) return "unsatisfactory";
  return "failure";
}

function physicalStateLevel(value: number): PhysicalStateLevel {
  if (value <= 0.375) return "low";
  if (value <= 0.525) return "below_average";
  if (value <= 0.675) return "average";
  if (value <= 0.825) return "above_average";
  return "high";
}

/**
 * Every index that the reading allows. Kerdo is unrounded (the spec's app shows round(VI)); Robinson,
 * KEK and the adaptation potential reproduce the Welltory export (see the package tests).
 */
export function computeBpIndices(input: BpInput): BpIndices {
  const issues: BpIssue[] = [];
  for (const field of ["systolic", "diastolic", "hrBpm"] as const) {
    if (!isValid(field, input[field])) issues.push({ code: "invalid_reading", field });
  }
  if (issues.length > 0) return { issues };

  const { systolic, diastolic, hrBpm } = input;
  const result: BpIndices = {
    kerdo: (1 - diastolic / hrBpm) * 100,
    robinson: (hrBpm * systolic) / 100,
    category: bpCategory(systolic, diastolic),
    issues,
  };
  const pulsePressure = systolic - diastolic;
  if (pulsePressure > 0) {
    result.pulsePressure = pulsePressure;
    result.meanArterialPressure = diastolic + pulsePressure / 3;
    result.kvas = (10 * hrBpm) / pulsePressure;
    result.kek = pulsePressure * hrBpm;
  } else {
    issues.push({ code: "no_pulse_pressure" });
  }

  const missing = (["ageYears", "weightKg", "heightCm"] as const).filter((field) => {
    const value = input[field];
    return value === undefined || !Number.isFinite(value) || value <= 0;
  });
  if (missing.length > 0) {
    issues.push({ code: "missing_anthropometry", fields: missing });
    return result;
  }
  const age = input.ageYears ?? 0;
  const weight = input.weightKg ?? 0;
  const height = input.heightCm ?? 0;
  const potential =
    0.011 * hrBpm +
    0.014 * systolic +
    0.008 * diastolic +
    0.014 * age +
    0.009 * weight -
    0.009 * height -
    0.27;
  result.adaptationPotential = potential;
  result.adaptationLevel = adaptationLevel(potential);
  if (result.meanArterialPressure !== undefined) {
    const state =
      (700 - 3 * hrBpm - 2.5 * result.meanArterialPressure - 2.7 * age + 0.28 * weight) /
      (350 - 2.6 * age + 0.21 * height);
    result.physicalState = state;
    result.physicalStateLevel = physicalStateLevel(state);
  }
  return result;
}
