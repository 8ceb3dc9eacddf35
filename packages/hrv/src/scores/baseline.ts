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

/**
 * One person's earlier measurements prepared for many baselines, column by column, in the order they
 * are given (`addToBaselineSeries` keeps it ascending by time): each value a baseline counts (its
 * logarithm for rMSSD and SI) or NaN where `computeBaseline` would ignore it; times in ms on the clock
 * of `nowMs`. An import scores hundreds of measurements against overlapping windows of one history:
 * taken once per entry instead of once per window, the logarithms and the entries' objects stop being
 * most of the scoring's work.
 */
export interface BaselineSeries {
  timeMs: number[];
  lnRmssd: number[];
  lnStressIndex: number[];
  hrBpm: number[];
}

const positive = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v) && v > 0;

function pushEntry(s: BaselineSeries, e: BaselineEntry, at: number) {
  s.timeMs.splice(at, 0, e.timeMs);
  s.lnRmssd.splice(at, 0, positive(e.rmssdMs) ? Math.log(e.rmssdMs) : Number.NaN);
  s.lnStressIndex.splice(at, 0, positive(e.stressIndex) ? Math.log(e.stressIndex) : Number.NaN);
  s.hrBpm.splice(at, 0, positive(e.hrBpm) ? e.hrBpm : Number.NaN);
}

/** A series of `entries` in their order (an entry without usable values keeps its place). */
export function baselineSeriesOf(entries: readonly BaselineEntry[]): BaselineSeries {
  const s: BaselineSeries = { timeMs: [], lnRmssd: [], lnStressIndex: [], hrBpm: [] };
  for (const e of entries) pushEntry(s, e, s.timeMs.length);
  return s;
}

/** Adds `entry` to a series ascending by time, after the entries of its time or earlier. */
export function addToBaselineSeries(s: BaselineSeries, entry: BaselineEntry): void {
  let lo = 0;
  let hi = s.timeMs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((s.timeMs[mid] as number) <= entry.timeMs) lo = mid + 1;
    else hi = mid;
  }
  pushEntry(s, entry, lo);
}

/** Running count, sum and sum of squared deviations of one quantity. */
type Acc = { n: number; sum: number; ss: number; mean: number };
const acc = (): Acc => ({ n: 0, sum: 0, ss: 0, mean: 0 });

function statsOf(a: Acc): BaselineStats | undefined {
  if (a.n === 0) return undefined;
  return { mean: a.mean, sd: a.n > 1 ? Math.sqrt(a.ss / (a.n - 1)) : 0, count: a.n };
}

/**
 * `computeBaseline` of the series' entries `from` to `to - 1`, taken newest (`to - 1`) first: the same
 * numbers, bit for bit, as `computeBaseline` given those entries in that order, since each mean and SD
 * is summed in the same order (two passes: the sums, then the squared deviations from their means).
 */
export function computeBaselineOf(s: BaselineSeries, from: number, to: number, nowMs: number): ScoreBaseline {
  const r60 = acc();
  const r7 = acc();
  const si60 = acc();
  const hr60 = acc();
  const counts = (e: number) => {
    const age = nowMs - (s.timeMs[e] as number);
    return Number.isFinite(age) && age >= 0 && age <= 60 * DAY_MS;
  };
  for (let e = to - 1; e >= from; e--) {
    if (!counts(e)) continue;
    const r = s.lnRmssd[e] as number;
    if (!Number.isNaN(r)) {
      r60.n++;
      r60.sum += r;
      if (nowMs - (s.timeMs[e] as number) <= 7 * DAY_MS) {
        r7.n++;
        r7.sum += r;
      }
    }
    const si = s.lnStressIndex[e] as number;
    if (!Number.isNaN(si)) {
      si60.n++;
      si60.sum += si;
    }
    const hr = s.hrBpm[e] as number;
    if (!Number.isNaN(hr)) {
      hr60.n++;
      hr60.sum += hr;
    }
  }
  for (const a of [r60, r7, si60, hr60]) a.mean = a.sum / a.n;
  for (let e = to - 1; e >= from; e--) {
    if (!counts(e)) continue;
    const r = s.lnRmssd[e] as number;
    if (!Number.isNaN(r)) {
      r60.ss += (r - r60.mean) ** 2;
      if (nowMs - (s.timeMs[e] as number) <= 7 * DAY_MS) r7.ss += (r - r7.mean) ** 2;
    }
    const si = s.lnStressIndex[e] as number;
    if (!Number.isNaN(si)) si60.ss += (si - si60.mean) ** 2;
    const hr = s.hrBpm[e] as number;
    if (!Number.isNaN(hr)) hr60.ss += (hr - hr60.mean) ** 2;
  }
  const out: ScoreBaseline = {};
  const a = statsOf(r60);
  const b = statsOf(r7);
  const c = statsOf(si60);
  const d = statsOf(hr60);
  if (a) out.lnRmssd60 = a;
  if (b) out.lnRmssd7 = b;
  if (c) out.lnStressIndex60 = c;
  if (d) out.hr60 = d;
  return out;
}

/**
 * Summarises a person's earlier measurements for `computeScores`: mean and SD of ln rMSSD over the 60
 * days before `nowMs` (the normal range) and over the last 7 days (the rolling mean), of ln SI and of
 * heart rate over the 60 days. Each measurement counts once (several a day all count).
 *
 * Dirty input never throws: entries with a non-finite time, a time after `nowMs`, or a missing,
 * non-finite or non-positive value are ignored for that quantity; a window with no usable entry is
 * absent from the result. Pass the history *without* the measurement being scored. For many baselines
 * of one history, see `computeBaselineOf`.
 */
export function computeBaseline(history: readonly BaselineEntry[], nowMs: number): ScoreBaseline {
  // Reversed, so that `computeBaselineOf` (newest, i.e. last, first) takes them in the given order.
  return computeBaselineOf(baselineSeriesOf([...history].reverse()), 0, history.length, nowMs);
}
