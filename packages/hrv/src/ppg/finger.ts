/** Mean colour of a camera frame (or of its central region), each channel 0–255. */
export interface FrameColour {
  r: number;
  g: number;
  b: number;
}

/** Minimum red level of a fingertip lit by the flash, and how much red must dominate the other channels. */
const MIN_RED = 60;
const RED_DOMINANCE = 2;

/**
 * Whether a camera frame looks like a fingertip covering the lens: light through (or reflected from)
 * the finger is strongly red, because haemoglobin absorbs green and blue far more than red, so the
 * mean red level is at least 60/255 and at least twice the green and the blue. This is a per-frame
 * gate for the capture screen ("place your finger on the camera"); `analyzePpg` then decides whether a
 * usable pulse wave is present.
 *
 * Dirty input never throws: non-finite channels give false. Units: 8-bit levels (0–255). The two
 * thresholds are the product's choice, not published constants.
 * Reference: haemoglobin absorbs strongly below 600 nm and weakly in the red (Zijlstra, Buursma &
 * Meeuwsen-van der Roest, Clin Chem 1991;37:1633–1638), which is why a lit fingertip looks red.
 */
export function fingerOnLens(colour: FrameColour): boolean {
  const { r, g, b } = colour;
  if (!Number.isFinite(r) || !Number.isFinite(g) || !Number.isFinite(b)) return false;
  return r >= MIN_RED && r >= RED_DOMINANCE * g && r >= RED_DOMINANCE * b;
}
