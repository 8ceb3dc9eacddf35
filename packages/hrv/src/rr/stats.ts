// Small numeric helpers shared by the RR analysis. All take plain arrays of numbers and never allocate
// more than one copy of the input.

/** Arithmetic mean; NaN for an empty input. */
export function mean(xs: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i] as number;
  return s / xs.length;
}

/** Standard deviation with denominator `n − ddof` (ddof = 1: sample SD, the HRV convention for SDNN). */
export function sd(xs: ArrayLike<number>, ddof = 1): number {
  const n = xs.length;
  if (n - ddof <= 0) return Number.NaN;
  const m = mean(xs);
  let s = 0;
  for (let i = 0; i < n; i++) {
    const d = (xs[i] as number) - m;
    s += d * d;
  }
  return Math.sqrt(s / (n - ddof));
}

/** An ascending copy of `xs` as a Float64Array (typed-array sort is numeric and fast). */
export function sortedCopy(xs: ArrayLike<number>): Float64Array {
  const out = Float64Array.from(xs as ArrayLike<number>);
  out.sort();
  return out;
}

/**
 * Quantile `q` (0…1) of an ascending array with linear interpolation between order statistics
 * (Hyndman & Fan type 7, NumPy's default), so quartiles match the reference tools.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  const a = sorted[lo] as number;
  return a + (h - lo) * ((sorted[hi] as number) - a);
}

/** Median of an ascending array (mean of the two middle values for even n). */
export function medianSorted(sorted: ArrayLike<number>): number {
  return quantileSorted(sorted, 0.5);
}

/**
 * A sorted multiset of numbers in a fixed-capacity buffer: O(w) insert and remove, O(1) order
 * statistics. Used for running medians and quartiles over beat windows, which would otherwise sort
 * the window once per beat.
 */
export class SortedWindow {
  private readonly buf: Float64Array;
  size = 0;

  constructor(capacity: number) {
    this.buf = new Float64Array(capacity);
  }

  clear(): void {
    this.size = 0;
  }

  private lowerBound(x: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.buf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Inserts `x`; the caller keeps `size` below the capacity. */
  add(x: number): void {
    const buf = this.buf;
    const i = this.lowerBound(x);
    // A plain loop beats copyWithin's call overhead for windows of ~100 values.
    for (let k = this.size; k > i; k--) buf[k] = buf[k - 1] as number;
    buf[i] = x;
    this.size++;
  }

  remove(x: number): void {
    const buf = this.buf;
    const i = this.lowerBound(x);
    if (i >= this.size || buf[i] !== x) return;
    const last = this.size - 1;
    for (let k = i; k < last; k++) buf[k] = buf[k + 1] as number;
    this.size--;
  }

  /** Type-7 quantile of the current contents (see `quantileSorted`). */
  quantile(q: number): number {
    const n = this.size;
    if (n === 0) return Number.NaN;
    const h = (n - 1) * q;
    const lo = Math.floor(h);
    const hi = Math.min(lo + 1, n - 1);
    const a = this.buf[lo] as number;
    return a + (h - lo) * ((this.buf[hi] as number) - a);
  }
}

/**
 * Rounds a non-negative `x` to `digits` decimals on the exact decimal value of the double, ties up
 * (what `Number.prototype.toFixed` does). So 0.155 (stored as 0.15499…) → 0.15 but 0.125 (an exact
 * tie) → 0.13: the rounding that reproduces every MxDMn the spec's app exported (Welltory data).
 */
export function roundExactHalfUp(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}
