/**
 * Why a result is incomplete or doubtful. Poor data is never an exception in this package: the result
 * carries issues with stable snake_case codes (texts live in the web catalogues under
 * `hrv.issues.<code>`), and a metric that cannot be computed is absent with an issue saying why.
 */
export type RrIssue =
  /** Input values that are not finite, shorter than 20 ms or longer than 60 s were dropped before analysis. */
  | { code: "invalid_values"; count: number }
  /** Fewer than `minimum` intervals: no metrics at all (neither `raw` nor `corrected`). */
  | { code: "too_short"; intervals: number; minimum: number }
  /**
   * The series has enough intervals but, with its breaks (`breaks` of `analyzeRr`), fewer than
   * `minimum` successive differences: no metrics at all.
   */
  | { code: "too_few_pairs"; pairs: number; minimum: number }
  /** Correction (merging extra beats) left fewer than `minimum` intervals: `corrected` is absent. */
  | { code: "corrected_too_short"; intervals: number; minimum: number }
  /**
   * The share of intervals the artifact correction changed exceeds `threshold` (both 0…1): the
   * spec's "Something is wrong with this measurement's data, no detailed decoding".
   */
  | { code: "too_many_artifacts"; share: number; threshold: number }
  /**
   * The series has at most 280 intervals (spec §5, §9): no frequency domain
   * ("Not enough data for full analysis, take another measurement").
   */
  | { code: "too_short_for_frequency"; series: SeriesName; intervals: number; minimum: number }
  /** Every RR in the (trimmed) range is equal: SI, IVR and VPR are undefined and absent. */
  | { code: "zero_range"; series: SeriesName }
  /** The spectrum has no power in a band: that band's power and the ratios using it are absent. */
  | { code: "no_spectral_power"; series: SeriesName; band: "vlf" | "lf" | "hf" };

/** Stable issue codes (see {@link RrIssue}). */
export type RrIssueCode = RrIssue["code"];

/** `raw`: the series as recorded; `corrected`: after artifact correction. */
export type SeriesName = "raw" | "corrected";

/**
 * Thrown only for programmer mistakes (wrong argument types or option values), never for poor data.
 * `code` is stable: `invalid_argument`.
 */
export class HrvError extends Error {
  readonly code: "invalid_argument";

  constructor(code: "invalid_argument", message: string) {
    super(message);
    this.name = "HrvError";
    this.code = code;
  }
}
