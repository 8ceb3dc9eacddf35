export { analyzePpg, PPG_MAX_DURATION_MS, PPG_MIN_DURATION_MS, PPG_MIN_GOOD_SHARE } from "./analyze.ts";
export type { FrameColour } from "./finger.ts";
export { fingerOnLens } from "./finger.ts";
export type { PpgStream, PpgStreamOptions } from "./stream.ts";
export { createPpgStream } from "./stream.ts";
export type {
  PpgAnalysis,
  PpgBadSegment,
  PpgBeat,
  PpgIssue,
  PpgIssueCode,
  PpgOptions,
} from "./types.ts";
