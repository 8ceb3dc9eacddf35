import path from "node:path";
import { API, type IngestResponse } from "@tonus/contract";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../db/client.ts";
import { SHORT_RR } from "../../test/rr-fixtures.ts";
import {
  backoffMs,
  cleanUpServers,
  freshPostgres,
  killRepeatedly,
  makeDataDir,
  registerWithToken,
  sleep,
  startServer,
} from "../../test/server-process.ts";

/**
 * RELIABILITY F1 (and F9 on PostgreSQL) for the ingest API: a companion-app simulator sends batches of
 * 50 records (48 heart-rate samples, one blood-pressure reading, one RR measurement), each record with
 * its client UUID and each batch with its Idempotency-Key, retrying every batch with exponential
 * backoff and jitter until it gets a 2xx, while the harness SIGKILLs the server at random moments and
 * restarts it on the same data. Afterwards the database holds exactly the records sent: none lost, none
 * twice, every acknowledged one present. TONUS_HEAVY runs the plan's 1,000 batches and 20 kills.
 */

const HEAVY = Boolean(process.env.TONUS_HEAVY);
const BATCHES = HEAVY ? 1000 : 30;
const KILLS = HEAVY ? 20 : 2;
const CONCURRENCY = 4;
const SAMPLES_PER_BATCH = 48;
const SOURCE = "simulator";
const RR = SHORT_RR;

const BACKENDS = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

/** A deterministic UUID per batch and record (the client's own ids). */
const uuid = (batch: number, record: number) =>
  `00000000-0000-4000-8${String(record).padStart(3, "0")}-${String(batch).padStart(12, "0")}`;

function batchOf(b: number) {
  const hour = Date.UTC(2026, 0, 1) + b * 3_600_000;
  const samples = Array.from({ length: SAMPLES_PER_BATCH }, (_, r) => ({
    type: "sample",
    client_id: uuid(b, r),
    metric: "heart_rate",
    at: new Date(hour + r * 60_000).toISOString(),
    value: 55 + ((b + r) % 40),
    source: SOURCE,
  }));
  return {
    key: `batch-${b}-${uuid(b, 999)}`,
    body: JSON.stringify({
      records: [
        ...samples,
        {
          type: "bp_reading",
          client_id: uuid(b, 100),
          systolic: 110 + (b % 30),
          diastolic: 70 + (b % 15),
          measured_at: new Date(hour + 50 * 60_000).toISOString(),
          time_zone: "UTC",
        },
        {
          type: "rr_measurement",
          client_id: uuid(b, 101),
          rr_ms: RR,
          source: "app",
          started_at: new Date(hour).toISOString(),
          time_zone: "UTC",
        },
      ],
    }),
  };
}

afterEach(cleanUpServers);

describe.each(BACKENDS)("ingest batches while the server is killed on %s (F1, F9)", (backend) => {
  it(
    `stores each record of ${BATCHES} batches × 50 exactly once across ${KILLS} SIGKILLs`,
    async () => {
      const dataDir = makeDataDir("tonus-ingest-api-kill-");
      const databaseUrl = await freshPostgres(backend, "ingestapi");
      let server = startServer(dataDir, databaseUrl);
      let base = await server.url;
      const auth = await registerWithToken(base, "companion@example.test");

      const acknowledged = new Set<number>();
      let finished = false;
      let answered5xx = 0;
      let retries = 0;

      async function sendBatch(b: number) {
        const { key, body } = batchOf(b);
        for (let attempt = 0; ; attempt++) {
          if (attempt > 0) retries++;
          try {
            const res = await fetch(`${base}${API.ingest}`, {
              method: "POST",
              headers: { "content-type": "application/json", authorization: auth, "idempotency-key": key },
              body,
              signal: AbortSignal.timeout(15_000),
            });
            if (res.status === 200) {
              const answer = (await res.json()) as IngestResponse;
              if (answer.accepted !== 50 || answer.rejected !== 0)
                throw new Error(`batch ${b} was not taken whole: ${JSON.stringify(answer).slice(0, 300)}`);
              acknowledged.add(b);
              return;
            }
            // 409: an earlier send of this batch is still running (before a kill it may never finish).
            if (res.status >= 500) answered5xx++;
            else if (res.status !== 409)
              throw new Error(`batch ${b} answered ${res.status}: ${await res.text()}`);
          } catch (error) {
            if (error instanceof Error && error.message.startsWith("batch")) throw error;
          }
          await sleep(backoffMs(attempt));
        }
      }

      const killer = killRepeatedly({
        kills: KILLS,
        // Spread over the run (a fast machine would otherwise finish first), at a random moment of a batch.
        waitBeforeKill: async (k) => {
          while (!finished && acknowledged.size < ((k + 1) * BATCHES) / (KILLS + 1)) await sleep(5);
          await sleep(Math.random() * 150);
        },
        isFinished: () => finished,
        current: () => server,
        restart: async () => {
          server = startServer(dataDir, databaseUrl);
          base = await server.url;
        },
      });
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < BATCHES) await sendBatch(next++);
        }),
      );
      finished = true;
      const kills = await killer;
      server.child.kill("SIGTERM");
      await server.exit;

      // Straight from the database: exactly what was sent, once.
      const database = await openDatabase(
        databaseUrl ? { url: databaseUrl } : { pgliteDir: path.join(dataDir, "pgdata") },
      );
      try {
        const one = async (text: string) => Number((await database.query<{ n: string }>(text)).rows[0]?.n);
        const samples = await one(`select count(*) as n from dashboard_values where source = '${SOURCE}'`);
        const distinctSamples = await one(
          `select count(distinct client_id) as n from dashboard_values where source = '${SOURCE}'`,
        );
        expect({
          acknowledged: acknowledged.size,
          samples,
          distinctSamples,
          readings: await one("select count(*) as n from bp_readings"),
          measurements: await one("select count(*) as n from measurements"),
          keys: await one("select count(*) as n from idempotency_keys"),
        }).toEqual({
          acknowledged: BATCHES,
          samples: BATCHES * SAMPLES_PER_BATCH,
          distinctSamples: BATCHES * SAMPLES_PER_BATCH,
          readings: BATCHES,
          measurements: BATCHES,
          keys: BATCHES,
        });
        const last = BATCHES - 1;
        const present = await database.query<{ client_id: string }>(
          "select client_id from dashboard_values where client_id in ($1, $2)",
          [uuid(0, 0), uuid(last, SAMPLES_PER_BATCH - 1)],
        );
        expect(present.rows).toHaveLength(2);
      } finally {
        await database.close();
      }
      expect(answered5xx).toBe(0);
      expect(kills).toBeGreaterThan(0);
      // Each kill cut some batches off mid-flight: they were sent again and still stored once.
      expect(retries).toBeGreaterThan(0);
    },
    HEAVY ? 3_600_000 : 300_000,
  );
});
