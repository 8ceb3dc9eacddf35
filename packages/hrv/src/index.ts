/**
 * @tonus/hrv — the HRV engine: RR analysis (artifact correction, time domain, Baevsky's variational
 * pulsometry, frequency domain), camera PPG, Bluetooth heart-rate packets, RR files and the stress,
 * energy and performance scores. Pure TypeScript, no DOM or Node APIs, no runtime dependencies.
 */

export * from "./ble/index.ts";
export * from "./bp-indices/index.ts";
export * from "./files/index.ts";
export * from "./ppg/index.ts";
export {
  type AnalyzeRrOptions,
  type ArtifactSummary,
  analyzeRr,
  MAX_RR_MS,
  MIN_FREQUENCY_INTERVALS,
  MIN_RR_MS,
  RR_ALGORITHM_VERSION,
  type RrAnalysis,
  type SeriesMetrics,
} from "./rr/analyze.ts";
export {
  type ArtifactCorrection,
  type ArtifactFlag,
  type ArtifactOptions,
  type ArtifactType,
  correctArtifacts,
} from "./rr/artifacts.ts";
export { type Baevsky, computeBaevsky } from "./rr/baevsky.ts";
export { BANDS, computeFrequencyDomain, type FrequencyDomain } from "./rr/frequency.ts";
export { HrvError, type RrIssue, type RrIssueCode, type SeriesName } from "./rr/issues.ts";
export { computeTimeDomain, type TimeDomain } from "./rr/time-domain.ts";
export * from "./scores/index.ts";
