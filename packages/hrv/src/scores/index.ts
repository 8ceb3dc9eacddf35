export type { BaselineEntry, BaselineSeries, BaselineStats, ScoreBaseline } from "./baseline.ts";
export {
  addToBaselineSeries,
  baselineSeriesOf,
  computeBaseline,
  computeBaselineOf,
} from "./baseline.ts";
export type { ScoreInput, ScoreIssue, ScoreIssueCode, Scores } from "./scores.ts";
export {
  BASELINE_FULL_COUNT,
  BASELINE_MIN_COUNT,
  computeScores,
  POPULATION_HR,
  POPULATION_LN_RMSSD,
  POPULATION_LN_SI,
} from "./scores.ts";
