import bmp from "bmp-js";
import { fileTypeFromBuffer } from "file-type";
import sharp, { type Metadata, type Sharp } from "sharp";
import { AppError } from "../../lib/app-error.ts";

export const MAX_USERPIC_SIDE_PX = 4096;
const MAX_INPUT_PIXELS = MAX_USERPIC_SIDE_PX * MAX_USERPIC_SIDE_PX;
const MAX_GIF_FRAMES = 200;
const THUMBNAIL_SIDE_PX = 512;
const ACCEPTED_MIME = new Set(["image/jpeg", "image/gif", "image/png", "image/bmp"]);

const invalidImage = () => new AppError("invalid_image", "Upload a JPG, GIF, PNG or BMP image");
const tooLarge = () =>
  new AppError(
    "image_too_large",
    `The image must be at most ${MAX_USERPIC_SIDE_PX}×${MAX_USERPIC_SIDE_PX} pixels`,
  );

const BMP_BITS_PER_PIXEL = new Set([1, 4, 8, 16, 24, 32]);
/** BI_RGB and BI_BITFIELDS; bmp-js does not decode the run-length encodings correctly. */
const BMP_COMPRESSIONS = new Set([0, 3]);

/**
 * Checks a BMP header before any decoding: a header promising 100000×100000 is refused without
 * allocating anything (RELIABILITY U2), and a file too short for the pixels its header claims is
 * refused before the JS decoder would loop over millions of missing pixels.
 */
export function checkBmpHeader(data: Buffer): { widthPx: number; heightPx: number } {
  if (data.length < 54 || data.toString("latin1", 0, 2) !== "BM") throw invalidImage();
  const pixelOffset = data.readUInt32LE(10);
  const dibSize = data.readUInt32LE(14);
  // A negative height means the rows are stored top-down; the size is its absolute value.
  const widthPx = data.readInt32LE(18);
  const heightPx = Math.abs(data.readInt32LE(22));
  const bitsPerPixel = data.readUInt16LE(28);
  const compression = data.readUInt32LE(30);
  if (dibSize < 40 || widthPx <= 0 || heightPx === 0) throw invalidImage();
  if (widthPx > MAX_USERPIC_SIDE_PX || heightPx > MAX_USERPIC_SIDE_PX) throw tooLarge();
  if (!BMP_BITS_PER_PIXEL.has(bitsPerPixel) || !BMP_COMPRESSIONS.has(compression)) throw invalidImage();
  const rowBytes = Math.floor((widthPx * bitsPerPixel + 31) / 32) * 4;
  if (data.length < pixelOffset + rowBytes * heightPx) throw invalidImage();
  return { widthPx, heightPx };
}

/** sharp has no BMP decoder: decode it in JS into raw RGB pixels, after the size check. */
function decodeBmp(data: Buffer): Sharp {
  const { widthPx, heightPx } = checkBmpHeader(data);
  let decoded: { data: Buffer; width: number; height: number };
  try {
    decoded = bmp.decode(data);
  } catch {
    throw invalidImage();
  }
  const pixels = decoded.width * decoded.height;
  if (decoded.width !== widthPx || decoded.height !== heightPx || decoded.data.length < pixels * 4)
    throw invalidImage();
  // bmp-js yields ABGR quadruplets.
  const rgb = Buffer.alloc(pixels * 3);
  for (let i = 0; i < pixels; i++) {
    rgb[i * 3] = decoded.data[i * 4 + 3] ?? 0;
    rgb[i * 3 + 1] = decoded.data[i * 4 + 2] ?? 0;
    rgb[i * 3 + 2] = decoded.data[i * 4 + 1] ?? 0;
  }
  return sharp(rgb, { raw: { width: widthPx, height: heightPx, channels: 3 } });
}

async function openRaster(data: Buffer, mime: string): Promise<Sharp> {
  if (mime === "image/bmp") return decodeBmp(data);
  // A PNG's IHDR sits at a fixed offset: a giant claimed size is refused even when the rest is missing.
  if (mime === "image/png" && data.length >= 24) {
    if (data.readUInt32BE(16) > MAX_USERPIC_SIDE_PX || data.readUInt32BE(20) > MAX_USERPIC_SIDE_PX)
      throw tooLarge();
  }
  let meta: Metadata;
  try {
    meta = await sharp(data, { limitInputPixels: false }).metadata();
  } catch {
    throw invalidImage();
  }
  // Checked from the header alone, so a pixel or frame bomb is refused before it is decoded.
  if (!meta.width || !meta.height) throw invalidImage();
  if (meta.width > MAX_USERPIC_SIDE_PX || meta.height > MAX_USERPIC_SIDE_PX) throw tooLarge();
  if ((meta.pages ?? 1) > MAX_GIF_FRAMES) throw tooLarge();
  return sharp(data, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error" });
}

/**
 * Checks an uploaded picture by its content (not its name or declared type) and re-encodes it into a
 * 512×512 WebP. Re-encoding drops EXIF, GPS, XMP and comments; `.rotate()` applies the orientation first.
 */
export async function makeUserpicThumbnail(data: Buffer): Promise<Buffer> {
  if (data.length === 0) throw invalidImage();
  const type = await fileTypeFromBuffer(data);
  if (!type || !ACCEPTED_MIME.has(type.mime)) throw invalidImage();
  const image = await openRaster(data, type.mime);
  try {
    return await image
      .rotate()
      .resize(THUMBNAIL_SIDE_PX, THUMBNAIL_SIDE_PX, { fit: "cover" })
      .webp({ quality: 82 })
      .toBuffer();
  } catch (error) {
    if (error instanceof Error && /pixel limit/i.test(error.message)) throw tooLarge();
    throw invalidImage();
  }
}
