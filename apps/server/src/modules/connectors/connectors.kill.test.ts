/**
 * A server killed mid-sync resumes from its cursor (RELIABILITY F-items for connectors). The provider is
 * a local stand-in (standin/) answering in Oura's documented formats — not Oura itself. The harness
 * connects a person through the real HTTP flow, holds one of the stand-in's data answers while the
 * first sync runs, SIGKILLs the server there and starts it again on the same data. The sync must finish
 * by itself after the restart, read less than a sync from scratch, and end with exactly the rows (and
 * report) of another person's uninterrupted sync of the same data. TONUS_HEAVY kills it three times.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { API, CONNECTORS_API, type Connector } from "@tonus/contract";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../db/client.ts";
import { freshPostgres } from "../../test/server-process.ts";
import { type Standin, startStandin } from "./standin/standin.ts";
import { CLIENT_ID, CLIENT_SECRET } from "./standin/testkit.ts";

const MAIN = path.resolve(import.meta.dirname, "../../main.ts");
const HEAVY = Boolean(process.env.TONUS_HEAVY);
const KILLS = HEAVY ? 3 : 1;
const BACKENDS = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type Server = { child: ChildProcess; ready: Promise<void>; exit: Promise<void> };

function start(env: Record<string, string>): Server {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("Tonus is running at")) resolve();
    });
    child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", () => reject(new Error(`server exited before it ran: ${err.slice(-2000)}`)));
  });
  const exit = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { child, ready, exit };
}

/** A browser: cookies kept, CSRF header and Origin on unsafe requests. */
function browser(base: string) {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
  };
  return async (method: string, url: string, body?: unknown) => {
    const headers: Record<string, string> = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") };
    if (method !== "GET")
      Object.assign(headers, {
        "content-type": "application/json",
        "x-csrftoken": jar.get("csrftoken") ?? "",
        origin: base,
      });
    const res = await fetch(`${base}${url}`, {
      method,
      headers,
      redirect: "manual",
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    keep(res);
    return res;
  };
}

async function signUpAndConnect(base: string, email: string) {
  const as = browser(base);
  await as("GET", API.csrf);
  const reg = await as("POST", API.register, { email, password: "correct horse battery staple 42" });
  expect(reg.status, await reg.clone().text()).toBe(200);
  const started = await as("POST", CONNECTORS_API.connect.replace(":provider", "oura"), {});
  const { authorization_url } = (await started.json()) as { authorization_url: string };
  const back = new URL(
    (await fetch(authorization_url, { redirect: "manual" })).headers.get("location") ?? "",
  );
  const landed = await as("GET", `${back.pathname}${back.search}`);
  expect(landed.headers.get("location")).toMatch(/connect=ok/);
  return as;
}

async function waitForSync(as: ReturnType<typeof browser>, timeoutMs = 120_000): Promise<Connector> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const res = await as("GET", CONNECTORS_API.one.replace(":provider", "oura")).catch(() => null);
    if (res?.ok) {
      const c = (await res.json()) as Connector;
      if (c.connection?.last_sync_at && c.connection.sync_state === "idle") return c;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("the sync did not finish");
}

describe.each(BACKENDS)("a connector sync killed mid-way on %s", (backend) => {
  it(
    `resumes from its cursor after ${KILLS} SIGKILL(s) and ends with the rows of an uninterrupted sync`,
    async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const standin: Standin = await startStandin({
        provider: "oura",
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        redirectUri: `${base}/dashboard_api/v1/connectors/oura/callback/`,
        days: 40,
        pageSize: 3,
      });
      cleanups.push(() => standin.close());
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-connector-kill-"));
      cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
      const databaseUrl = await freshPostgres(backend, "connkill");
      const env = {
        PORT: String(port),
        HOST: "127.0.0.1",
        PUBLIC_URL: base,
        LOG_LEVEL: "silent",
        WEB_DIST: "/nonexistent-web-dist",
        BILLING_MODE: "off",
        DATA_DIR: dataDir,
        OURA_CLIENT_ID: CLIENT_ID,
        OURA_CLIENT_SECRET: CLIENT_SECRET,
        OURA_BASE_URL: standin.url,
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      };
      let server = start(env);
      await server.ready;

      // Each kill lands on a data request a few pages after the previous restart's.
      let killAt = standin.dataRequests() + 5;
      let holding: (() => void) | null = null;
      let reached: () => void = () => {};
      let atKillPoint = new Promise<void>((resolve) => {
        reached = resolve;
      });
      standin.faults.beforeData = async () => {
        if (holding || standin.dataRequests() !== killAt) return;
        await new Promise<void>((resolve) => {
          holding = resolve;
          reached();
        });
      };
      const alice = await signUpAndConnect(base, "alice@example.test");
      for (let k = 0; k < KILLS; k++) {
        await atKillPoint;
        server.child.kill("SIGKILL");
        await server.exit;
        const release = holding as (() => void) | null;
        holding = null;
        release?.();
        killAt = standin.dataRequests() + 4 + k;
        atKillPoint = new Promise<void>((resolve) => {
          reached = resolve;
        });
        if (k === KILLS - 1) standin.faults.beforeData = null;
        server = start(env);
        await server.ready;
      }
      const resumedFrom = standin.dataRequests();
      const interrupted = await waitForSync(alice);
      const requestsAfterRestart = standin.dataRequests() - resumedFrom;

      // The reference: a second person's uninterrupted sync of the same data on the same server.
      const before = standin.dataRequests();
      const bob = await signUpAndConnect(base, "bob@example.test");
      const reference = await waitForSync(bob);
      const requestsFromScratch = standin.dataRequests() - before;
      expect(requestsAfterRestart).toBeLessThan(requestsFromScratch);
      expect(interrupted.connection?.last_sync_report).toEqual(reference.connection?.last_sync_report);

      server.child.kill("SIGTERM");
      await server.exit;
      const database = await openDatabase(
        databaseUrl ? { url: databaseUrl } : { pgliteDir: path.join(dataDir, "pgdata") },
      );
      try {
        const { rows } = await database.query<{ email: string; rows: string }>(
          `select u.email, string_agg(v.metric || '|' || v.client_id || '|' || v.value || '|' || extract(epoch from v.at), ',' order by v.metric, v.client_id) as rows
             from dashboard_values v join users u on u.id = v.user_id where v.source = 'oura' group by u.email order by u.email`,
        );
        expect(rows.map((r) => r.email)).toEqual(["alice@example.test", "bob@example.test"]);
        expect(rows[0]?.rows.length).toBeGreaterThan(1000);
        expect(rows[0]?.rows).toBe(rows[1]?.rows);
      } finally {
        await database.close();
      }
    },
    HEAVY ? 900_000 : 300_000,
  );
});
