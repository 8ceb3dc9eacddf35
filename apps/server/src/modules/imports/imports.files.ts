import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";

/** Uploaded import files: FILES_DIR/imports/<32 hex>.upload, names generated here only. */
export const IMPORT_AREA = "imports";
const NAME_RE = /^[0-9a-f]{32}\.upload$/;
/** Bytes of a file's start kept for recognising its format. */
export const HEAD_BYTES = 4096;

export function newStoredName(): string {
  return `${randomBytes(16).toString("hex")}.upload`;
}

export function importFilePath(filesDir: string, name: string): string {
  if (!NAME_RE.test(name)) throw new Error(`Invalid import file name: ${name}`);
  return path.join(filesDir, IMPORT_AREA, name);
}

/** A missing file is the goal state, not an error. */
export async function deleteImportFile(filesDir: string, name: string | null): Promise<void> {
  if (!name || !NAME_RE.test(name)) return;
  await fsp.rm(importFilePath(filesDir, name), { force: true });
}

export type SavedUpload = { size: number; sha256: string; head: Uint8Array; truncated: boolean };

/**
 * Streams an upload to `FILES_DIR/imports/<name>` (never the whole file in memory), hashing it and
 * keeping its first bytes. `truncated` says the stream hit its size limit: the caller then removes the
 * file and refuses the upload.
 */
export async function saveUpload(
  filesDir: string,
  name: string,
  stream: Readable & { truncated?: boolean },
): Promise<SavedUpload> {
  const target = importFilePath(filesDir, name);
  await fsp.mkdir(path.dirname(target), { recursive: true });
  const hash = createHash("sha256");
  const headChunks: Buffer[] = [];
  let headSize = 0;
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      if (headSize < HEAD_BYTES) {
        headChunks.push(chunk.subarray(0, HEAD_BYTES - headSize));
        headSize += Math.min(chunk.length, HEAD_BYTES - headSize);
      }
      done(null, chunk);
    },
  });
  await pipeline(stream, tap, fs.createWriteStream(target, { mode: 0o600 }));
  return {
    size,
    sha256: hash.digest("hex"),
    head: new Uint8Array(Buffer.concat(headChunks)),
    truncated: stream.truncated === true,
  };
}

/** Stored upload names in the imports folder older than `olderThanMs` (for the orphan sweep). */
export async function listOldImportFiles(filesDir: string, olderThanMs: number, now = Date.now()) {
  const dir = path.join(filesDir, IMPORT_AREA);
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  const old: string[] = [];
  for (const name of names) {
    if (!NAME_RE.test(name)) continue;
    const stat = await fsp.stat(path.join(dir, name)).catch(() => null);
    if (stat && now - stat.mtimeMs > olderThanMs) old.push(name);
  }
  return old;
}
