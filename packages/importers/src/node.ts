/**
 * Node-specific entry of @tonus/importers: reading files as chunk streams. Everything else lives in the
 * pure entry (`@tonus/importers`).
 */
import fs from "node:fs";
import type { RandomAccessSource } from "./zip/zip-reader.ts";

/** The size of the chunks `readFileChunks` reads by default. */
export const FILE_CHUNK_BYTES = 256 * 1024;

/** Reads a file as a stream of chunks of at most `chunkSize` bytes, starting at byte `start`. */
export function readFileChunks(
  file: string,
  options: { start?: number; chunkSize?: number } = {},
): AsyncIterable<Uint8Array> {
  return fs.createReadStream(file, {
    start: options.start ?? 0,
    highWaterMark: options.chunkSize ?? FILE_CHUNK_BYTES,
  });
}

/**
 * A random-access view of a file for the zip reader. Close it with `close()` when done (the importer
 * does not own it).
 */
export async function openFileSource(file: string): Promise<RandomAccessSource & { close(): Promise<void> }> {
  const handle = await fs.promises.open(file, "r");
  const { size } = await handle.stat();
  return {
    size,
    async read(offset, length) {
      const buffer = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
      let done = 0;
      while (done < buffer.length) {
        const { bytesRead } = await handle.read(buffer, done, buffer.length - done, offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return done === buffer.length ? buffer : buffer.subarray(0, done);
    },
    close: () => handle.close(),
  };
}
