import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { API, IMPORTS_API, type Import } from "@tonus/contract";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../db/client.ts";
import { appleHealthXml } from "./test/fixtures.ts";

/**
 * A server killed in the middle of an import resumes it after a restart and ends with exactly the rows
 * an uninterrupted import of the same file writes (RELIABILITY F1 for imports, U6's "survives a restart
 * by resuming"). The default run kills once during a small export; TONUS_HEAVY kills five times during
 * a larger one.
 */

const MAIN = path.resolve(import.meta.dirname, "../../main.ts");
const HEAVY = Boolean(process.env.TONUS_HEAVY);
// Several batches even for the bulk write path, so a kill lands between two of them.
const EXPORT_BYTES = HEAVY ? 40_000_000 : 12_000_000;
const KILLS = HEAVY ? 5 : 1;
const BACKENDS = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

type Server = { child: ChildProcess; url: Promise<string>; exit: Promise<void> };
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function freshPostgres(backend: string): Promise<string | undefined> {
  if (backend !== "postgres") return undefined;
  const base = new URL(process.env.TEST_DATABASE_URL ?? "");
  const name = `${base.pathname.slice(1) || "tonus"}_import_kill_w${process.env.VITEST_POOL_ID ?? "0"}`;
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

/** A new account and an API token for it (the token needs no cookies or CSRF). */
async function tokenFor(base: string, email: string): Promise<string> {
  const csrf = await fetch(`${base}${API.csrf}`);
  const cookies = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const register = await fetch(`${base}${API.register}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      cookie: cookies,
      "x-csrftoken": /csrftoken=([^;]+)/.exec(cookies)?.[1] ?? "",
      origin: base,
    },
    body: JSON.stringify({ email, password: "correct horse battery staple 42" }),
  });
  expect(register.status, await register.clone().text()).toBe(200);
  const session = register.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const token = await fetch(`${base}${API.apiTokens}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      cookie: session,
      "x-csrftoken": /csrftoken=([^;]+)/.exec(session)?.[1] ?? "",
      origin: base,
    },
    body: JSON.stringify({ name: "import" }),
  });
  return `Token ${((await token.json()) as { key: string }).key}`;
}

async function uploadExport(base: string, auth: string, data: Uint8Array): Promise<string> {
  const form = new FormData();
  form.append("source", "apple-health");
  form.append("time_zone", "UTC");
  form.append("file", new Blob([data]), "export.xml");
  const res = await fetch(`${base}${IMPORTS_API.imports}`, {
    method: "POST",
    headers: { authorization: auth },
    body: form,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as Import).id;
}

async function readImport(base: string, auth: string, id: string): Promise<Import | null> {
  try {
    const res = await fetch(`${base}${IMPORTS_API.import.replace(":id", id)}`, {
      headers: { authorization: auth },
      signal: AbortSignal.timeout(10_000),
    });
    return res.ok ? ((await res.json()) as Import) : null;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Everything an import wrote for one person, as comparable lines (the values a measurement or a reading
 * derives are keyed by its row id, which differs per person, so they are compared through those rows).
 */
async function rowsOf(database: Awaited<ReturnType<typeof openDatabase>>, email: string): Promise<string[]> {
  const { rows: users } = await database.query<{ id: string }>("select id from users where email = $1", [
    email,
  ]);
  const id = users[0]?.id;
  const values = await database.query<{ line: string }>(
    `select concat_ws('|', metric, extract(epoch from at)::text, value::text, source, client_id) as line
       from dashboard_values where user_id = $1 and source not in ('measurement', 'bp_log')`,
    [id],
  );
  const measurements = await database.query<{ line: string }>(
    "select concat_ws('|', client_id, started_at::text, rr_ms::text) as line from measurements where user_id = $1",
    [id],
  );
  const readings = await database.query<{ line: string }>(
    "select concat_ws('|', client_id, systolic, diastolic, measured_at::text) as line from bp_readings where user_id = $1",
    [id],
  );
  return [...values.rows, ...measurements.rows, ...readings.rows].map((r) => r.line).sort();
}

describe.each(BACKENDS)("an import while the server is killed on %s (F1, U6)", (backend) => {
  it(
    `resumes after ${KILLS} SIGKILL(s) and ends with the rows of an uninterrupted import`,
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-import-kill-"));
      dirs.push(dataDir);
      const databaseUrl = await freshPostgres(backend);
      const { data } = await appleHealthXml(EXPORT_BYTES);
      let server = start(dataDir, databaseUrl);
      let base = await server.url;
      const killedAuth = await tokenFor(base, "killed@example.test");
      const calmAuth = await tokenFor(base, "calm@example.test");

      const killedId = await uploadExport(base, killedAuth, data);
      let kills = 0;
      let seenProgress = 0;
      for (;;) {
        const current = await readImport(base, killedAuth, killedId);
        if (current?.status === "done" || current?.status === "failed") break;
        // Kill right after a batch has been committed, while the rest is still to come.
        if (kills < KILLS && current && current.progress.imported > seenProgress) {
          seenProgress = current.progress.imported;
          await sleep(Math.random() * 200);
          server.child.kill("SIGKILL");
          await server.exit;
          kills++;
          server = start(dataDir, databaseUrl);
          base = await server.url;
        }
        await sleep(25);
      }
      const killed = await readImport(base, killedAuth, killedId);
      expect(killed?.status, JSON.stringify(killed?.report)).toBe("done");
      expect(kills).toBeGreaterThan(0);

      const calmId = await uploadExport(base, calmAuth, data);
      let calm: Import | null = null;
      while (calm?.status !== "done" && calm?.status !== "failed") {
        await sleep(100);
        calm = await readImport(base, calmAuth, calmId);
      }
      // The report counts as the uninterrupted one does, the records written before a kill included.
      expect(killed?.report).toMatchObject({
        imported: calm?.report?.imported,
        duplicates: calm?.report?.duplicates,
        measurements: calm?.report?.measurements,
        bp_readings: calm?.report?.bp_readings,
      });

      server.child.kill("SIGTERM");
      await server.exit;
      const database = await openDatabase(
        databaseUrl ? { url: databaseUrl } : { pgliteDir: path.join(dataDir, "pgdata") },
      );
      try {
        const killedRows = await rowsOf(database, "killed@example.test");
        const calmRows = await rowsOf(database, "calm@example.test");
        expect(killedRows.length).toBeGreaterThan(1000);
        // Client ids are the same for both people (they are the source's), so the rows compare directly.
        expect(killedRows).toEqual(calmRows);
      } finally {
        await database.close();
      }
      // The upload is removed once the import has ended.
      expect(fs.readdirSync(path.join(dataDir, "files", "imports"))).toEqual([]);
    },
    HEAVY ? 1_200_000 : 300_000,
  );
});
