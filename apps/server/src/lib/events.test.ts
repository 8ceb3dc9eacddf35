import type { FastifyInstance } from "fastify";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../app.ts";
import type { Database, Db } from "../db/client.ts";
import { mailOutbox, outboxDeliveries, outboxEvents } from "../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../test/databases.ts";
import { buildTestApp } from "../test/harness.ts";
import type { AppContext } from "./context.ts";
import { type DomainEvent, recordEvents } from "./events.ts";

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for deliveries");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Subscribers whose effect is a row written through the delivery transaction (a mail_outbox row with
 * subject `<subscriber>:<event id>`), plus an in-memory count of calls, failed ones included.
 */
function subscribersModule(
  calls: Map<string, number>,
  failFirstOf: Set<string> = new Set(),
  failWhile: Set<string> = new Set(),
  batchSizes: Map<string, number[]> = new Map(),
) {
  return (_app: FastifyInstance, ctx: AppContext) => {
    for (const name of ["test.first", "test.second"]) {
      ctx.services.events.subscribe({
        name,
        types: ["test.thing_happened"],
        handle: async (tx: Db, events: readonly DomainEvent[]) => {
          batchSizes.set(name, [...(batchSizes.get(name) ?? []), events.length]);
          for (const event of events) {
            const key = `${name}:${event.id}`;
            calls.set(key, (calls.get(key) ?? 0) + 1);
            await tx
              .insert(mailOutbox)
              .values({ to: "effects@example.test", subject: key, text: JSON.stringify(event.payload) });
            const failKey = `${name}:n=${String(event.payload.n)}`;
            if (failFirstOf.has(failKey)) {
              failFirstOf.delete(failKey);
              throw new Error("simulated crash after the effect was written");
            }
            if (failWhile.has(failKey)) throw new Error("simulated failure until the test lifts it");
          }
        },
      });
    }
  };
}

async function effects(database: Database): Promise<string[]> {
  const rows = await database.db.select({ subject: mailOutbox.subject }).from(mailOutbox);
  return rows.map((r) => r.subject).sort();
}

async function emit(app: App, n: number, fail = false): Promise<number> {
  let id = 0;
  await app.ctx.database.db
    .transaction(async (tx) => {
      id = await app.ctx.services.events.emitEvent(tx as unknown as Db, {
        type: "test.thing_happened",
        userId: null,
        payload: { n },
      });
      if (fail) throw new Error("rolled back");
    })
    .catch((error: unknown) => {
      if (!fail) throw error;
    });
  return id;
}

describe.each(BACKENDS)("domain events on %s", (backend) => {
  let database: Database;
  const apps: App[] = [];
  beforeAll(async () => {
    database = await getTestDatabase(backend);
  });
  beforeEach(async () => {
    await resetDatabase(database);
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  async function start(
    calls: Map<string, number>,
    opts: {
      workJobs?: boolean;
      failFirstOf?: Set<string>;
      failWhile?: Set<string>;
      batchSizes?: Map<string, number[]>;
    } = {},
  ) {
    const app = await buildTestApp(
      database,
      {},
      {
        modules: [subscribersModule(calls, opts.failFirstOf, opts.failWhile, opts.batchSizes)],
        workJobs: opts.workJobs,
      },
    );
    apps.push(app);
    return app;
  }

  async function stop(app: App) {
    await app.close();
    apps.splice(apps.indexOf(app), 1);
  }

  it("delivers each committed event to each of two subscribers once, and a rolled-back one to none", async () => {
    const calls = new Map<string, number>();
    const app = await start(calls);
    const a = await emit(app, 1);
    await emit(app, 2, true);
    const b = await emit(app, 3);
    const expected = [`test.first:${a}`, `test.first:${b}`, `test.second:${a}`, `test.second:${b}`];
    await waitFor(async () => (await effects(database)).length >= 4);
    await new Promise((r) => setTimeout(r, 500));
    await app.ctx.services.events.dispatchPending();
    expect(await effects(database)).toEqual(expected);
    expect([...calls.values()].every((c) => c === 1)).toBe(true);
    const stored = await database.db.select().from(outboxEvents);
    expect(stored.map((e) => e.payload)).toEqual([{ n: 1 }, { n: 3 }]);
    expect(await database.db.select().from(outboxDeliveries)).toHaveLength(4);
  });

  it("delivers once an event emitted before a shutdown, by the next instance", async () => {
    const calls = new Map<string, number>();
    const sender = await start(calls, { workJobs: false });
    const id = await emit(sender, 7);
    await stop(sender);
    expect(await effects(database)).toEqual([]);
    await start(calls);
    await waitFor(async () => (await effects(database)).length >= 2);
    expect(await effects(database)).toEqual([`test.first:${id}`, `test.second:${id}`]);
  });

  it("rolls back a subscriber that crashes mid-delivery and delivers it exactly once on retry", async () => {
    const calls = new Map<string, number>();
    const failing = new Set(["test.second:n=9"]);
    const app = await start(calls, { failFirstOf: failing });
    const id = await emit(app, 9);
    await waitFor(async () => (await effects(database)).length >= 2, 30_000);
    expect(await effects(database)).toEqual([`test.first:${id}`, `test.second:${id}`]);
    expect(calls.get(`test.second:${id}`)).toBe(2);
    expect(calls.get(`test.first:${id}`)).toBe(1);
    expect(failing.size).toBe(0);
  });

  it("delivers a burst of events in order, stops at a failing one for that subscriber only, and resumes after it", async () => {
    const calls = new Map<string, number>();
    const failWhile = new Set(["test.second:n=25"]);
    const batchSizes = new Map<string, number[]>();
    const app = await start(calls, { workJobs: false, failWhile, batchSizes });
    await app.ctx.database.db.transaction((tx) =>
      app.ctx.services.events.emitEvents(
        tx as unknown as Db,
        Array.from({ length: 60 }, (_, n) => ({ type: "test.thing_happened", userId: null, payload: { n } })),
      ),
    );
    const ids = (await database.db.select({ id: outboxEvents.id }).from(outboxEvents))
      .map((e) => e.id)
      .sort((a, b) => a - b);
    await expect(app.ctx.services.events.dispatchPending()).rejects.toThrow(/1 subscriber/);
    // All 60 in one transaction for the first; the second's batch failed, then one at a time up to the failure.
    expect(batchSizes.get("test.first")).toEqual([60]);
    expect(batchSizes.get("test.second")).toEqual([60, ...Array(26).fill(1)]);
    const firstPass = await effects(database);
    expect(firstPass.filter((s) => s.startsWith("test.first:"))).toHaveLength(60);
    // The second subscriber got every event before the failing one and none after it.
    expect(firstPass.filter((s) => s.startsWith("test.second:")).sort()).toEqual(
      ids
        .slice(0, 25)
        .map((id) => `test.second:${id}`)
        .sort(),
    );
    failWhile.clear();
    await app.ctx.services.events.dispatchPending();
    const all = await effects(database);
    expect(all).toHaveLength(120);
    expect(new Set(all).size).toBe(120);
    expect(await database.db.select().from(outboxDeliveries)).toHaveLength(120);
  });

  // PGlite runs one transaction at a time: only a server can commit an earlier id after later ones.
  it.runIf(backend === "postgres")(
    "delivers an event whose transaction took its id before later events and committed after them",
    async () => {
      const calls = new Map<string, number>();
      const app = await start(calls, { workJobs: false });
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let earlyId = 0;
      const early = app.ctx.database.db.transaction(async (tx) => {
        earlyId = await app.ctx.services.events.emitEvent(tx as unknown as Db, {
          type: "test.thing_happened",
          userId: null,
          payload: { n: -1 },
        });
        await held;
      });
      while (earlyId === 0) await new Promise((r) => setTimeout(r, 10));
      const later: number[] = [];
      for (let i = 0; i < 5; i++) later.push(await emit(app, i));
      await app.ctx.services.events.dispatchPending();
      expect(await effects(database)).toHaveLength(10);
      expect(Math.min(...later)).toBeGreaterThan(earlyId);
      release();
      await early;
      await app.ctx.services.events.dispatchPending();
      const all = await effects(database);
      expect(all).toContain(`test.first:${earlyId}`);
      expect(all).toContain(`test.second:${earlyId}`);
      expect(all).toHaveLength(12);
    },
  );

  it("delivers exactly once with two instances dispatching at the same time", async () => {
    const calls = new Map<string, number>();
    const one = await start(calls);
    const two = await start(calls);
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.push(await emit(i % 2 ? one : two, i));
    await Promise.all([one.ctx.services.events.dispatchPending(), two.ctx.services.events.dispatchPending()]);
    await waitFor(async () => (await effects(database)).length >= 20);
    const subjects = await effects(database);
    expect(subjects).toHaveLength(20);
    expect(new Set(subjects).size).toBe(20);
    expect([...calls.values()].every((c) => c === 1)).toBe(true);
  });

  it("prunes events past the retention with their deliveries and keeps recent ones", async () => {
    const app = await start(new Map(), { workJobs: false });
    const now = new Date();
    const old = new Date(now.getTime() - 31 * 86_400_000);
    const [stale] = await database.db
      .insert(outboxEvents)
      .values({ type: "test.thing_happened", userId: null, payload: {}, createdAt: old })
      .returning({ id: outboxEvents.id });
    await database.db.insert(outboxDeliveries).values({ eventId: stale?.id ?? 0, subscriber: "test.first" });
    const recent = await emit(app, 1);
    expect(await app.ctx.services.events.pruneOld(now)).toBe(1);
    expect((await database.db.select().from(outboxEvents)).map((e) => e.id)).toEqual([recent]);
    expect(await database.db.select().from(outboxDeliveries)).toEqual([]);
  });

  it("holds an import's events until it releases them, then delivers them though later ones went first", async () => {
    const app = await start(new Map(), { workJobs: false });
    const importId = "3b0f3a8e-6c1d-4e55-9a51-0c6f1f7a2b10";
    const event = (n: number) => ({ type: "test.thing_happened", userId: null, payload: { n } });
    await app.ctx.database.db.transaction((tx) =>
      recordEvents(tx as unknown as Db, [event(1), event(2)], { heldBy: importId }),
    );
    // More events than the dispatcher's look-back window, delivered while the first two are held.
    await app.ctx.database.db.transaction((tx) =>
      recordEvents(
        tx as unknown as Db,
        Array.from({ length: 1_200 }, (_, i) => event(100 + i)),
      ),
    );
    await app.ctx.services.events.dispatchPending();
    const delivered = async () =>
      (await database.db.select({ subject: mailOutbox.subject }).from(mailOutbox)).map((r) => r.subject);
    const held = (await database.db.select().from(outboxEvents))
      .filter((e) => e.heldBy === importId)
      .map((e) => e.id);
    expect(held).toHaveLength(2);
    expect(await delivered()).toHaveLength(2 * 1_200);
    expect((await delivered()).filter((s) => held.some((id) => s.endsWith(`:${id}`)))).toEqual([]);

    await app.ctx.services.events.releaseEvents(importId);
    await app.ctx.services.events.dispatchPending();
    const after = await delivered();
    expect(after).toHaveLength(2 * 1_202);
    for (const id of held)
      expect(after).toEqual(expect.arrayContaining([`test.first:${id}`, `test.second:${id}`]));
    expect((await database.db.select().from(outboxEvents)).every((e) => e.heldBy === null)).toBe(true);
  });

  it("refuses a malformed event type and a subscriber registered twice", async () => {
    const app = await start(new Map());
    await expect(
      app.ctx.database.db.transaction((tx) =>
        app.ctx.services.events.emitEvent(tx as unknown as Db, {
          type: "Bad Type",
          userId: null,
          payload: {},
        }),
      ),
    ).rejects.toThrow(/Invalid event type/);
    expect(() =>
      app.ctx.services.events.subscribe({ name: "test.first", types: ["a.b"], handle: async () => {} }),
    ).toThrow(/twice/);
  });
});
