import { API, type MeasurementList } from "@tonus/contract";
import { afterEach, describe, expect, it } from "vitest";
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
 * RELIABILITY F1 for measurement uploads: a client uploads measurements with its own ids and retries
 * each until it gets a 2xx, while the harness SIGKILLs the server at random moments and restarts it on
 * the same data. Afterwards every acknowledged measurement is there exactly once and nothing is
 * duplicated. TONUS_HEAVY runs the 1,000 uploads of the plan; the default run is smaller.
 */

const HEAVY = Boolean(process.env.TONUS_HEAVY);
const UPLOADS = HEAVY ? 1000 : 60;
const KILLS = HEAVY ? 20 : 2;
const CONCURRENCY = 4;
const RR = SHORT_RR;

const BACKENDS = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

afterEach(cleanUpServers);

describe.each(BACKENDS)("measurement uploads while the server is killed on %s (F1, F9)", (backend) => {
  it(
    `stores each of ${UPLOADS} retried uploads exactly once across ${KILLS} SIGKILLs`,
    async () => {
      const dataDir = makeDataDir("tonus-ingest-kill-");
      const databaseUrl = await freshPostgres(backend, "ingest");
      let server = startServer(dataDir, databaseUrl);
      let base = await server.url;
      // A user and an API token (the companion app's way in: no cookies, no CSRF).
      const auth = await registerWithToken(base, "ingest@example.test");

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
          await sleep(backoffMs(attempt));
        }
      }

      const killer = killRepeatedly({
        kills: KILLS,
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
