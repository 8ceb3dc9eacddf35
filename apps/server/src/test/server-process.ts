import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { API } from "@tonus/contract";
import { workerSlot } from "./databases.ts";
import { recreateDatabase } from "./recreate-database.ts";

/**
 * The real server as a child process for crash tests (RELIABILITY F1, F9): started on a data directory
 * (PGlite) or a fresh PostgreSQL database, killed with SIGKILL and started again on the same data.
 * Kill tests signal only the pids started here.
 */

const MAIN = path.resolve(import.meta.dirname, "../main.ts");

export type ServerProcess = { child: ChildProcess; url: Promise<string>; exit: Promise<void> };

const children: ChildProcess[] = [];
const dirs: string[] = [];

/** A new temporary data directory, removed by `cleanUpServers`. */
export function makeDataDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Kills what is still running and removes the data directories (call from afterEach). */
export function cleanUpServers(): void {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * A fresh, empty PostgreSQL database for one run (dropped and created again, named after the base
 * database, `suffix` and this process's `workerSlot`), or undefined on PGlite.
 */
export async function freshPostgres(backend: string, suffix: string): Promise<string | undefined> {
  if (backend !== "postgres") return undefined;
  return recreateDatabase(process.env.TEST_DATABASE_URL ?? "", `${suffix}_${await workerSlot()}`);
}

/** Starts `main.ts` on a free port; `url` resolves once it listens. */
export function startServer(dataDir: string, databaseUrl: string | undefined): ServerProcess {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? "",
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "silent",
      WEB_DIST: "/nonexistent-web-dist",
      BILLING_MODE: "off",
      DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /Tonus is running at (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("exit", () => reject(new Error(`server exited before it ran: ${err.slice(-2000)}`)));
  });
  const exit = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { child, url, exit };
}

/** A person registered on the running server: their browser session and an API token. */
export type RegisteredUser = {
  /** The `Cookie` header of the signed-in session. */
  cookie: string;
  csrf: string;
  /** `Token <key>` of a new API token. */
  auth: string;
};

/** Registers a person on the running server, keeping the session and minting an API token. */
export async function registerUser(base: string, email: string): Promise<RegisteredUser> {
  const csrf = await fetch(`${base}${API.csrf}`);
  const cookies = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const csrfToken = /csrftoken=([^;]+)/.exec(cookies)?.[1] ?? "";
  const register = await fetch(`${base}${API.register}`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: cookies, "x-csrftoken": csrfToken, origin: base },
    body: JSON.stringify({ email, password: "correct horse battery staple 42" }),
  });
  if (register.status !== 200)
    throw new Error(`registration answered ${register.status}: ${await register.text()}`);
  const session = register.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const csrf2 = /csrftoken=([^;]+)/.exec(session)?.[1] ?? "";
  const tokenRes = await fetch(`${base}${API.apiTokens}`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: session, "x-csrftoken": csrf2, origin: base },
    body: JSON.stringify({ name: "ingest" }),
  });
  if (tokenRes.status !== 200) throw new Error(`token answered ${tokenRes.status}`);
  const auth = `Token ${((await tokenRes.json()) as { key: string }).key}`;
  return { cookie: session, csrf: csrf2, auth };
}

/** Registers a person on the running server and returns `Token <key>` of a new API token. */
export async function registerWithToken(base: string, email: string): Promise<string> {
  return (await registerUser(base, email)).auth;
}

/** An unsafe request as the person's browser sends it (session cookie, CSRF header, own origin). */
export function browserPost(base: string, user: RegisteredUser, url: string, body?: FormData | string) {
  return fetch(`${base}${url}`, {
    method: "POST",
    headers: {
      cookie: user.cookie,
      "x-csrftoken": user.csrf,
      origin: base,
      ...(body === undefined ? { "content-type": "application/json" } : {}),
    },
    body: body ?? "{}",
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exponential backoff with jitter, capped at 1 s: the simulated client's pause before retry `attempt`. */
export const backoffMs = (attempt: number) =>
  Math.min(1000, 20 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random());

/**
 * SIGKILLs the server `kills` times until `isFinished`, each time waiting for it to die and calling
 * `restart` (which starts it again on the same data). Before kill `k` it waits `waitBeforeKill(k)` when
 * given (to spread the kills over the work), else a random 300–1200 ms. Returns the kills done.
 */
export async function killRepeatedly(opts: {
  kills: number;
  isFinished: () => boolean;
  current: () => ServerProcess;
  restart: () => Promise<void>;
  waitBeforeKill?: (k: number) => Promise<void>;
}): Promise<number> {
  let done = 0;
  for (let k = 0; k < opts.kills && !opts.isFinished(); k++) {
    await (opts.waitBeforeKill ? opts.waitBeforeKill(k) : sleep(300 + Math.random() * 900));
    if (opts.isFinished()) break;
    const server = opts.current();
    server.child.kill("SIGKILL");
    await server.exit;
    done++;
    await opts.restart();
  }
  return done;
}
