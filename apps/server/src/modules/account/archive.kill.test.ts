import fs from "node:fs";
import path from "node:path";
import { crc32 } from "node:zlib";
import { API, ARCHIVE_API, type ArchiveStatus } from "@tonus/contract";
import { afterEach, describe, expect, it } from "vitest";
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
import { readZip } from "./zip.ts";

/**
 * RELIABILITY F6 against the real server process: the server is SIGKILLed at random moments while it
 * packs a data-export archive and started again on the same data. A killed packing resumes promptly
 * (at the next start on the embedded database; on PostgreSQL when the dead worker's heartbeat lapses),
 * not after the job's one-hour expiry; in the end exactly one archive is ready, every zip entry's CRC is
 * right, states only moved forward, and no stray or temporary file is left. TONUS_HEAVY kills 20 times
 * (5 on PostgreSQL, where each kill waits out a heartbeat).
 */

const HEAVY = Boolean(process.env.TONUS_HEAVY);
const BACKENDS = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];
const KILLS: Record<string, number> = { pglite: HEAVY ? 20 : 2, postgres: HEAVY ? 5 : 1 };
const BATCHES = HEAVY ? 40 : 24;
/** How long a resumed packing may take to be ready after the last restart (the old expiry was an hour). */
const RESUME_WITHIN_MS = 120_000;

afterEach(cleanUpServers);

async function seed(base: string, user: RegisteredUser) {
  for (let b = 0; b < BATCHES; b++) {
    const hour = Date.UTC(2025, 0, 1) + b * 3_600_000 * 10;
    const records = Array.from({ length: 500 }, (_, r) => ({
      type: "sample",
      client_id: crypto.randomUUID(),
      metric: "heart_rate",
      at: new Date(hour + r * 60_000).toISOString(),
      value: 50 + (r % 40),
      source: "seed",
    }));
    const res = await fetch(`${base}${API.ingest}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: user.auth, "idempotency-key": `a-${b}` },
      body: JSON.stringify({ records }),
    });
    if (res.status !== 200) throw new Error(`seeding answered ${res.status}`);
  }
}

async function status(base: string, user: RegisteredUser): Promise<ArchiveStatus> {
  const res = await fetch(`${base}${ARCHIVE_API.archive}`, { headers: { authorization: user.auth } });
  return (await res.json()) as ArchiveStatus;
}

/** Every entry's stored CRC-32 against its inflated bytes. */
async function checkCrcs(zip: Buffer): Promise<number> {
  const files = await readZip(zip);
  const endAt = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = zip.readUInt32LE(endAt + 16);
  for (let i = 0; i < zip.readUInt16LE(endAt + 10); i++) {
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    expect(crc32(files.get(name) ?? Buffer.alloc(0)), name).toBe(zip.readUInt32LE(at + 16));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return files.size;
}

describe.each(BACKENDS)("archive packing while the server is killed on %s (F6)", (backend) => {
  const kills = KILLS[backend] ?? 1;
  it(`finishes exactly one archive across ${kills} SIGKILLs during packing`, {
    timeout: HEAVY ? 3_600_000 : 600_000,
  }, async () => {
    const dataDir = makeDataDir("tonus-archive-kill-");
    const archives = path.join(dataDir, "files", "archives");
    const databaseUrl = await freshPostgres(backend, "archkill");
    let server: ServerProcess = startServer(dataDir, databaseUrl);
    let base = await server.url;
    const user = await registerUser(base, "packer@example.test");
    await seed(base, user);

    // How long packing takes here, undisturbed (a first archive): the kills fall within that window.
    const started = Date.now();
    expect((await browserPost(base, user, ARCHIVE_API.archive)).status).toBe(200);
    while ((await status(base, user)).status === "packing") await sleep(100);
    const windowMs = Date.now() - started;

    const request = async () => {
      const answer = (await (await browserPost(base, user, ARCHIVE_API.archive)).json()) as ArchiveStatus;
      expect(answer.status).toBe("packing");
      return answer;
    };
    let requested = await request();
    let archivesMade = 2;
    let seen: string[] = [requested.status];
    let during = 0;
    // A kill that lands after the archive was ready counts for nothing: a new archive is asked for.
    for (let killed = 0; during < kills && killed < kills * 4; killed++) {
      await sleep((0.1 + 0.8 * Math.random()) * windowMs);
      server.child.kill("SIGKILL");
      await server.exit;
      server = startServer(dataDir, databaseUrl);
      base = await server.url;
      const now = await status(base, user);
      seen.push(now.status);
      expect(now.id).toBe(requested.id);
      if (now.status === "packing") {
        during++;
        continue;
      }
      expect(seen.join(",")).toMatch(/^(packing,)*ready$/);
      requested = await request();
      archivesMade++;
      seen = [requested.status];
    }
    const deadline = Date.now() + RESUME_WITHIN_MS + windowMs;
    let last = await status(base, user);
    while (last.status === "packing" && Date.now() < deadline) {
      seen.push(last.status);
      await sleep(250);
      last = await status(base, user);
    }
    seen.push(last.status);
    console.info(`F6 on ${backend}: ${during} kills during packing (packing takes ~${windowMs} ms here)`);

    expect(last).toMatchObject({ id: requested.id, status: "ready" });
    // Forward only: packing, then ready, never back.
    expect(seen.join(",")).toMatch(/^(packing,)*(ready,)*ready$/);
    const download = await fetch(`${base}${last.download_url}`, { headers: { authorization: user.auth } });
    expect(download.status).toBe(200);
    const zip = Buffer.from(await download.arrayBuffer());
    expect(await checkCrcs(zip)).toBeGreaterThan(3);
    const account = JSON.parse((await readZip(zip)).get("account.json")?.toString() ?? "{}");
    expect(account.sections.dashboard_values.tables.dashboard_values).toHaveLength(BATCHES * 500);
    expect(during).toBe(kills);
    // One file per archive, no temporary or orphan files.
    const files = fs.readdirSync(archives);
    expect(files).toHaveLength(archivesMade);
    expect(files.every((f) => /^[0-9a-f]{32}\.zip$/.test(f))).toBe(true);
    server.child.kill("SIGTERM");
    await server.exit;
  });
});
