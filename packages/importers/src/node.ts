/**
 * Node-specific entry of @tonus/importers: reading files as chunk streams. Everything else lives in the
 * pure entry (`@tonus/importers`).
 */
import fs from "node:fs";

/** Reads a file as a stream of chunks of at most `chunkSize` bytes, starting at byte `start`. */
export function readFileChunks(
  file: string,
  options: { start?: number; chunkSize?: number } = {},
): AsyncIterable<Uint8Array> {
  return fs.createReadStream(file, {
    start: options.start ?? 0,
    highWaterMark: options.chunkSize ?? 256 * 1024,
  });
}
