import { HrvError } from "./issues.ts";
import { roundExactHalfUp } from "./stats.ts";

/**
 * Baevsky's variational pulsometry (Baevsky, Ivanov, Chireykin et al. 2001; Baevsky & Chernikova
 * 2017; DEFINITIONS.md §4): histogram of RR in fixed 50-ms bins aligned to multiples of 50 ms
 * ([800, 850), [850, 900) …), the modal bin's centre Mo and share AMo, the range MxDMn, and the
 * indices built from them.
 *
 * The product's values follow the app the spec describes (Welltory, verified on its public data):
 * ties for the modal bin go to the shorter RR; MxDMn ignores the 3 longest and 3 shortest intervals
 * and is exported rounded to 0.01 s (on the double's exact value, ties up: 0.155 → 0.15, 0.125 → 0.13); AMo is exported rounded to an integer %. The indices (SI, IVR,
 * VPR, PAPR) use the unrounded AMo and trimmed MxDMn; `classic` repeats them with the full range
 * max − min, as in the 2001 recommendations.
 */
export interface Baevsky {
  /** Mo: centre of the fullest 50-ms bin, **seconds**. */
  moS: number;
  /** Number of bins sharing the highest count (> 1: a tie, resolved to the shortest). */
  modalBinsTied: number;
  /** AMo as the app exports it: round(100 · modal count / N), %. */
  amoPct: number;
  /** AMo unrounded: 100 · modal count / N, %. */
  amoExactPct: number;
  /** MxDMn as the app exports it: (4th largest − 4th smallest RR) in s, rounded to 0.01 s. */
  mxdmnS: number;
  /** (4th largest − 4th smallest RR) / 1000, s, unrounded. */
  mxdmnTrimmedS: number;
  /** Full range (max − min) / 1000, s (the classic MxDMn). */
  mxdmnFullS: number;
  /** Stress index SI = AMo / (2 · Mo · MxDMn) (AMo in %, Mo and MxDMn in s; trimmed MxDMn). Absent when MxDMn = 0. */
  si?: number;
  /** Index of vegetative balance IVR = AMo / MxDMn, %/s. Absent when MxDMn = 0. */
  ivr?: number;
  /** Vegetative rhythm index VPR = 1 / (Mo · MxDMn), s⁻². Absent when MxDMn = 0. */
  vpr?: number;
  /** Index of adequacy of regulation PAPR = AMo / Mo, %/s. */
  papr: number;
  /** SI, IVR, VPR with the classic full-range MxDMn (absent when every RR is equal). */
  classic: { si?: number; ivr?: number; vpr?: number };
}

const BIN_MS = 50;

/**
 * Computes {@link Baevsky} for `rr` (ms, positive, at least 8 intervals so that the trimmed range
 * exists; the caller checks, fewer throws {@link HrvError}). `sorted` may be passed to reuse an ascending copy of `rr`.
 */
export function computeBaevsky(rr: ArrayLike<number>, sorted?: ArrayLike<number>): Baevsky {
  const n = rr.length;
  if (n < 8) throw new HrvError("invalid_argument", "computeBaevsky needs at least 8 intervals");
  const asc = sorted ?? Float64Array.from(rr).sort();
  const lo = asc[0] as number;
  const hi = asc[n - 1] as number;
  const firstBin = Math.floor(lo / BIN_MS);
  const counts = new Int32Array(Math.floor(hi / BIN_MS) - firstBin + 1);
  for (let i = 0; i < n; i++) {
    const b = Math.floor((rr[i] as number) / BIN_MS) - firstBin;
    counts[b] = (counts[b] as number) + 1;
  }
  let best = 0;
  let tied = 0;
  for (let b = 0; b < counts.length; b++) {
    const c = counts[b] as number;
    if (c > (counts[best] as number)) {
      best = b;
      tied = 1;
    } else if (c === counts[best]) tied++;
  }
  const moS = ((firstBin + best) * BIN_MS + BIN_MS / 2) / 1000;
  const amoExactPct = (100 * (counts[best] as number)) / n;
  const trimmedMs = (asc[n - 4] as number) - (asc[3] as number);
  const mxdmnTrimmedS = trimmedMs / 1000;
  const mxdmnFullS = (hi - lo) / 1000;
  return {
    moS,
    modalBinsTied: tied,
    amoPct: Math.round(amoExactPct),
    amoExactPct,
    mxdmnS: roundExactHalfUp(mxdmnTrimmedS, 2),
    mxdmnTrimmedS,
    mxdmnFullS,
    ...rangeIndices(amoExactPct, moS, mxdmnTrimmedS),
    papr: amoExactPct / moS,
    classic: rangeIndices(amoExactPct, moS, mxdmnFullS),
  };
}

function rangeIndices(amo: number, mo: number, mxdmn: number): { si?: number; ivr?: number; vpr?: number } {
  // Zero range (constant RR): the indices are undefined, not infinite.
  if (!(mxdmn > 0)) return {};
  return { si: amo / (2 * mo * mxdmn), ivr: amo / mxdmn, vpr: 1 / (mo * mxdmn) };
}
