import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { API, BILLING_API } from "@tonus/contract";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../db/client.ts";
import {
  browserPost,
  cleanUpServers,
  freshPostgres,
  makeDataDir,
  type RegisteredUser,
  registerUser,
  type ServerProcess,
  sleep,
  startServer,
} from "../../test/server-process.ts";

/**
 * Account deletion against the real server process: RELIABILITY X6 (SIGKILL during deletion: after the
 * restart the account is wholly there or wholly gone, and a gone account's files are removed) and X7 (a
 * real backup of the database and files, taken before a deletion and restored after it: the deletion
 * ledger deletes the account again before the server listens). TONUS_HEAVY kills ten deletions.
 */

const HEAVY = Boolean(process.env.TONUS_HEAVY);
const VICTIMS = HEAVY ? 10 : 3;
const BATCHES_PER_USER = HEAVY ? 6 : 3;
const BACKENDS = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

afterEach(cleanUpServers);

type Person = RegisteredUser & { email: string; userId: string; picture: string };

async function seedPerson(base: string, filesDir: string, email: string): Promise<Person> {
  const user = await registerUser(base, email);
  for (let b = 0; b < BATCHES_PER_USER; b++) {
    const hour = Date.UTC(2026, 0, 1) + b * 3_600_000 * 10;
    const records = Array.from({ length: 499 }, (_, r) => ({
      type: "sample",
      client_id: crypto.randomUUID(),
      metric: "heart_rate",
      at: new Date(hour + r * 60_000).toISOString(),
      value: 50 + (r % 40),
      source: "seed",
    }));
    records.push({
      type: "bp_reading",
      client_id: crypto.randomUUID(),
      systolic: 120,
      diastolic: 80,
      measured_at: new Date(hour).toISOString(),
      time_zone: "UTC",
    } as never);
    const res = await fetch(`${base}${API.ingest}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: user.auth,
        "idempotency-key": `seed-${b}`,
      },
      body: JSON.stringify({ records }),
    });
    if (res.status !== 200) throw new Error(`seeding answered ${res.status}: ${await res.text()}`);
  }
  const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: "#36c" } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append("file", new Blob([png], { type: "image/png" }), "me.png");
  const upload = await browserPost(base, user, API.userpicUpload, form);
  if (upload.status !== 200) throw new Error(`userpic answered ${upload.status}`);
  const profile = (await (
    await fetch(`${base}${API.profile}`, { headers: { authorization: user.auth } })
  ).json()) as {
    id: string;
    userpic: string | null;
  };
  const name = path.basename(new URL(profile.userpic ?? "", base).pathname);
  const picture = path.join(filesDir, "userpics", name);
  if (!fs.existsSync(picture)) throw new Error(`no picture at ${picture}`);
  return { ...user, email, userId: profile.id, picture };
}

async function exists(base: string, person: Person): Promise<boolean> {
  const res = await fetch(`${base}${API.profile}`, { headers: { authorization: person.auth } });
  return res.status === 200;
}

/** Rows per table naming the user in a user_id column, and the account row itself. */
async function countsOf(database: Database, userId: string): Promise<Record<string, number>> {
  const { rows } = await database.query<{ table_name: string }>(
    `select c.table_name from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and c.column_name = 'user_id' and t.table_type = 'BASE TABLE'
      order by 1`,
  );
  const out: Record<string, number> = {};
  for (const { table_name } of rows) {
    const r = await database.query<{ n: number }>(
      `select count(*)::int as n from "${table_name}" where user_id = $1`,
      [userId],
    );
    out[table_name] = Number(r.rows[0]?.n ?? 0);
  }
  const u = await database.query<{ n: number }>("select count(*)::int as n from users where id = $1", [
    userId,
  ]);
  out.users = Number(u.rows[0]?.n ?? 0);
  return out;
}

const openData = (dataDir: string, databaseUrl: string | undefined) =>
  openDatabase(databaseUrl ? { url: databaseUrl } : { pgliteDir: path.join(dataDir, "pgdata") });

async function stop(server: ServerProcess) {
  server.child.kill("SIGTERM");
  await server.exit;
}

describe.each(BACKENDS)("account deletion and the server process on %s", (backend) => {
  it(`leaves each of ${VICTIMS} accounts whole or gone when the server is killed mid-deletion (X6)`, {
    timeout: HEAVY ? 1_800_000 : 300_000,
  }, async () => {
    const dataDir = makeDataDir("tonus-deletion-kill-");
    const filesDir = path.join(dataDir, "files");
    const databaseUrl = await freshPostgres(backend, "delkill");
    let server = startServer(dataDir, databaseUrl);
    let base = await server.url;
    const control = await seedPerson(base, filesDir, "control@example.test");
    const victims: Person[] = [];
    for (let i = 0; i < VICTIMS; i++)
      victims.push(await seedPerson(base, filesDir, `victim${i}@example.test`));

    // How long an undisturbed deletion takes here: the kills are spread over that window.
    const probe = await seedPerson(base, filesDir, "probe@example.test");
    const started = performance.now();
    expect((await browserPost(base, probe, BILLING_API.userDelete)).status).toBe(200);
    const windowMs = Math.max(20, performance.now() - started);

    for (const victim of victims) {
      const request = browserPost(base, victim, BILLING_API.userDelete).catch(() => null);
      await sleep(Math.random() * windowMs * 1.2);
      server.child.kill("SIGKILL");
      await server.exit;
      await request;
      server = startServer(dataDir, databaseUrl);
      base = await server.url;
    }

    const gone = new Set<string>();
    for (const victim of victims) if (!(await exists(base, victim))) gone.add(victim.userId);
    expect(await exists(base, control)).toBe(true);
    console.info(
      `X6 on ${backend}: ${gone.size} of ${VICTIMS} deletions committed before the kill (window ${Math.round(windowMs)} ms)`,
    );
    // A gone account's picture is removed after the restart (the removal job outlives the kill).
    const deadline = Date.now() + 90_000;
    const leftover = () => victims.filter((v) => gone.has(v.userId) && fs.existsSync(v.picture));
    while (leftover().length > 0 && Date.now() < deadline) await sleep(250);
    expect(leftover().map((v) => v.email)).toEqual([]);
    expect(fs.existsSync(probe.picture)).toBe(false);
    await stop(server);

    const database = await openData(dataDir, databaseUrl);
    try {
      const whole = await countsOf(database, control.userId);
      expect(whole.users).toBe(1);
      expect(whole.dashboard_values).toBeGreaterThan(0);
      const zero = Object.fromEntries(Object.keys(whole).map((t) => [t, 0]));
      for (const victim of victims) {
        const counts = await countsOf(database, victim.userId);
        if (gone.has(victim.userId)) expect(counts, victim.email).toEqual(zero);
        else {
          expect(counts, victim.email).toEqual(whole);
          expect(fs.existsSync(victim.picture)).toBe(true);
        }
      }
      const removals = await database.query<{ n: number }>("select count(*)::int as n from file_removals");
      expect(removals.rows[0]?.n).toBe(0);
    } finally {
      await database.close();
    }
  });

  it("deletes again an account that a restored backup brings back, before the server listens (X7)", {
    timeout: 300_000,
  }, async () => {
    const dataDir = makeDataDir("tonus-deletion-backup-");
    const backupDir = makeDataDir("tonus-deletion-backup-copy-");
    const filesDir = path.join(dataDir, "files");
    const databaseUrl = await freshPostgres(backend, "delbackup");
    let server = startServer(dataDir, databaseUrl);
    let base = await server.url;
    const leaving = await seedPerson(base, filesDir, "leaving@example.test");
    const staying = await seedPerson(base, filesDir, "staying@example.test");
    await stop(server);

    // The backup, as docs/operations.md describes it: the database and the files folder.
    const dump = path.join(backupDir, "tonus.dump");
    if (databaseUrl) execFileSync("pg_dump", ["-Fc", "-f", dump, databaseUrl]);
    else fs.cpSync(path.join(dataDir, "pgdata"), path.join(backupDir, "pgdata"), { recursive: true });
    fs.cpSync(filesDir, path.join(backupDir, "files"), { recursive: true });

    server = startServer(dataDir, databaseUrl);
    base = await server.url;
    expect((await browserPost(base, leaving, BILLING_API.userDelete)).status).toBe(200);
    await stop(server);
    expect(fs.existsSync(leaving.picture)).toBe(false);

    // The restore: database and files from the backup; the ledger file is kept.
    if (databaseUrl) {
      await freshPostgres(backend, "delbackup");
      execFileSync("pg_restore", ["--no-owner", "-d", databaseUrl, dump]);
    } else {
      fs.rmSync(path.join(dataDir, "pgdata"), { recursive: true });
      fs.cpSync(path.join(backupDir, "pgdata"), path.join(dataDir, "pgdata"), { recursive: true });
    }
    fs.rmSync(filesDir, { recursive: true });
    fs.cpSync(path.join(backupDir, "files"), filesDir, { recursive: true });
    expect(fs.existsSync(leaving.picture)).toBe(true);
    const restored = await openData(dataDir, databaseUrl);
    try {
      expect((await countsOf(restored, leaving.userId)).users).toBe(1);
    } finally {
      await restored.close();
    }

    server = startServer(dataDir, databaseUrl);
    base = await server.url;
    // Listening means the ledger was applied: the account and its picture are gone already.
    expect(await exists(base, leaving)).toBe(false);
    expect(fs.existsSync(leaving.picture)).toBe(false);
    expect(await exists(base, staying)).toBe(true);
    expect(fs.existsSync(staying.picture)).toBe(true);
    await stop(server);

    const database = await openData(dataDir, databaseUrl);
    try {
      const counts = await countsOf(database, leaving.userId);
      expect(Object.entries(counts).filter(([, n]) => n > 0)).toEqual([]);
      expect((await countsOf(database, staying.userId)).users).toBe(1);
    } finally {
      await database.close();
    }
  });
});
