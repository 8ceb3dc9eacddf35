import fs from "node:fs";
import path from "node:path";

export class DataDirLockedError extends Error {}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Holds `DATA_DIR/tonus.lock` for this process. PGlite does not lock its directory, and two processes
 * writing one directory silently lose acknowledged rows, so a second server must refuse to start.
 * A lock left by a dead process is taken over (with a warning through `onStale`).
 */
export function acquireDataDirLock(dataDir: string, onStale: (pid: number) => void): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, "tonus.lock");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, String(process.pid));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      return () => {
        try {
          if (fs.readFileSync(lockPath, "utf8").trim() === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number.parseInt(fs.readFileSync(lockPath, "utf8").trim(), 10);
      if (holder === process.pid || isAlive(holder)) {
        throw new DataDirLockedError(
          `Data directory ${dataDir} is in use by another Tonus process (pid ${holder}); stop it first or set DATA_DIR to another directory.`,
        );
      }
      onStale(holder);
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not lock data directory ${dataDir}`);
}

/**
 * PGlite refuses to open a directory whose `postmaster.pid` survived a crash; once we hold our own lock
 * nobody else uses the directory, so the file is stale by definition.
 */
export function removeStalePostmasterPid(pgDataDir: string): boolean {
  const pidFile = path.join(pgDataDir, "postmaster.pid");
  if (!fs.existsSync(pidFile)) return false;
  fs.rmSync(pidFile, { force: true });
  return true;
}
