import type { BaselineStats, ScoreBaseline } from "./baseline.ts";

// Every constant below is explained in packages/hrv/docs/scores.md.

/** Population reference of ln rMSSD (ln ms) for resting spot measurements: centre and SD. */
export const POPULATION_LN_RMSSD = { mean: Math.log(42), sd: 0.6 };
/** Population reference of ln SI (Baevsky): centre at the upper end of Baevsky's normal range, and SD. */
export const POPULATION_LN_SI = { mean: Math.log(150), sd: 0.95 };
/** Population reference of heart rate during a resting spot measurement, bpm. */
export const POPULATION_HR = { mean: 72, sd: 12 };
/** Measurements needed before the personal baseline counts at all, and for it to count fully. */
export const BASELINE_MIN_COUNT = 5;
export const BASELINE_FULL_COUNT = 14;
// SD floors keep a person with a very steady history from swinging to 0 or 100 on a small change.
const SD_FLOOR_LN_RMSSD = 0.15;
const SD_FLOOR_LN_SI = 0.2;
const SD_FLOOR_HR = 3;
/** Slope of the logistic map from a combined z-score to 0–100. */
const GAIN = 1.1;

/** One measurement's inputs; all plain numbers so callers need not run the RR analysis here. */
export interface ScoreInput {
  /** rMSSD, ms; required and > 0. */
  rmssdMs: number;
  /** Baevsky stress index SI = AMo / (2·Mo·MxDMn), conventional units; optional (undefined when RR is constant). */
  stressIndex?: number;
  /** Heart rate, beats/min; optional. */
  hrBpm?: number;
}

export type ScoreIssueCode =
  /** rMSSD is missing, not finite or ≤ 0: no score can be computed. */
  | "invalid_rmssd"
  /** SI is missing or invalid: the scores use rMSSD (and heart rate) only. */
  | "missing_stress_index"
  /** Fewer than BASELINE_MIN_COUNT earlier measurements: population references only. */
  | "no_baseline"
  /** Between BASELINE_MIN_COUNT and BASELINE_FULL_COUNT: personal and population references blended. */
  | "partial_baseline";

export interface ScoreIssue {
  code: ScoreIssueCode;
}

export interface Scores {
  /** Stress (sympathetic strain), 0–100, unrounded; absent with `invalid_rmssd`. */
  stress?: number;
  /** Energy (parasympathetic reserve), 0–100, unrounded. */
  energy?: number;
  /** Performance / productivity (readiness for load), 0–100, unrounded. */
  performance?: number;
  /** Weight of the personal baseline, 0 (population only) to 1 (personal only). */
  personalWeight: number;
  issues: ScoreIssue[];
}

const valid = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v) && v > 0;
const logistic = (s: number) => 100 / (1 + Math.exp(-GAIN * s));
const clamp100 = (v: number) => Math.max(0, Math.min(100, v));
const z = (v: number, ref: { mean: number; sd: number }, floor = 0) =>
  (v - ref.mean) / Math.max(ref.sd, floor);

function personalWeight(baseline: ScoreBaseline | undefined): number {
  const n = baseline?.lnRmssd60?.count ?? 0;
  if (n < BASELINE_MIN_COUNT) return 0;
  return Math.min(1, n / BASELINE_FULL_COUNT);
}

/** Personal z of a value against a 60-day window, falling back to the population when the window is too small. */
function personalZ(
  v: number,
  window: BaselineStats | undefined,
  population: { mean: number; sd: number },
  floor: number,
) {
  if (!window || window.count < BASELINE_MIN_COUNT) return z(v, population);
  return z(v, window, floor);
}

/** Weighted mean of the terms that are present, weights renormalised. */
function combine(terms: [number, number | undefined][]): number {
  let sum = 0;
  let weight = 0;
  for (const [w, v] of terms) {
    if (v === undefined) continue;
    sum += w * v;
    weight += Math.abs(w);
  }
  return weight > 0 ? sum / weight : 0;
}

/**
 * Stress, energy and performance scores, 0–100, from one measurement and optionally the person's
 * baseline (`computeBaseline`). Formulas, constants, rationale and references: docs/scores.md.
 *
 * In short: ln rMSSD (vagal tone), ln SI (Baevsky's stress index, sympathetic strain) and heart rate are
 * turned into z-scores — against population references, and against the person's 60-day normal range
 * and 7-day rolling mean of ln rMSSD when a baseline exists, blended by how many earlier measurements
 * there are (none below 5, fully personal from 14). Weighted sums of the z-scores go through a
 * logistic curve. Stress rises with SI and heart rate and falls with rMSSD; energy and performance
 * do the opposite (performance leans on the 7-day trend, energy on today). The scores are bounded,
 * monotonic in each input and smooth (tiny input changes give tiny score changes; they are not
 * rounded — round for display).
 *
 * Dirty input never throws: invalid rMSSD → no scores and `invalid_rmssd`; invalid SI or heart rate
 * → left out of the sums (`missing_stress_index` for SI).
 */
export function computeScores(input: ScoreInput, baseline?: ScoreBaseline): Scores {
  const issues: ScoreIssue[] = [];
  const w = personalWeight(baseline);
  if (w === 0) issues.push({ code: "no_baseline" });
  else if (w < 1) issues.push({ code: "partial_baseline" });
  if (!valid(input.rmssdMs)) return { personalWeight: w, issues: [{ code: "invalid_rmssd" }, ...issues] };
  const lnR = Math.log(input.rmssdMs);
  const si = input.stressIndex;
  const lnSi = valid(si) ? Math.log(si) : undefined;
  if (lnSi === undefined) issues.push({ code: "missing_stress_index" });
  const hr = valid(input.hrBpm) ? input.hrBpm : undefined;
  const blend = (personal: number, population: number) => w * personal + (1 - w) * population;

  const popR = z(lnR, POPULATION_LN_RMSSD);
  const r60 = baseline?.lnRmssd60;
  const todayR = r60 ? z(lnR, r60, SD_FLOOR_LN_RMSSD) : popR;
  // Rolling 7-day mean including today's value.
  const r7 = baseline?.lnRmssd7;
  const mean7 = r7 ? (r7.mean * r7.count + lnR) / (r7.count + 1) : lnR;
  const trendR = r60 ? z(mean7, r60, SD_FLOOR_LN_RMSSD) : popR;
  const zRToday = blend(todayR, popR);
  const zRTrend = blend(0.4 * todayR + 0.6 * trendR, popR);
  const zSi =
    lnSi === undefined
      ? undefined
      : blend(
          personalZ(lnSi, baseline?.lnStressIndex60, POPULATION_LN_SI, SD_FLOOR_LN_SI),
          z(lnSi, POPULATION_LN_SI),
        );
  const zHr =
    hr === undefined
      ? undefined
      : blend(personalZ(hr, baseline?.hr60, POPULATION_HR, SD_FLOOR_HR), z(hr, POPULATION_HR));

  const stress = combine([
    [0.5, zSi],
    [-0.35, zRToday],
    [0.15, zHr],
  ]);
  const energy = combine([
    [0.6, zRToday],
    [-0.25, zSi],
    [-0.15, zHr],
  ]);
  const performance = combine([
    [0.55, zRTrend],
    [-0.3, zSi],
    [-0.15, zHr],
  ]);
  return {
    stress: clamp100(logistic(stress)),
    energy: clamp100(logistic(energy)),
    performance: clamp100(logistic(performance)),
    personalWeight: w,
    issues,
  };
}
