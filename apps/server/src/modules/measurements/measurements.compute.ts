import type { MeasurementQuality, MeasurementValues, ParameterDecoding } from "@tonus/contract";
import {
  analyzeRr,
  type BpCategory,
  computeBpIndices,
  computeScores,
  RR_ALGORITHM_VERSION,
  type RrAnalysis,
  type ScoreBaseline,
  type SeriesMetrics,
} from "@tonus/hrv";

/**
 * Everything the server computes for one measurement from its raw RR series (packages/hrv), the
 * person's earlier measurements (score baseline), the nearest blood-pressure reading and the profile.
 * Pure: the service gathers the inputs and stores the `MeasurementResult` as the row's `result`.
 */

/**
 * Version of everything in `result`: the RR analysis plus this module's own mapping (scores, blood-
 * pressure indices, quality). Bump the suffix when this file changes a stored number; the recompute job
 * recomputes every row whose `algorithm_version` differs.
 */
export const MEASUREMENT_ALGORITHM_VERSION = `${RR_ALGORITHM_VERSION}+m1`;

/**
 * The `algorithm_version` of a measurement the operator asked to recompute (`measurements-recompute
 * --all`): stale like any other version, its stored numbers readable until it is recomputed.
 */
export const RECOMPUTE_REQUESTED = "recompute-requested";

/** A blood-pressure reading counts for a measurement within this many minutes of its start. */
export const BP_WINDOW_MINUTES = 30;

export type BpInputReading = {
  id: string;
  systolic: number;
  diastolic: number;
  pulse: number | null;
  measuredAt: Date;
};

export type Anthropometry = { dateOfBirth: string | null; heightCm: number | null; weightKg: number | null };

export type Issue = { code: string; [key: string]: unknown };

export type MeasurementResult = {
  values: MeasurementValues;
  series: "raw" | "corrected";
  raw: MeasurementValues | null;
  corrected: MeasurementValues | null;
  scores: { stress: number | null; energy: number | null; performance: number | null };
  bp: {
    reading_id: string;
    systolic: number;
    diastolic: number;
    pulse: number | null;
    measured_at: string;
    category: BpCategory;
  } | null;
  bpIndices: {
    kerdo: number | null;
    robinson: number | null;
    functional_changes: number | null;
    functional_changes_level: "satisfactory" | "tension" | "unsatisfactory" | "failure" | null;
    kek: number | null;
    kvas: number | null;
    phys_state: number | null;
    phys_state_level: "low" | "below_average" | "average" | "above_average" | "high" | null;
  };
  quality: MeasurementQuality;
  issues: Issue[];
  correctedBeats: { index: number; type: string }[];
  spectrum: { frequency_hz: number[]; psd_ms2_per_hz: number[] } | null;
};

const n = (v: number | undefined | null): number | null =>
  v === undefined || v === null || !Number.isFinite(v) ? null : v;

export const EMPTY_VALUES: MeasurementValues = {
  heart_rate: null,
  meanrr: null,
  stdrr: null,
  rmssd: null,
  pnn50: null,
  mxdmn: null,
  amo: null,
  psi: null,
  pvi: null,
  power: null,
  vlf: null,
  lf: null,
  hf: null,
  lfhf: null,
  total_beats: null,
};

/** The spec's flat values of one series (units: ms, %, ms², bpm; MxDMn as the app rounds it, in ms). */
export function seriesValues(m: SeriesMetrics): MeasurementValues {
  const t = m.timeDomain;
  const b = m.baevsky;
  const f = m.frequency;
  return {
    heart_rate: n(t.hrBpm),
    meanrr: n(t.meanRr),
    stdrr: n(t.sdnn),
    rmssd: n(t.rmssd),
    pnn50: n(t.pnn50Pct),
    mxdmn: n(Math.round(b.mxdmnS * 1000)),
    amo: n(b.amoPct),
    psi: n(b.si),
    pvi: n(b.ivr),
    power: n(f?.totalPowerMs2),
    vlf: n(f?.vlfMs2),
    lf: n(f?.lfMs2),
    hf: n(f?.hfMs2),
    lfhf: n(f?.lfHf),
    total_beats: n(t.beats),
  };
}

const BAD_DATA = new Set(["too_many_artifacts", "corrected_too_short", "zero_range"]);

/** Years completed at `at` from an ISO date of birth. */
export function ageAt(dateOfBirth: string | null, at: Date): number | undefined {
  if (!dateOfBirth) return undefined;
  const [y, m, d] = dateOfBirth.split("-").map(Number);
  if (!y || !m || !d) return undefined;
  let age = at.getUTCFullYear() - y;
  if (at.getUTCMonth() + 1 < m || (at.getUTCMonth() + 1 === m && at.getUTCDate() < d)) age--;
  return age > 0 && age < 130 ? age : undefined;
}

/**
 * Analyses the RR series, or returns null when it holds too few valid intervals for any metric (the
 * upload is then refused). `baseline` is `computeBaseline` of the person's earlier measurements
 * (without this one) at its start.
 */
export function computeMeasurement(input: {
  rrMs: readonly number[];
  /** Intervals that do not follow the one before them (see `analyzeRr`'s `breaks`). */
  rrBreaks?: readonly number[];
  startedAt: Date;
  baseline: ScoreBaseline;
  reading: BpInputReading | null;
  profile: Anthropometry;
  /** `analyzeRr(rrMs, { breaks: rrBreaks })` when the caller computed it already (in another thread). */
  analysis?: RrAnalysis;
}): MeasurementResult | null {
  const analysis = input.analysis ?? analyzeRr(input.rrMs, { breaks: input.rrBreaks ?? [] });
  if (!analysis.raw) return null;
  const raw = seriesValues(analysis.raw);
  const corrected = analysis.corrected ? seriesValues(analysis.corrected) : null;
  const headline = analysis.corrected ?? analysis.raw;
  const values = corrected ?? raw;
  const issues: Issue[] = analysis.issues.map((i) => ({ ...i }));

  const scores = computeScores(
    {
      rmssdMs: values.rmssd ?? Number.NaN,
      ...(values.psi !== null ? { stressIndex: values.psi } : {}),
      ...(values.heart_rate !== null ? { hrBpm: values.heart_rate } : {}),
    },
    input.baseline,
  );
  for (const i of scores.issues) issues.push({ code: i.code });

  const bpIndices: MeasurementResult["bpIndices"] = {
    kerdo: null,
    robinson: null,
    functional_changes: null,
    functional_changes_level: null,
    kek: null,
    kvas: null,
    phys_state: null,
    phys_state_level: null,
  };
  let bp: MeasurementResult["bp"] = null;
  const reading = input.reading;
  if (reading && values.heart_rate !== null) {
    // The heart rate of the measurement itself (simultaneous, from every beat), not the cuff's pulse.
    const indices = computeBpIndices({
      systolic: reading.systolic,
      diastolic: reading.diastolic,
      hrBpm: values.heart_rate,
      ageYears: ageAt(input.profile.dateOfBirth, input.startedAt),
      weightKg: input.profile.weightKg ?? undefined,
      heightCm: input.profile.heightCm ?? undefined,
    });
    bp = {
      reading_id: reading.id,
      systolic: reading.systolic,
      diastolic: reading.diastolic,
      pulse: reading.pulse,
      measured_at: reading.measuredAt.toISOString(),
      category: indices.category ?? "optimal",
    };
    bpIndices.kerdo = n(indices.kerdo);
    bpIndices.robinson = n(indices.robinson);
    bpIndices.functional_changes = n(indices.adaptationPotential);
    bpIndices.functional_changes_level = indices.adaptationLevel ?? null;
    bpIndices.kek = n(indices.kek);
    bpIndices.kvas = n(indices.kvas);
    bpIndices.phys_state = n(indices.physicalState);
    bpIndices.phys_state_level = indices.physicalStateLevel ?? null;
    for (const i of indices.issues) issues.push({ ...i, code: `bp_${i.code}` });
  } else {
    issues.push({ code: "no_bp_reading", window_minutes: BP_WINDOW_MINUTES });
  }

  const codes = new Set(issues.map((i) => i.code));
  const headlineSeries = analysis.corrected ? "corrected" : "raw";
  const quality: MeasurementQuality = [...codes].some((c) => BAD_DATA.has(c))
    ? "bad_data"
    : issues.some((i) => i.code === "too_short_for_frequency" && i.series === headlineSeries)
      ? "not_enough_data"
      : "ok";

  const spectrum = headline.frequency?.spectrum;
  return {
    values,
    series: headlineSeries,
    raw,
    corrected,
    scores: { stress: n(scores.stress), energy: n(scores.energy), performance: n(scores.performance) },
    bp,
    bpIndices,
    quality,
    issues,
    correctedBeats: (analysis.artifacts?.flags ?? []).map((f) => ({ index: f.index, type: f.type })),
    spectrum: spectrum ? { frequency_hz: spectrum.frequencyHz, psd_ms2_per_hz: spectrum.psdMs2PerHz } : null,
  };
}

/**
 * Reference ranges for a resting short-term (2–5 min) measurement of a healthy adult; sources in
 * DECODING.md. Parameters without an established short-term range have none and are decoded against the
 * person's own baseline only.
 */
export const NORMS: Readonly<Record<string, { low: number; high: number }>> = {
  heart_rate: { low: 60, high: 90 },
  meanrr: { low: 667, high: 1000 },
  stdrr: { low: 32, high: 93 },
  rmssd: { low: 19, high: 75 },
  lf: { low: 193, high: 1009 },
  hf: { low: 83, high: 3630 },
  lfhf: { low: 1.1, high: 11.6 },
  amo: { low: 30, high: 50 },
  psi: { low: 80, high: 150 },
  kerdo: { low: -15, high: 15 },
  functional_changes: { low: 0, high: 2.1 },
};

/** Parameters the decoding covers, in display order. */
export const DECODED_PARAMETERS = [
  "stress",
  "energy",
  "performance",
  "heart_rate",
  "meanrr",
  "stdrr",
  "rmssd",
  "pnn50",
  "mxdmn",
  "amo",
  "psi",
  "pvi",
  "power",
  "vlf",
  "lf",
  "hf",
  "lfhf",
  "kerdo",
  "robinson",
  "functional_changes",
  "kek",
  "kvas",
  "phys_state",
] as const;

/** The flat numbers of a result, by parameter name (values, scores and BP indices). */
export function flatNumbers(result: MeasurementResult): Record<string, number | null> {
  return {
    ...result.values,
    ...result.scores,
    kerdo: result.bpIndices.kerdo,
    robinson: result.bpIndices.robinson,
    functional_changes: result.bpIndices.functional_changes,
    kek: result.bpIndices.kek,
    kvas: result.bpIndices.kvas,
    phys_state: result.bpIndices.phys_state,
  };
}

/**
 * The dashboard metrics of a result in their storage units (durations in seconds, powers in s², heart
 * rate in bpm, %, scores and indices as they are); null where a value could not be computed.
 */
export function dashboardMetricsOf(r: MeasurementResult | null): Record<string, number | null> {
  const f = r ? flatNumbers(r) : {};
  const ms = (v: number | null | undefined) => (v === null || v === undefined ? null : v / 1000);
  const ms2 = (v: number | null | undefined) => (v === null || v === undefined ? null : v / 1e6);
  const keep = (v: number | null | undefined) => v ?? null;
  return {
    heart_rate: keep(f.heart_rate),
    meanrr: ms(f.meanrr),
    stdrr: ms(f.stdrr),
    rmssd: ms(f.rmssd),
    pnn50: keep(f.pnn50),
    mxdmn: ms(f.mxdmn),
    amo: keep(f.amo),
    psi: keep(f.psi),
    pvi: keep(f.pvi),
    power: ms2(f.power),
    vlf: ms2(f.vlf),
    lf: ms2(f.lf),
    hf: ms2(f.hf),
    lfhf: keep(f.lfhf),
    total_beats: keep(f.total_beats),
    stress: keep(f.stress),
    energy: keep(f.energy),
    // The spec's metric label for the performance score.
    productivity: keep(f.performance),
    kerdo: keep(f.kerdo),
    robinson: keep(f.robinson),
    functional_changes: keep(f.functional_changes),
    kek: keep(f.kek),
    kvas: keep(f.kvas),
    phys_state: keep(f.phys_state),
  };
}

/** Fewest earlier measurements for a personal baseline in the decoding. */
export const DECODING_BASELINE_MIN = 3;

function zone(value: number, low: number, high: number) {
  return value < low ? "below" : value > high ? "above" : "within";
}

/**
 * The decoding of each parameter: against the reference range and against the person's 60-day
 * baseline (mean ± 1 SD of their earlier measurements' values).
 */
export function decode(
  result: MeasurementResult,
  earlier: readonly Record<string, number | null>[],
): ParameterDecoding[] {
  const own = flatNumbers(result);
  const out: ParameterDecoding[] = [];
  for (const parameter of DECODED_PARAMETERS) {
    const value = own[parameter];
    if (value === null || value === undefined) continue;
    const norm = NORMS[parameter] ?? null;
    const past = earlier.map((e) => e[parameter]).filter((v): v is number => typeof v === "number");
    let baseline: ParameterDecoding["baseline"] = null;
    let baselineZone: ParameterDecoding["baseline_zone"] = null;
    if (past.length >= DECODING_BASELINE_MIN) {
      const mean = past.reduce((a, b) => a + b, 0) / past.length;
      const sd = Math.sqrt(past.reduce((a, b) => a + (b - mean) ** 2, 0) / (past.length - 1));
      baseline = { mean, sd, count: past.length };
      baselineZone = zone(value, mean - sd, mean + sd);
    }
    out.push({
      parameter,
      value,
      norm,
      norm_zone: norm ? zone(value, norm.low, norm.high) : null,
      baseline,
      baseline_zone: baselineZone,
    });
  }
  return out;
}
