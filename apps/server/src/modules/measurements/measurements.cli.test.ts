import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { analyzeRr } from "@tonus/hrv";
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../db/client.ts";
import { acquireDataDirLock } from "../../db/lock.ts";
import { measurements, users } from "../../db/schema.ts";
import { BACKENDS } from "../../test/databases.ts";
import { SHORT_RR } from "../../test/rr-fixtures.ts";
import { freshPostgres } from "../../test/server-process.ts";
import { MEASUREMENT_ALGORITHM_VERSION, RECOMPUTE_REQUESTED } from "./measurements.compute.ts";

const CLI = path.resolve(import.meta.dirname, "../../cli.ts");
const RR = SHORT_RR;
const ROWS = 60;

type Result = { code: number | null; stdout: string; stderr: string };

/** Runs the operator CLI; `killOn` SIGKILLs it as soon as its output matches. */
function runCli(args: string[], env: Record<string, string>, killOn?: RegExp): Promise<Result> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
    if (killOn?.test(stdout)) child.kill("SIGKILL");
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

describe.each(BACKENDS)("measurements-recompute as a process on %s", (backend) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-recompute-"));
  let env: Record<string, string>;
  let withDb: <T>(work: (database: Database) => Promise<T>) => Promise<T>;
  let userId = "";
  let closeDb: () => Promise<void> = async () => {};

  const mine = () =>
    withDb((database) =>
      database.db.select().from(measurements).where(eq(measurements.userId, userId)).orderBy(measurements.id),
    );

  beforeAll(async () => {
    if (backend === "pglite") {
      env = { DATA_DIR: dataDir };
      withDb = async (work) => {
        const database = await openDatabase({ pgliteDir: path.join(dataDir, "pgdata") });
        try {
          return await work(database);
        } finally {
          await database.close();
        }
      };
    } else {
      // A database of its own: --all recomputes every measurement in it, other files' rows included.
      const url = (await freshPostgres("postgres", "recompute")) ?? "";
      const database = await openDatabase({ url });
      closeDb = () => database.close();
      env = { DATABASE_URL: url, DATA_DIR: dataDir };
      withDb = (work) => work(database);
    }
    const suffix = Math.random().toString(36).slice(2, 8);
    await withDb(async ({ db }) => {
      const [user] = await db
        .insert(users)
        .values({ email: `recompute-${suffix}@example.test`, username: `recompute-${suffix}` })
        .returning();
      userId = user?.id ?? "";
      // As an archive import leaves them: the recorded series, no result yet.
      await db.insert(measurements).values(
        Array.from({ length: ROWS }, (_, i) => ({
          userId,
          clientId: crypto.randomUUID(),
          source: "strap",
          startedAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000),
          timeZone: "Europe/Moscow",
          rrMs: RR,
          rrBreaks: i % 2 ? [30] : [],
          algorithmVersion: "",
          result: null,
        })),
      );
    });
  }, 60_000);
  afterAll(async () => {
    await closeDb();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("computes the stale rows, and with --all every row, resuming after a kill", async () => {
    const first = await runCli(["measurements-recompute"], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`${ROWS} recomputed to ${MEASUREMENT_ALGORITHM_VERSION}, 0 stale left`);
    const computed = await mine();
    const expected = (breaks: number[]) => {
      const a = analyzeRr(RR, { breaks });
      return (a.corrected ?? a.raw)?.timeDomain.rmssd;
    };
    for (const row of computed) {
      expect(row.algorithmVersion).toBe(MEASUREMENT_ALGORITHM_VERSION);
      const values = (row.result as { values: { rmssd: number } }).values;
      expect(values.rmssd).toBeCloseTo(expected(row.rrBreaks) ?? 0, 9);
    }
    // A stored number went wrong without a version change (a fixed bug): only --all puts it right.
    const spoiled = computed.slice(0, 10).map((row) => row.id);
    await withDb(({ db }) =>
      db
        .update(measurements)
        .set({ result: { ...(computed[0]?.result as object), values: { rmssd: 1 } } })
        .where(inArray(measurements.id, spoiled)),
    );
    const plain = await runCli(["measurements-recompute"], env);
    expect(plain.stdout).toContain("0 recomputed");
    const stillSpoiled = (await mine())[0]?.result as { values: { rmssd: number } } | undefined;
    expect(stillSpoiled?.values.rmssd).toBe(1);

    // --all, killed after its first progress line: some rows done, the rest still marked.
    const killed = await runCli(
      ["measurements-recompute", "--all", "--batch", "10"],
      env,
      /10 recomputed to /,
    );
    expect(killed.code).toBeNull();
    expect(killed.stdout).toContain(`every measurement will be recomputed (${ROWS} marked)`);
    const waiting = (await mine()).filter((row) => row.algorithmVersion === RECOMPUTE_REQUESTED);
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.length).toBeLessThan(ROWS);
    // The marked rows keep their numbers meanwhile.
    expect(waiting.every((row) => row.result !== null)).toBe(true);

    // Run again: it continues instead of starting over, and finishes.
    const resumed = await runCli(["measurements-recompute", "--all"], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(
      `continuing the recompute of every measurement (${waiting.length} still waiting)`,
    );
    expect(resumed.stdout).toContain(
      `${waiting.length} recomputed to ${MEASUREMENT_ALGORITHM_VERSION}, 0 stale left`,
    );
    if (backend === "pglite") expect(resumed.stderr).toContain("taking over a stale lock");
    const after = await mine();
    expect(after).toHaveLength(ROWS);
    for (const row of after) {
      expect(row.algorithmVersion).toBe(MEASUREMENT_ALGORITHM_VERSION);
      expect((row.result as { values: { rmssd: number } }).values.rmssd).toBeCloseTo(
        expected(row.rrBreaks) ?? 0,
        9,
      );
    }
  }, 360_000);

  it("answers bad arguments with the usage and 2", async () => {
    for (const args of [["--everything"], ["--batch"], ["--batch", "0"], ["--all", "x"]]) {
      const res = await runCli(["measurements-recompute", ...args], env);
      expect(res.code, args.join(" ")).toBe(2);
      expect(res.stderr).toContain("measurements-recompute [--all]");
    }
  }, 120_000);

  it.runIf(backend === "pglite")(
    "refuses to run while a server holds the data directory's lock, changing nothing",
    async () => {
      await withDb(({ db }) =>
        db
          .update(measurements)
          .set({ algorithmVersion: "old" })
          .where(and(eq(measurements.userId, userId))),
      );
      const release = acquireDataDirLock(dataDir, () => {});
      try {
        const res = await runCli(["measurements-recompute"], env);
        expect(res.code).toBe(1);
        expect(res.stderr).toContain(`in use by another Tonus process (pid ${process.pid})`);
      } finally {
        release();
      }
      expect((await mine()).every((row) => row.algorithmVersion === "old")).toBe(true);
    },
    60_000,
  );
});
