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

/** Temporary files a killed write of this archive left (`<name>.<random>.tmp`). */
export async function removeArchiveTempFiles(filesDir: string, name: string): Promise<void> {
  if (!NAME_RE.test(name)) return;
  const dir = path.join(filesDir, ARCHIVE_AREA);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const entry of names)
    if (entry.startsWith(`${name}.`) && entry.endsWith(".tmp"))
      await fs.rm(path.join(dir, entry), { force: true });
}

/**
 * Archive and temporary files older than `olderThanMs` that no row names (`keep`): what a crash or a race
 * with a deletion could leave behind.
 */
export async function removeOrphanArchiveFiles(
  filesDir: string,
  keep: ReadonlySet<string>,
  now = new Date(),
  olderThanMs = 3600_000,
): Promise<number> {
  const dir = path.join(filesDir, ARCHIVE_AREA);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const entry of names) {
    const base = entry.replace(/\.[0-9a-f]{8}\.tmp$/, "");
    if (!NAME_RE.test(base) || (base === entry && keep.has(entry))) continue;
    const stat = await fs.stat(path.join(dir, entry)).catch(() => null);
    if (!stat || now.getTime() - stat.mtimeMs < olderThanMs) continue;
    await fs.rm(path.join(dir, entry), { force: true });
    removed++;
  }
  return removed;
}
