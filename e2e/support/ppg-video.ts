// Renders a fingertip-on-camera video for Chromium's fake camera from a pulse-oximeter recording:
// 64×48 C420 YUV4MPEG2 at 30 fps, reddish (a lit fingertip), brightness falling as blood volume rises.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The NeuroKit2 resting recording (MIT licence; see packages/hrv/test/fixtures/README.md). */
export const PPG_FILE = path.join(ROOT, "packages/hrv/test/fixtures/ppg/nk_bio_resting_5min_ppg_100hz.csv");
export const PPG_RATE_HZ = 100;
/** The ECG R-peaks recorded with it, on the same time axis. */
export const ECG_BEATS_FILE = path.join(
  ROOT,
  "packages/hrv/test/fixtures/beats/nk_bio_resting_5min_ecg_rpeaks_nk_default.csv",
);

const WIDTH = 64;
const HEIGHT = 48;
const FPS = 30;
/** Luma of the brightest (least blood) and darkest (most blood) frame, limited range. */
const Y_BRIGHT = 95;
const Y_DARK = 60;
/** Chroma of a lit fingertip: strongly red (V high), little blue (U low). */
const U = 100;
const GOLDEN = 0.6180339887;
const V = 200;

function readColumn(file: string, index: number): number[] {
  return fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => Number(line.split(",")[index]));
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))] ?? 0;
}

/** The ECG beat times, seconds. */
export function readEcgBeatsS(): number[] {
  return readColumn(ECG_BEATS_FILE, 1);
}

/**
 * Writes the video (once per content) into the temp directory and returns its path. `seconds` of the
 * recording from its start; Chromium loops the file when it ends.
 */
export function renderPpgVideo(seconds: number): string {
  const out = path.join(os.tmpdir(), `tonus-e2e-ppg-${WIDTH}x${HEIGHT}-${FPS}fps-${seconds}s-v1.y4m`);
  if (fs.existsSync(out)) return out;
  const ppg = readColumn(PPG_FILE, 0);
  const sorted = [...ppg].sort((a, b) => a - b);
  const low = percentile(sorted, 0.005);
  const high = percentile(sorted, 0.995);
  const frames = Math.min(Math.floor(seconds * FPS), Math.floor(((ppg.length - 1) / PPG_RATE_HZ) * FPS));
  const lumaSize = WIDTH * HEIGHT;
  const chromaSize = (WIDTH / 2) * (HEIGHT / 2);
  const header = Buffer.from(`YUV4MPEG2 W${WIDTH} H${HEIGHT} F${FPS}:1 Ip A1:1 C420\n`);
  const frameTag = Buffer.from("FRAME\n");
  const frameSize = frameTag.length + lumaSize + 2 * chromaSize;
  const video = Buffer.alloc(header.length + frames * frameSize);
  header.copy(video, 0);
  for (let k = 0; k < frames; k++) {
    const pos = (k / FPS) * PPG_RATE_HZ;
    const i = Math.floor(pos);
    const p = (ppg[i] ?? 0) + ((ppg[i + 1] ?? 0) - (ppg[i] ?? 0)) * (pos - i);
    const volume = Math.min(1, Math.max(0, (p - low) / (high - low)));
    const luma = Y_BRIGHT - (Y_BRIGHT - Y_DARK) * volume;
    const base = Math.floor(luma);
    const at = header.length + k * frameSize;
    frameTag.copy(video, at);
    // Ordered dither: a share of pixels one level up, so the frame mean keeps the fraction.
    for (let j = 0; j < lumaSize; j++) {
      video[at + frameTag.length + j] = (j * GOLDEN) % 1 < luma - base ? base + 1 : base;
    }
    video.fill(U, at + frameTag.length + lumaSize, at + frameTag.length + lumaSize + chromaSize);
    video.fill(V, at + frameTag.length + lumaSize + chromaSize, at + frameSize);
  }
  const partial = `${out}.${process.pid}.tmp`;
  fs.writeFileSync(partial, video);
  fs.renameSync(partial, out);
  return out;
}
