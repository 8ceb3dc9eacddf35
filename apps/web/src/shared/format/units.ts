// Exact definitions (international yard and pound agreement, 1959).
const KG_PER_LB = 0.45359237;
const CM_PER_INCH = 2.54;
const INCHES_PER_FOOT = 12;

export function convertKgToLb(kg: number): number {
  return kg / KG_PER_LB;
}

export function convertLbToKg(lb: number): number {
  return lb * KG_PER_LB;
}

export type FeetInches = { feet: number; inches: number };

/** Whole feet plus inches rounded to `inchDecimals` (0.1 for display), carrying 12 inches into a foot. */
export function convertCmToFeetInches(cm: number, inchDecimals = 1): FeetInches {
  const totalInches = roundTo(cm / CM_PER_INCH, inchDecimals);
  let feet = Math.floor(totalInches / INCHES_PER_FOOT);
  let inches = roundTo(totalInches - feet * INCHES_PER_FOOT, inchDecimals);
  if (inches >= INCHES_PER_FOOT) {
    feet += 1;
    inches -= INCHES_PER_FOOT;
  }
  return { feet, inches };
}

export function convertFeetInchesToCm({ feet, inches }: FeetInches): number {
  return (feet * INCHES_PER_FOOT + inches) * CM_PER_INCH;
}

/** Rounds to a number of decimals without binary noise (0.1 + 0.2 → 0.3). */
export function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
