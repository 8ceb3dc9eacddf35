import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDataDirLock } from "./db/lock.ts";

const MAIN = path.join(import.meta.dirname, "main.ts");
const START_TIMEOUT_MS = 60_000;

type Run = { child: ChildProcess; stdout: () => string; stderr: () => string; exit: Promise<number | null> };

const children: ChildProcess[] = [];
const dirs: string[] = [];

function makeDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-main-"));
  dirs.push(dir);
  return dir;
}

function startServer(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? "",
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "silent",
      WEB_DIST: "/nonexistent-web-dist",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function waitForUrl(run: Run): Promise<string> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const match = /Tonus is running at (\S+)/.exec(run.stdout());
    if (match?.[1]) return match[1];
    if (run.child.exitCode !== null) throw new Error(`server exited: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("server did not start in time");
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("main.ts process", () => {
  it.each([
    ["PORT", "abc"],
    ["BILLING_MODE", "bogus"],
  ])("exits 1 with one line naming %s when it is invalid", async (name, value) => {
    const run = startServer({ DATA_DIR: makeDataDir(), [name]: value });
    expect(await run.exit).toBe(1);
    const lines = run.stderr().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(name);
  });

  it(
    "prints the URL and how to sign up on first start, refuses a second server, exits 0 on SIGTERM and frees the lock",
    async () => {
      const dataDir = makeDataDir();
      const first = startServer({ DATA_DIR: dataDir });
      const url = await waitForUrl(first);
      expect(first.stdout()).toContain(`${url}/user/register`);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);

      const second = startServer({ DATA_DIR: dataDir });
      expect(await second.exit).toBe(1);
      expect(second.stderr()).toContain(`pid ${first.child.pid}`);

      first.child.kill("SIGTERM");
      expect(await first.exit).toBe(0);
      expect(fs.existsSync(path.join(dataDir, "tonus.lock"))).toBe(false);
    },
    START_TIMEOUT_MS * 2,
  );

  it(
    "refuses a held data directory before it opens the database",
    async () => {
      // The lock is taken before anything else: a refused server leaves nothing but the lock. (A
      // time bound said the same before, and flaked on a loaded machine.)
      const dataDir = makeDataDir();
      const release = acquireDataDirLock(dataDir, () => {});
      try {
        const refused = startServer({ DATA_DIR: dataDir });
        expect(await refused.exit).toBe(1);
        expect(refused.stderr()).toContain(`pid ${process.pid}`);
        expect(fs.readdirSync(dataDir)).toEqual(["tonus.lock"]);
      } finally {
        release();
      }
    },
    START_TIMEOUT_MS,
  );

  it(
    "takes over a stale lock left by a dead process with a warning",
    async () => {
      const dataDir = makeDataDir();
      const dead = spawn(process.execPath, ["-e", ""]);
      await new Promise((r) => dead.on("exit", r));
      fs.writeFileSync(path.join(dataDir, "tonus.lock"), String(dead.pid));
      const run = startServer({ DATA_DIR: dataDir });
      await waitForUrl(run);
      expect(run.stderr()).toContain(`stale lock`);
      expect(run.stderr()).toContain(`pid ${dead.pid}`);
      expect(fs.readFileSync(path.join(dataDir, "tonus.lock"), "utf8")).toBe(String(run.child.pid));
    },
    START_TIMEOUT_MS * 2,
  );
});
