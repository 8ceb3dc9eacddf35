import fs from "node:fs";
import path from "node:path";
import { IMPORTS_API, type Import } from "@tonus/contract";
import { afterEach, describe, expect, it } from "vitest";
import { activityFit } from "../../../../../packages/importers/test/fit-writer.ts";
import { openDatabase } from "../../db/client.ts";
import {
  cleanUpServers,
  freshPostgres,
  makeDataDir,
  registerWithToken,
  type ServerProcess,
  sleep,
  startServer,
} from "../../test/server-process.ts";
import { appleHealthXml, appleHealthZip, withingsBpCsv } from "./test/fixtures.ts";

/**
 * A server killed in the middle of an import resumes it after a restart and ends with exactly the rows
 * an uninterrupted import of the same file writes (RELIABILITY F1 for imports, U6's "survives a restart
 * by resuming"), for each way an import resumes: Apple Health export.xml from the scanner's byte offset,
 * export.zip by inflating again and skipping to that offset, and the other formats (a FIT file, a CSV
 * export of blood-pressure readings) by reading again and skipping the records already committed. The
 * default run kills once during each; TONUS_HEAVY kills five times during larger files.
 */

const HEAVY = Boolean(process.env.TONUS_HEAVY);
const KILLS = HEAVY ? 5 : 1;
// Several batches even for the bulk write path, so a kill lands between two of them.
const EXPORT_BYTES = HEAVY ? 40_000_000 : 12_000_000;
const FIT_RECORDS = HEAVY ? 600_000 : 150_000;
const BACKENDS = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

afterEach(cleanUpServers);

type Upload = { source: string; name: string; data: Uint8Array; minRows: number };

const FORMATS: [string, () => Promise<Upload>][] = [
  [
    "an Apple Health export.xml",
    async () => ({
      source: "apple-health",
      name: "export.xml",
      data: (await appleHealthXml(EXPORT_BYTES)).data,
      minRows: 1000,
    }),
  ],
  [
    "an Apple Health export.zip",
    async () => ({
      source: "apple-health",
      name: "export.zip",
      data: (await appleHealthZip(EXPORT_BYTES)).data,
      minRows: 1000,
    }),
  ],
  [
    "a FIT file",
    async () => ({
      source: "garmin-connect",
      name: "long-run.fit",
      // Heart rate in batches of values, then one RR series in the last batch, with a workout.
      data: activityFit({ startMs: Date.UTC(2024, 2, 1, 6), records: FIT_RECORDS, beats: 3000 }),
      minRows: FIT_RECORDS,
    }),
  ],
  [
    "a CSV export of blood-pressure readings",
    async () => ({
      source: "withings-bpm",
      name: "bp.csv",
      // Readings come in batches of 100, and the same reading twice in one batch counts once.
      data: withingsBpCsv(HEAVY ? 15_000 : 3000),
      minRows: HEAVY ? 15_000 : 3000,
    }),
  ],
];

async function uploadFile(base: string, auth: string, file: Upload): Promise<string> {
  const form = new FormData();
  form.append("source", file.source);
  form.append("time_zone", "UTC");
  form.append("file", new Blob([file.data]), file.name);
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
      // PGlite answers between batches only, and slowly on a loaded machine: a late answer still tells
      // of a committed batch, so wait for it rather than miss the moment to kill.
      signal: AbortSignal.timeout(60_000),
    });
    return res.ok ? ((await res.json()) as Import) : null;
  } catch {
    return null;
  }
}

const ended = (i: Import | null) => i?.status === "done" || i?.status === "failed";

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
       from dashboard_values_all where user_id = $1 and source not in ('measurement', 'bp_log')`,
    [id],
  );
  const measurements = await database.query<{ line: string }>(
    "select concat_ws('|', client_id, started_at::text, rr_ms::text) as line from measurements where user_id = $1",
    [id],
  );
  const readings = await database.query<{ line: string }>(
    "select concat_ws('|', client_id, systolic, diastolic, pulse, measured_at::text) as line from bp_readings where user_id = $1",
    [id],
  );
  return [...values.rows, ...measurements.rows, ...readings.rows].map((r) => r.line).sort();
}

describe.each(BACKENDS)("an import while the server is killed on %s (F1, U6)", (backend) => {
  it.each(FORMATS)(
    `resumes %s after ${KILLS} SIGKILL(s) and ends with the rows of an uninterrupted import`,
    async (_label, makeUpload) => {
      const dataDir = makeDataDir("tonus-import-kill-");
      const databaseUrl = await freshPostgres(backend, "import_kill");
      const file = await makeUpload();
      let server: ServerProcess = startServer(dataDir, databaseUrl);
      let base = await server.url;
      const killedAuth = await registerWithToken(base, "killed@example.test");
      const calmAuth = await registerWithToken(base, "calm@example.test");

      const killedId = await uploadFile(base, killedAuth, file);
      let kills = 0;
      let seenProgress = 0;
      for (;;) {
        const current = await readImport(base, killedAuth, killedId);
        if (ended(current)) break;
        // Kill right after a batch has been committed, while the rest is still to come.
        if (kills < KILLS && current && current.progress.imported > seenProgress) {
          seenProgress = current.progress.imported;
          await sleep(Math.random() * 200);
          server.child.kill("SIGKILL");
          await server.exit;
          kills++;
          server = startServer(dataDir, databaseUrl);
          base = await server.url;
        }
        await sleep(25);
      }
      const killed = await readImport(base, killedAuth, killedId);
      expect(killed?.status, JSON.stringify(killed?.report)).toBe("done");
      expect(kills).toBeGreaterThan(0);

      const calmId = await uploadFile(base, calmAuth, file);
      let calm: Import | null = null;
      while (!ended(calm)) {
        await sleep(100);
        calm = await readImport(base, calmAuth, calmId);
      }
      expect(calm?.status).toBe("done");
      // The report counts as the uninterrupted one does, the records written before a kill included.
      expect(killed?.report).toEqual(calm?.report);

      server.child.kill("SIGTERM");
      await server.exit;
      const database = await openDatabase(
        databaseUrl ? { url: databaseUrl } : { pgliteDir: path.join(dataDir, "pgdata") },
      );
      try {
        const killedRows = await rowsOf(database, "killed@example.test");
        const calmRows = await rowsOf(database, "calm@example.test");
        expect(killedRows.length).toBeGreaterThanOrEqual(file.minRows);
        // Nothing stored twice, and client ids are the source's, so both people's rows compare directly.
        expect(new Set(killedRows).size).toBe(killedRows.length);
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
