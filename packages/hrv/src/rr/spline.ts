/**
 * Quadratic interpolating B-spline through (x, y) with the knots SciPy's `interp1d(kind="quadratic")`
 * uses (via `make_interp_spline(k=2)`): x₀ three times, the midpoints (xᵢ + xᵢ₊₁)/2 for
 * i = 1 … n−3, x_last three times. Each data point then lies inside one knot span, so the collocation
 * system is tridiagonal and is solved in O(n) (de Boor, "A Practical Guide to Splines", ch. IX–XIII).
 */
export interface QuadraticSpline {
  knots: Float64Array;
  coefs: Float64Array;
}

/** Fits the spline; `x` strictly increasing, n ≥ 3. */
export function fitQuadraticSpline(x: Float64Array, y: ArrayLike<number>): QuadraticSpline {
  const n = x.length;
  const knots = new Float64Array(n + 3);
  knots[0] = knots[1] = knots[2] = x[0] as number;
  for (let i = 1; i <= n - 3; i++) knots[i + 2] = ((x[i] as number) + (x[i + 1] as number)) / 2;
  knots[n] = knots[n + 1] = knots[n + 2] = x[n - 1] as number;
  // Row j: sub·c[j−1] + diag·c[j] + sup·c[j+1] = y[j] (rows 0 and n−1 reduce to c = y).
  const sub = new Float64Array(n);
  const diag = new Float64Array(n);
  const sup = new Float64Array(n);
  const basis = new Float64Array(3);
  for (let j = 0; j < n; j++) {
    const span = Math.min(Math.max(j + 1, 2), n - 1);
    basisFunctions(knots, span, x[j] as number, basis);
    // Basis functions span−2 … span map to columns j−1 … j+1 for interior rows.
    const offset = span - 2 - (j - 1);
    const row = [0, 0, 0];
    for (let r = 0; r < 3; r++) {
      const col = r + offset;
      if (col >= 0 && col <= 2) row[col] = basis[r] as number;
    }
    sub[j] = row[0] as number;
    diag[j] = row[1] as number;
    sup[j] = row[2] as number;
  }
  const coefs = solveTridiagonal(sub, diag, sup, y);
  return { knots, coefs };
}

/**
 * Evaluates the spline at ascending `at` into `out`; points past the last knot take `after`
 * (the reference holds the last RR there).
 */
export function evaluateQuadraticSpline(
  s: QuadraticSpline,
  at: Float64Array,
  after: number,
  out: Float64Array,
): void {
  const { knots, coefs } = s;
  const n = coefs.length;
  const last = knots[n] as number;
  const basis = new Float64Array(3);
  let span = 2;
  for (let k = 0; k < at.length; k++) {
    const g = at[k] as number;
    if (g > last) {
      out[k] = after;
      continue;
    }
    while (span < n - 1 && g >= (knots[span + 1] as number)) span++;
    basisFunctions(knots, span, g, basis);
    out[k] =
      (coefs[span - 2] as number) * (basis[0] as number) +
      (coefs[span - 1] as number) * (basis[1] as number) +
      (coefs[span] as number) * (basis[2] as number);
  }
}

/** The three non-zero degree-2 B-splines at x in knot span [t_span, t_span+1) (Cox–de Boor). */
function basisFunctions(t: Float64Array, span: number, x: number, out: Float64Array): void {
  const l1 = x - (t[span] as number);
  const l2 = x - (t[span - 1] as number);
  const r1 = (t[span + 1] as number) - x;
  const r2 = (t[span + 2] as number) - x;
  // degree 1
  let temp = 1 / (r1 + l1);
  const a0 = r1 * temp;
  const a1 = l1 * temp;
  // degree 2
  temp = a0 / (r1 + l2);
  out[0] = r1 * temp;
  let saved = l2 * temp;
  temp = a1 / (r2 + l1);
  out[1] = saved + r2 * temp;
  saved = l1 * temp;
  out[2] = saved;
}

/** Thomas algorithm; the collocation matrix is diagonally dominant enough not to need pivoting. */
function solveTridiagonal(
  a: Float64Array,
  b: Float64Array,
  c: Float64Array,
  d: ArrayLike<number>,
): Float64Array {
  const n = b.length;
  const cp = new Float64Array(n);
  const x = new Float64Array(n);
  let denom = b[0] as number;
  cp[0] = (c[0] as number) / denom;
  x[0] = (d[0] as number) / denom;
  for (let i = 1; i < n; i++) {
    denom = (b[i] as number) - (a[i] as number) * (cp[i - 1] as number);
    cp[i] = (c[i] as number) / denom;
    x[i] = ((d[i] as number) - (a[i] as number) * (x[i - 1] as number)) / denom;
  }
  for (let i = n - 2; i >= 0; i--) x[i] = (x[i] as number) - (cp[i] as number) * (x[i + 1] as number);
  return x;
}
