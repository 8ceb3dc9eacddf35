// Per-beat signal quality by template matching (Orphanidou et al., IEEE J Biomed Health Inform 2015;
// Li & Clifford, Physiol Meas 2012): each pulse is correlated with the recording's average pulse.

/** Template correlations below this make a pulse unusable. */
export const MIN_BEAT_QUALITY = 0.8;

function pearson(x: Float64Array, a: number, t: Float64Array): number {
  const n = t.length;
  let sx = 0;
  let st = 0;
  for (let k = 0; k < n; k++) {
    sx += x[a + k] ?? 0;
    st += t[k] ?? 0;
  }
  const mx = sx / n;
  const mt = st / n;
  let sxy = 0;
  let sxx = 0;
  let stt = 0;
  for (let k = 0; k < n; k++) {
    const dx = (x[a + k] ?? 0) - mx;
    const dt = (t[k] ?? 0) - mt;
    sxy += dx * dt;
    sxx += dx * dx;
    stt += dt * dt;
  }
  return sxx > 0 && stt > 0 ? sxy / Math.sqrt(sxx * stt) : 0;
}

export function medianOf(values: ArrayLike<number>): number {
  const s = Array.from(values).sort((a, b) => a - b);
  if (s.length === 0) return 0;
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

function buildTemplate(x: Float64Array, starts: number[], use: boolean[], len: number): Float64Array {
  const t = new Float64Array(len);
  let count = 0;
  for (let b = 0; b < starts.length; b++) {
    const a = starts[b] ?? -1;
    if (!use[b] || a < 0 || a + len > x.length) continue;
    for (let k = 0; k < len; k++) t[k] = (t[k] ?? 0) + (x[a + k] ?? 0);
    count++;
  }
  if (count > 0) for (let k = 0; k < len; k++) t[k] = (t[k] ?? 0) / count;
  return t;
}

/**
 * Quality 0–1 of each pulse at `peaks` (sample indices of the band-passed signal `x`): its correlation
 * with the average pulse (built twice, the second time from the pulses that matched the first), set to
 * 0 when its amplitude is below a third or above three times the median amplitude, or when the pulse
 * runs off the signal's ends.
 */
export function beatQuality(x: Float64Array, peaks: number[]): number[] {
  if (peaks.length < 3) return peaks.map(() => 0);
  const gaps: number[] = [];
  for (let i = 1; i < peaks.length; i++) gaps.push((peaks[i] ?? 0) - (peaks[i - 1] ?? 0));
  const period = medianOf(gaps);
  const before = Math.max(1, Math.round(0.4 * period));
  const len = before + Math.max(1, Math.round(0.5 * period));
  const starts = peaks.map((p) => p - before);
  const amplitude = peaks.map((p) => {
    let min = x[p] ?? 0;
    for (let k = Math.max(0, p - before); k < p; k++) min = Math.min(min, x[k] ?? 0);
    return (x[p] ?? 0) - min;
  });
  const medAmp = medianOf(amplitude);
  const inRange = starts.map((a) => a >= 0 && a + len <= x.length);
  let template = buildTemplate(x, starts, inRange, len);
  let corr = starts.map((a, b) => (inRange[b] ? pearson(x, a, template) : 0));
  template = buildTemplate(
    x,
    starts,
    corr.map((c) => c >= MIN_BEAT_QUALITY),
    len,
  );
  corr = starts.map((a, b) => (inRange[b] ? pearson(x, a, template) : 0));
  return corr.map((c, b) => {
    const amp = amplitude[b] ?? 0;
    if (!(medAmp > 0) || amp < medAmp / 3 || amp > medAmp * 3) return 0;
    return Math.max(0, Math.min(1, c));
  });
}

/**
 * Marks each interval usable when both its pulses have quality ≥ MIN_BEAT_QUALITY and it differs from
 * the median of the 11 intervals around it by at most 20 % (a missed pulse, an extra pulse or an
 * ectopic beat breaks this; the same 20 % as Malik's rule, applied against a local median).
 */
export function usableIntervals(ppMs: number[], quality: number[]): boolean[] {
  const n = ppMs.length;
  const usable: boolean[] = new Array(n);
  const window: number[] = [];
  for (let i = 0; i < n; i++) {
    window.length = 0;
    for (let k = Math.max(0, i - 5); k <= Math.min(n - 1, i + 5); k++) window.push(ppMs[k] ?? 0);
    const med = medianOf(window);
    const pp = ppMs[i] ?? 0;
    const goodBeats = (quality[i] ?? 0) >= MIN_BEAT_QUALITY && (quality[i + 1] ?? 0) >= MIN_BEAT_QUALITY;
    usable[i] = goodBeats && Math.abs(pp - med) <= 0.2 * med;
  }
  return usable;
}
