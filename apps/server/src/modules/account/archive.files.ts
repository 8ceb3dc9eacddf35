import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/** Archive files: FILES_DIR/archives/<32 hex>.zip, names generated here only. */
const NAME_RE = /^[0-9a-f]{32}\.zip$/;
export const ARCHIVE_AREA = "archives";

export function newArchiveName(): string {
  return `${randomBytes(16).toString("hex")}.zip`;
}

export function archivePath(filesDir: string, name: string): string {
  if (!NAME_RE.test(name)) throw new Error(`Invalid archive name: ${name}`);
  return path.join(filesDir, ARCHIVE_AREA, name);
}

export async function writeArchiveFile(filesDir: string, name: string, data: Buffer): Promise<void> {
  const target = archivePath(filesDir, name);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const temp = `${target}.${randomBytes(4).toString("hex")}.tmp`;
  await fs.writeFile(temp, data, { mode: 0o600 });
  await fs.rename(temp, target);
}

/** A missing file is the goal state, not an error. */
export async function deleteArchiveFile(filesDir: string, name: string): Promise<void> {
  if (!NAME_RE.test(name)) return;
  await fs.rm(archivePath(filesDir, name), { force: true });
}
