import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/** Stored names are server-generated: 32 hex characters and a known extension, never a client's name. */
const STORED_NAME_RE = /^[0-9a-f]{32}\.(webp|jpg)$/;
const AREA_RE = /^[a-z]+$/;

export function isStoredFileName(name: string): boolean {
  return STORED_NAME_RE.test(name);
}

function resolveStoredPath(filesDir: string, area: string, name: string): string {
  if (!AREA_RE.test(area) || !isStoredFileName(name))
    throw new Error(`Invalid stored file name: ${area}/${name}`);
  return path.join(filesDir, area, name);
}

/** Writes `data` under `filesDir/area/` with a fresh random name (atomically, via a temp file) and returns the name. */
export async function saveFile(
  filesDir: string,
  area: string,
  extension: "webp" | "jpg",
  data: Buffer,
): Promise<string> {
  const name = `${randomBytes(16).toString("hex")}.${extension}`;
  const target = resolveStoredPath(filesDir, area, name);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const temp = `${target}.${randomBytes(4).toString("hex")}.tmp`;
  await fs.writeFile(temp, data, { mode: 0o600 });
  await fs.rename(temp, target);
  return name;
}

/** The file's bytes, or null when the name is not one we generate or the file is gone. */
export async function readFile(filesDir: string, area: string, name: string): Promise<Buffer | null> {
  if (!isStoredFileName(name)) return null;
  try {
    return await fs.readFile(resolveStoredPath(filesDir, area, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Removes a stored file; a missing file is not an error (the goal state is reached). */
export async function deleteFile(filesDir: string, area: string, name: string): Promise<void> {
  if (!isStoredFileName(name)) return;
  await fs.rm(resolveStoredPath(filesDir, area, name), { force: true });
}
