import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDataDirLock, DataDirLockedError, removeStalePostmasterPid } from "./lock.ts";

const dirs: string[] = [];
function makeDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-lock-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has already exited. */
function readDeadPid(): number {
  const result = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(result.stdout.toString());
}

describe("data directory lock", () => {
  it("writes the holder's pid and removes the file on release", () => {
    const dir = makeDir();
    const release = acquireDataDirLock(dir, () => {});
    expect(fs.readFileSync(path.join(dir, "tonus.lock"), "utf8")).toBe(String(process.pid));
    release();
    expect(fs.existsSync(path.join(dir, "tonus.lock"))).toBe(false);
  });

  it("refuses a second holder while the first is alive, naming its pid", () => {
    const dir = makeDir();
    const release = acquireDataDirLock(dir, () => {});
    expect(() => acquireDataDirLock(dir, () => {})).toThrow(DataDirLockedError);
    expect(() => acquireDataDirLock(dir, () => {})).toThrow(`pid ${process.pid}`);
    release();
  });

  it("takes over a lock left by a dead process and reports its pid", () => {
    const dir = makeDir();
    const deadPid = readDeadPid();
    fs.writeFileSync(path.join(dir, "tonus.lock"), String(deadPid));
    const stale: number[] = [];
    const release = acquireDataDirLock(dir, (pid) => stale.push(pid));
    expect(stale).toEqual([deadPid]);
    expect(fs.readFileSync(path.join(dir, "tonus.lock"), "utf8")).toBe(String(process.pid));
    release();
  });

  it("does not remove a lock file another process has since taken", () => {
    const dir = makeDir();
    const release = acquireDataDirLock(dir, () => {});
    fs.writeFileSync(path.join(dir, "tonus.lock"), "1");
    release();
    expect(fs.readFileSync(path.join(dir, "tonus.lock"), "utf8")).toBe("1");
  });

  it("removes a postmaster.pid left by a crash", () => {
    const dir = makeDir();
    fs.writeFileSync(path.join(dir, "postmaster.pid"), "123");
    expect(removeStalePostmasterPid(dir)).toBe(true);
    expect(fs.existsSync(path.join(dir, "postmaster.pid"))).toBe(false);
    expect(removeStalePostmasterPid(dir)).toBe(false);
  });
});
