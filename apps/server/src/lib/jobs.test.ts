import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../app.ts";
import type { Database, Db } from "../db/client.ts";
import { BACKENDS, getTestDatabase } from "../test/databases.ts";
import { buildTestApp } from "../test/harness.ts";
import type { AppContext } from "./context.ts";
import type { JobRef } from "./jobs.ts";

type Echo = { text: string; n: number };

/** Polls `check` until it holds or `timeoutMs` passes. */
async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the job");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A module defining one job that records what it ran. */
function echoModule(name: string, seen: { data: Echo; retryCount: number }[], failFirst = 0) {
  const refs: { echo?: JobRef<Echo> } = {};
  let failures = 0;
  const register = (_app: FastifyInstance, ctx: AppContext) => {
    refs.echo = ctx.services.jobs.defineJob<Echo>(
      name,
      async (data, run) => {
        if (failures < failFirst) {
          failures++;
          throw new Error("simulated failure");
        }
        seen.push({ data, retryCount: run.retryCount });
      },
      { retryDelay: 0, retryBackoff: false },
    );
  };
  return { register, refs };
}

describe.each(BACKENDS)("background jobs on %s", (backend) => {
  let database: Database;
  const apps: App[] = [];
  beforeAll(async () => {
    database = await getTestDatabase(backend);
  });
  /** Queues the tests created (random names, so reruns never see old jobs); dropped at the end. */
  const queues: string[] = [];
  afterAll(async () => {
    const boss = apps[0]?.ctx.services.jobs.boss;
    for (const name of queues) await boss?.deleteQueue(name);
    await Promise.all(apps.map((app) => app.close()));
  });

  async function start(module: ReturnType<typeof echoModule>, workJobs = true) {
    const app = await buildTestApp(database, {}, { modules: [module.register], workJobs });
    if (module.refs.echo && !queues.includes(module.refs.echo.name)) queues.push(module.refs.echo.name);
    apps.push(app);
    return app;
  }

  it("runs a sent job once with its typed data, and retries a failing one", async () => {
    const seen: { data: Echo; retryCount: number }[] = [];
    const module = echoModule(`test.echo-${randomUUID()}`, seen, 1);
    const app = await start(module);
    expect(app.ctx.services.jobs.started).toBe(true);
    await module.refs.echo?.send({ text: "hello", n: 1 });
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual([{ data: { text: "hello", n: 1 }, retryCount: 1 }]);
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toHaveLength(1);
  });

  it("sends inside a transaction: nothing after a rollback, the job after a commit", async () => {
    const seen: { data: Echo; retryCount: number }[] = [];
    const module = echoModule(`test.tx-${randomUUID()}`, seen);
    const app = await start(module);
    const { db } = app.ctx.database;
    await expect(
      db.transaction(async (tx) => {
        await module.refs.echo?.send({ text: "rolled back", n: 1 }, { tx: tx as unknown as Db });
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    await db.transaction(async (tx) => {
      await module.refs.echo?.send({ text: "committed", n: 2 }, { tx: tx as unknown as Db });
    });
    await waitFor(() => seen.length === 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(seen.map((s) => s.data.text)).toEqual(["committed"]);
  });

  it("keeps a job sent before a shutdown and runs it in the next app instance", async () => {
    const name = `test.restart-${randomUUID()}`;
    const seenBefore: { data: Echo; retryCount: number }[] = [];
    const first = echoModule(name, seenBefore);
    const sender = await start(first, false);
    const id = await first.refs.echo?.send({ text: "survives", n: 3 });
    expect(id).toBeTruthy();
    await sender.close();
    apps.splice(apps.indexOf(sender), 1);
    expect(seenBefore).toEqual([]);
    // A send after shutdown is refused instead of silently reopening anything.
    await expect(first.refs.echo?.send({ text: "late", n: 4 })).rejects.toThrow(/stopped/);

    const seenAfter: { data: Echo; retryCount: number }[] = [];
    await start(echoModule(name, seenAfter));
    await waitFor(() => seenAfter.length === 1);
    expect(seenAfter[0]?.data).toEqual({ text: "survives", n: 3 });
    expect(seenBefore).toEqual([]);
  });

  it("works jobs sent before the app was ready once it starts", async () => {
    const seen: { data: Echo; retryCount: number }[] = [];
    const name = `test.early-${randomUUID()}`;
    queues.push(name);
    let early: Promise<string | null> | undefined;
    const register = (_app: FastifyInstance, ctx: AppContext) => {
      const ref = ctx.services.jobs.defineJob<Echo>(name, async (data, run) => {
        seen.push({ data, retryCount: run.retryCount });
      });
      // A module sending while it registers boots the runner without workers; ready adds them.
      early = ref.send({ text: "early", n: 0 });
    };
    const app = await buildTestApp(database, {}, { modules: [register] });
    apps.push(app);
    expect(await early).toBeTruthy();
    await waitFor(() => seen.length === 1);
    expect(seen[0]?.data.text).toBe("early");
  });

  it("refuses unknown, duplicate and late job definitions", async () => {
    const module = echoModule(`test.dup-${randomUUID()}`, []);
    const app = await start(module);
    const jobs = app.ctx.services.jobs;
    await expect(jobs.send("no.such-job", {})).rejects.toThrow(/Unknown job/);
    expect(() => jobs.defineJob(module.refs.echo?.name ?? "", async () => {})).toThrow(/twice/);
    expect(() => jobs.defineJob("test.too-late", async () => {})).toThrow(/after the job runner started/);
    expect(() => jobs.defineJob("Bad Name!", async () => {})).toThrow(/Invalid job name/);
  });
});
