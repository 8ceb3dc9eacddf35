// A person's baseline for the scores: ln rMSSD and ln SI over the last 60 days (the "normal range")
// and ln rMSSD over the last 7 days (the trend), after Plews et al. 2012/2013 and Kiviniemi et al. 2007.

/** One earlier measurement of the same person. */
export interface BaselineEntry {
  /** When it was taken, ms since the epoch (or any clock shared with `nowMs`). */
  timeMs: number;
  /** rMSSD, ms (> 0). */
  rmssdMs: number;
  /** Baevsky stress index SI, conventional units (> 0), when known. */
  stressIndex?: number;
  /** Heart rate, beats/min, when known. */
  hrBpm?: number;
}

/** Mean and standard deviation (sample, N−1) of a quantity over a window; sd is 0 for one value. */
export interface BaselineStats {
  mean: number;
  sd: number;
  count: number;
}

export interface ScoreBaseline {
  /** ln rMSSD (ln ms) over the 60 days before `nowMs`. */
  lnRmssd60?: BaselineStats;
  /** ln rMSSD over the 7 days before `nowMs`. */
  lnRmssd7?: BaselineStats;
  /** ln SI over the 60 days. */
  lnStressIndex60?: BaselineStats;
  /** Heart rate (bpm) over the 60 days. */
  hr60?: BaselineStats;
}

const DAY_MS = 86_400_000;

function stats(values: number[]): BaselineStats | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / n;
  let ss = 0;
  for (const v of values) ss += (v - mean) ** 2;
  return { mean, sd: n > 1 ? Math.sqrt(ss / (n - 1)) : 0, count: n };
}

const positive = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v) && v > 0;

/**
 * Summarises a person's earlier measurements for `computeScores`: mean and SD of ln rMSSD over the 60
 * days before `nowMs` (the normal range) and over the last 7 days (the rolling mean), of ln SI and of
 * heart rate over the 60 days. Each measurement counts once (several a day all count).
 *
 * Dirty input never throws: entries with a non-finite time, a time after `nowMs`, or a missing,
 * non-finite or non-positive value are ignored for that quantity; a window with no usable entry is
 * absent from the result. Pass the history *without* the measurement being scored.
 */
export function computeBaseline(history: readonly BaselineEntry[], nowMs: number): ScoreBaseline {
  const r60: number[] = [];
  const r7: number[] = [];
  const si60: number[] = [];
  const hr60: number[] = [];
  for (const e of history) {
    const age = nowMs - e.timeMs;
    if (!Number.isFinite(age) || age < 0 || age > 60 * DAY_MS) continue;
    if (positive(e.rmssdMs)) {
      r60.push(Math.log(e.rmssdMs));
      if (age <= 7 * DAY_MS) r7.push(Math.log(e.rmssdMs));
    }
    if (positive(e.stressIndex)) si60.push(Math.log(e.stressIndex));
    if (positive(e.hrBpm)) hr60.push(e.hrBpm);
  }
  const out: ScoreBaseline = {};
  const a = stats(r60);
  const b = stats(r7);
  const c = stats(si60);
  const d = stats(hr60);
  if (a) out.lnRmssd60 = a;
  if (b) out.lnRmssd7 = b;
  if (c) out.lnStressIndex60 = c;
  if (d) out.hr60 = d;
  return out;
}
