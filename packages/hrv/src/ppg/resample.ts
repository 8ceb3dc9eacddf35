/**
 * Resamples values taken at uneven, increasing times (ms) onto a uniform grid starting at `t0Ms` with
 * step `stepMs`, by cubic Hermite (Catmull–Rom) interpolation; `out.length` grid points are written.
 * Grid points outside the input's time span take the nearest end value.
 */
export function resampleUniform(
  values: ArrayLike<number>,
  timesMs: ArrayLike<number>,
  t0Ms: number,
  stepMs: number,
  out: Float64Array,
): Float64Array {
  const n = values.length;
  let j = 0;
  for (let i = 0; i < out.length; i++) {
    const t = t0Ms + i * stepMs;
    while (j < n - 2 && (timesMs[j + 1] ?? 0) <= t) j++;
    const ta = timesMs[j] ?? 0;
    const tb = timesMs[j + 1] ?? ta;
    const a = values[j] ?? 0;
    const b = values[j + 1] ?? a;
    if (t <= ta || tb <= ta) {
      out[i] = t <= ta ? a : b;
      continue;
    }
    if (t >= tb) {
      out[i] = b;
      continue;
    }
    const h = tb - ta;
    const u = (t - ta) / h;
    // Tangents from the neighbouring samples (non-uniform Catmull–Rom), in value per ms.
    const tp = timesMs[j - 1];
    const tn = timesMs[j + 2];
    const ma = tp === undefined ? (b - a) / h : (b - (values[j - 1] ?? a)) / (tb - tp);
    const mb = tn === undefined ? (b - a) / h : ((values[j + 2] ?? b) - a) / (tn - ta);
    const u2 = u * u;
    const u3 = u2 * u;
    out[i] =
      (2 * u3 - 3 * u2 + 1) * a + (u3 - 2 * u2 + u) * h * ma + (-2 * u3 + 3 * u2) * b + (u3 - u2) * h * mb;
  }
  return out;
}
