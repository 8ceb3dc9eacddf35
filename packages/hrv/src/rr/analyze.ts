import {
  type ArtifactFlag,
  type ArtifactOptions,
  type ArtifactType,
  correctArtifacts,
  resolveArtifactOptions,
} from "./artifacts.ts";
import { type Baevsky, computeBaevsky } from "./baevsky.ts";
import { computeFrequencyDomain, type FrequencyDomain } from "./frequency.ts";
import { HrvError, type RrIssue, type SeriesName } from "./issues.ts";
import { computeTimeDomain, type TimeDomain } from "./time-domain.ts";

/**
 * Version of the RR analysis algorithms. Stored with every result so that measurements can be
 * recomputed when it changes; bump it whenever any number `analyzeRr` returns could change.
 */
export const RR_ALGORITHM_VERSION = "rr-1.0.0";

/** Longest RR accepted as a value at all (ms); anything longer is reported as `invalid_values`. */
export const MAX_RR_MS = 60000;
/**
 * Shortest RR accepted as a value at all (ms; 3000 bpm, far beyond any heart). Shorter values are
 * not artifacts to correct but garbage (and would overflow 60000/RR), reported as `invalid_values`.
 */
export const MIN_RR_MS = 20;

/** Options of {@link analyzeRr}. Every field is optional. */
export interface AnalyzeRrOptions {
  /** Fewer intervals than this (after dropping invalid values) → `too_short`, no metrics. Default 20, at least 8. */
  minIntervals?: number;
  /**
   * Share of corrected intervals (0…1) above which the result carries `too_many_artifacts`. Default
   * 0.10. Kubios advises caution above ~5 % corrected beats; on the 3,245 Welltory spot measurements
   * (mostly phone-camera) 24 % exceed 5 % and 4.7 % exceed 10 %, so 10 % is where "something is wrong
   * with this measurement" rather than "some beats were fixed".
   */
  maxArtifactShare?: number;
  /** Tuning of the artifact detector (defaults: Lipponen & Tarvainen 2019; see `correctArtifacts`). */
  artifacts?: ArtifactOptions;
  /**
   * Indices into `rrMs` of intervals that do not follow the interval before them: the beats between
   * were not timed (camera frames lost, a finger lifted, a recording paused), so the series is a chain
   * of runs. No successive difference is taken across a break (RMSSD, pNN50, SDSD and the artifact
   * detector's dRR see only pairs inside a run); indices that are not integers in 1…length−1 are
   * ignored. Baevsky's histogram and the spectrum see the runs joined.
   */
  breaks?: ArrayLike<number>;
}

/** Summary of the artifact correction (Lipponen & Tarvainen 2019), against the analysed input. */
export interface ArtifactSummary {
  /** Flagged intervals / analysed (valid) intervals, 0…1. */
  share: number;
  /** Flagged intervals per type. */
  counts: Record<ArtifactType, number>;
  /** Each flagged interval: 0-based index into `rrMs` as given (invalid values count), and its type. */
  flags: ArtifactFlag[];
}

/** Metrics of one series. */
export interface SeriesMetrics {
  /** Time-domain indices (Task Force 1996 with the app's conventions, see {@link TimeDomain}). */
  timeDomain: TimeDomain;
  /** Baevsky's variational pulsometry (see {@link Baevsky}). */
  baevsky: Baevsky;
  /** Frequency domain; absent (with `too_short_for_frequency`) unless the series has more than 280 intervals. */
  frequency?: FrequencyDomain;
}

/** What {@link analyzeRr} returns. Units: ms unless a key names another unit. */
export interface RrAnalysis {
  /** {@link RR_ALGORITHM_VERSION} of the code that produced this result. */
  algorithmVersion: string;
  /** Everything that made the result incomplete or doubtful; empty for a clean record. */
  issues: RrIssue[];
  /** Metrics of the series as recorded (the values the spec's app exports). Absent with `too_short`. */
  raw?: SeriesMetrics;
  /** What the artifact correction found. Absent with `too_short`. */
  artifacts?: ArtifactSummary;
  /**
   * Metrics of the corrected NN series — present only when the correction changed something; scores
   * and decoding use these when present, `raw` otherwise.
   */
  corrected?: SeriesMetrics;
}

const DEFAULT_MIN_INTERVALS = 20;
/** Fewest intervals for spectral analysis: 281 (spec §5, §9: "more than 280 beats"). */
export const MIN_FREQUENCY_INTERVALS = 281;
const DEFAULT_MAX_ARTIFACT_SHARE = 0.1;

/**
 * Analyses a series of RR (inter-beat) intervals.
 *
 * @param rrMs RR intervals in **milliseconds**, in time order. Values that are not finite or outside
 *   [{@link MIN_RR_MS}, {@link MAX_RR_MS}] are dropped with an `invalid_values` issue.
 * @param options see {@link AnalyzeRrOptions}.
 * @returns metrics of the raw and (when artifacts were corrected) the corrected series, the artifact
 *   summary, and `issues`; never throws for poor data (only for a
 *   non-array input or invalid options: {@link HrvError}).
 *
 * References: Task Force of the ESC/NASPE 1996 (time and frequency domain); Baevsky et al. 2001
 * (variational pulsometry); Lipponen & Tarvainen 2019 (artifacts); DEFINITIONS.md in the project's HRV reference folder.
 */
export function analyzeRr(rrMs: ArrayLike<number>, options: AnalyzeRrOptions = {}): RrAnalysis {
  if (rrMs == null || typeof rrMs.length !== "number") {
    throw new HrvError("invalid_argument", "rrMs must be an array of numbers");
  }
  const minIntervals = options.minIntervals ?? DEFAULT_MIN_INTERVALS;
  if (!Number.isInteger(minIntervals) || minIntervals < 8) {
    throw new HrvError("invalid_argument", "minIntervals must be an integer ≥ 8");
  }
  const artifactOptions = resolveArtifactOptions(options.artifacts);
  const maxShare = options.maxArtifactShare ?? DEFAULT_MAX_ARTIFACT_SHARE;
  if (!(maxShare >= 0 && maxShare <= 1))
    throw new HrvError("invalid_argument", "maxArtifactShare must be in 0…1");
  const issues: RrIssue[] = [];
  const { rr, source } = validIntervals(rrMs, issues);
  const result: RrAnalysis = { algorithmVersion: RR_ALGORITHM_VERSION, issues };
  if (rr.length < minIntervals) {
    issues.push({ code: "too_short", intervals: rr.length, minimum: minIntervals });
    return result;
  }
  const breaks = breakFlags(rrMs.length, options.breaks, source);
  if (breaks) {
    const pairs = countPairs(breaks);
    // As many successive differences as the shortest series without breaks has.
    if (pairs < minIntervals - 1) {
      issues.push({ code: "too_few_pairs", pairs, minimum: minIntervals - 1 });
      return result;
    }
  }
  result.raw = seriesMetrics(rr, "raw", issues, breaks);
  const fix = correctArtifacts(rr, artifactOptions, breaks);
  const flags = source ? fix.flags.map((f) => ({ ...f, index: source[f.index] as number })) : fix.flags;
  result.artifacts = { share: fix.share, counts: fix.counts, flags };
  if (fix.share > maxShare)
    issues.push({ code: "too_many_artifacts", share: fix.share, threshold: maxShare });
  if (fix.flags.length === 0) return result;
  if (fix.nn.length < minIntervals) {
    issues.push({ code: "corrected_too_short", intervals: fix.nn.length, minimum: minIntervals });
  } else result.corrected = seriesMetrics(fix.nn, "corrected", issues, fix.nnBreaks);
  return result;
}

/**
 * One flag per valid interval (1 = a break before it), from break indices into the input; undefined
 * when there is none. A break before a dropped invalid value moves to the next kept one.
 */
function breakFlags(
  inputLength: number,
  given: ArrayLike<number> | undefined,
  source: Int32Array | undefined,
): Uint8Array | undefined {
  if (!given || given.length === 0) return undefined;
  const atInput = new Uint8Array(inputLength);
  let any = false;
  for (let k = 0; k < given.length; k++) {
    const i = given[k];
    if (typeof i !== "number" || !Number.isInteger(i) || i < 1 || i >= inputLength) continue;
    atInput[i] = 1;
    any = true;
  }
  if (!any) return undefined;
  if (!source) return atInput;
  const flags = new Uint8Array(source.length);
  let pending = 0;
  let previous = -1;
  for (let k = 0; k < source.length; k++) {
    const at = source[k] as number;
    for (let i = previous + 1; i <= at; i++) pending |= atInput[i] as number;
    flags[k] = k > 0 ? pending : 0;
    pending = 0;
    previous = at;
  }
  return flags;
}

/** Successive differences inside runs: intervals after the first, less the breaks. */
function countPairs(breaks: Uint8Array): number {
  let pairs = 0;
  for (let i = 1; i < breaks.length; i++) if (!breaks[i]) pairs++;
  return pairs;
}

/** The valid values of `rrMs` and, when some were dropped, each kept value's index in `rrMs`. */
function validIntervals(
  rrMs: ArrayLike<number>,
  issues: RrIssue[],
): { rr: Float64Array; source?: Int32Array } {
  const out = new Float64Array(rrMs.length);
  const source = new Int32Array(rrMs.length);
  let n = 0;
  for (let i = 0; i < rrMs.length; i++) {
    const x = rrMs[i];
    if (typeof x !== "number" || !(x >= MIN_RR_MS && x <= MAX_RR_MS)) continue;
    source[n] = i;
    out[n++] = x;
  }
  if (n === rrMs.length) return { rr: out };
  issues.push({ code: "invalid_values", count: rrMs.length - n });
  return { rr: out.slice(0, n), source: source.slice(0, n) };
}

function seriesMetrics(
  rr: Float64Array,
  series: SeriesName,
  issues: RrIssue[],
  breaks?: Uint8Array,
): SeriesMetrics {
  const timeDomain = computeTimeDomain(rr, breaks);
  const baevsky = computeBaevsky(rr);
  if (baevsky.si === undefined) issues.push({ code: "zero_range", series });
  const metrics: SeriesMetrics = { timeDomain, baevsky };
  if (rr.length < MIN_FREQUENCY_INTERVALS) {
    issues.push({
      code: "too_short_for_frequency",
      series,
      intervals: rr.length,
      minimum: MIN_FREQUENCY_INTERVALS,
    });
    return metrics;
  }
  const frequency = computeFrequencyDomain(rr);
  for (const band of ["vlf", "lf", "hf"] as const) {
    if (frequency[`${band}Ms2`] === 0) issues.push({ code: "no_spectral_power", series, band });
  }
  metrics.frequency = frequency;
  return metrics;
}
