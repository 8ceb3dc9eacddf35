import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { API, type MeasurementList } from "@tonus/contract";
import { afterEach, describe, expect, it } from "vitest";

/**
 * RELIABILITY F1 for measurement uploads: a client uploads measurements with its own ids and retries
 * each until it gets a 2xx, while the harness SIGKILLs the server at random moments and restarts it on
 * the same data. Afterwards every acknowledged measurement is there exactly once and nothing is
 * duplicated. TONUS_HEAVY runs the 1,000 uploads of the plan; the default run is smaller.
 */

const MAIN = path.resolve(import.meta.dirname, "../../main.ts");
const HEAVY = Boolean(process.env.TONUS_HEAVY);
const UPLOADS = HEAVY ? 1000 : 60;
const KILLS = HEAVY ? 20 : 2;
const CONCURRENCY = 4;
const RR = readRr();

function readRr(): number[] {
  const file = path.resolve(
    import.meta.dirname,
    "../../../../../packages/hrv/test/fixtures/rr/welltory_4f2e5c4333_rr.csv",
  );
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .slice(1)
    .map(Number)
    .filter((v) => v > 0);
}

type Server = { child: ChildProcess; url: Promise<string>; exit: Promise<void> };
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh, empty PostgreSQL database for one run (dropped and created again), or undefined on PGlite. */
async function freshPostgres(backend: string): Promise<string | undefined> {
  if (backend !== "postgres") return undefined;
  const base = new URL(process.env.TEST_DATABASE_URL ?? "");
  const name = `${base.pathname.slice(1) || "tonus"}_ingest_w${process.env.VITEST_POOL_ID ?? "0"}`;
  const pg = await import("pg");
  const admin = new pg.default.Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  base.pathname = `/${name}`;
  return base.toString();
}

function start(dataDir: string, databaseUrl: string | undefined): Server {
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
    child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", () => reject(new Error(`server exited before it ran: ${err.slice(-2000)}`)));
  });
  const exit = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { child, url, exit };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const BACKENDS = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

describe.each(BACKENDS)("measurement uploads while the server is killed on %s (F1, F9)", (backend) => {
  it(
    `stores each of ${UPLOADS} retried uploads exactly once across ${KILLS} SIGKILLs`,
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-ingest-kill-"));
      dirs.push(dataDir);
      const databaseUrl = await freshPostgres(backend);
      let server = start(dataDir, databaseUrl);
      let base = await server.url;

      // A user and an API token (the companion app's way in: no cookies, no CSRF).
      const csrf = await fetch(`${base}${API.csrf}`);
      const cookies = csrf.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const csrfToken = /csrftoken=([^;]+)/.exec(cookies)?.[1] ?? "";
      const register = await fetch(`${base}${API.register}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          cookie: cookies,
          "x-csrftoken": csrfToken,
          origin: base,
        },
        body: JSON.stringify({ email: "ingest@example.test", password: "correct horse battery staple 42" }),
      });
      expect(register.status, await register.clone().text()).toBe(200);
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
      expect(tokenRes.status).toBe(200);
      const auth = `Token ${((await tokenRes.json()) as { key: string }).key}`;

      const acknowledged = new Set<string>();
      let finished = false;
      let answered5xx = 0;

      async function uploadOne(i: number) {
        const clientId = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
        const body = JSON.stringify({
          client_id: clientId,
          rr_ms: RR,
          source: "app",
          started_at: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
          time_zone: "UTC",
        });
        for (let attempt = 0; ; attempt++) {
          try {
            const res = await fetch(`${base}${API.measurements}`, {
              method: "POST",
              headers: { "content-type": "application/json", authorization: auth },
              body,
              signal: AbortSignal.timeout(10_000),
            });
            if (res.status === 200 || res.status === 201) {
              acknowledged.add(clientId);
              return;
            }
            if (res.status >= 500) answered5xx++;
            else throw new Error(`upload ${i} answered ${res.status}: ${await res.text()}`);
          } catch (error) {
            if (error instanceof Error && error.message.startsWith("upload")) throw error;
          }
          await sleep(Math.min(1000, 20 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random()));
        }
      }

      const killer = (async () => {
        for (let k = 0; k < KILLS && !finished; k++) {
          await sleep(300 + Math.random() * 900);
          if (finished) break;
          server.child.kill("SIGKILL");
          await server.exit;
          server = start(dataDir, databaseUrl);
          base = await server.url;
        }
      })();

      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < UPLOADS) await uploadOne(next++);
        }),
      );
      finished = true;
      await killer;

      // Every acknowledged upload is stored, once; nothing else is.
      const stored: string[] = [];
      for (let offset = 0; ; offset += 200) {
        const res = await fetch(`${base}${API.measurements}?limit=200&offset=${offset}`, {
          headers: { authorization: auth },
        });
        const page = (await res.json()) as MeasurementList;
        stored.push(...page.results.map((m) => m.client_id));
        if (page.results.length < 200) break;
      }
      expect(acknowledged.size).toBe(UPLOADS);
      expect(stored.length).toBe(UPLOADS);
      expect(new Set(stored).size).toBe(UPLOADS);
      for (const id of acknowledged) expect(stored).toContain(id);
      expect(answered5xx).toBe(0);
    },
    HEAVY ? 1_800_000 : 300_000,
  );
});
