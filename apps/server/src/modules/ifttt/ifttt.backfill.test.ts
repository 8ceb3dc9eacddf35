import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { bpCategory } from "@tonus/hrv";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { MIGRATIONS_DIR } from "../../db/client.ts";
import { bpReadings, iftttEvents, measurements } from "../../db/schema.ts";
import { exportUserData, importUserData, registryEnv } from "../../lib/registry.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { findClient } from "../oauth/oauth.clients.ts";
import { mintTokenForFixture } from "../oauth/oauth.service.ts";
import { measurementEventData } from "./ifttt.triggers.ts";

const KEY = "ifttt-backfill-service-key-0123456789";
const V1 = "/ifttt/v1";
const RR = Array.from({ length: 40 }, (_, i) => 800 + (i % 5) * 10);
const RESULT = {
  scores: { stress: 71, energy: 18, performance: 44 },
  values: { heart_rate: 66, rmssd: 35.5, sdnn: 40 },
};

/** Every (systolic, diastolic) pair on or beside a category boundary, and a few in between. */
function bpGrid(): [number, number][] {
  const sys = [60, 100, 119, 120, 129, 130, 139, 140, 159, 160, 179, 180, 250, 300];
  const dia = [30, 60, 79, 80, 84, 85, 89, 90, 99, 100, 109, 110, 150, 200];
  return sys.flatMap((s) => dia.filter((d) => d < s).map((d) => [s, d] as [number, number]));
}

/** Migration 0013's statements, as the migrator runs them. */
function backfillStatements(): string[] {
  const file = fs.readdirSync(MIGRATIONS_DIR).find((f) => /^\d{4}_ifttt_events_backfill\.sql$/.test(f));
  if (!file) throw new Error("the backfill migration is missing");
  return fs
    .readFileSync(path.join(MIGRATIONS_DIR, file), "utf8")
    .split("--> statement-breakpoint")
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Trigger events for data that arrived without a domain event: readings and measurements stored before
 * `ifttt_events` existed (migration 0013) and those an archive import restores (issue 9).
 */
describe.each(BACKENDS)("IFTTT trigger backfill on %s", (backend) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(
      await getTestDatabase(backend),
      { IFTTT_SERVICE_KEY: KEY, IFTTT_TEST_MODE: "1" },
      { workJobs: false },
    );
  });
  afterAll(() => app.close());
  beforeEach(() => resetDatabase(app.ctx.database));

  /** A bearer token of `userId` for the IFTTT client (test/setup registers the client). */
  async function tokenOf(userId: string): Promise<Record<string, string>> {
    const setup = await app.inject({
      method: "POST",
      url: `${V1}/test/setup`,
      headers: { "ifttt-service-key": KEY, "content-type": "application/json" },
      payload: "{}",
    });
    expect(setup.statusCode).toBe(200);
    const client = await findClient(app.ctx.database.db, app.ctx.config.IFTTT_CLIENT_ID);
    if (!client) throw new Error("no IFTTT client");
    return { authorization: `Bearer ${await mintTokenForFixture(app.ctx.database.db, client, userId)}` };
  }

  async function poll(auth: Record<string, string>, trigger: string, triggerFields = {}) {
    const res = await app.inject({
      method: "POST",
      url: `${V1}/triggers/${trigger}`,
      headers: { ...auth, "content-type": "application/json" },
      payload: JSON.stringify({ triggerFields, limit: 500, user: { timezone: "UTC" } }),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Record<string, unknown>[];
  }

  async function seed(userId: string) {
    const { db } = app.ctx.database;
    const t0 = Date.parse("2025-03-01T08:00:00Z");
    const grid = bpGrid();
    const readings = await db
      .insert(bpReadings)
      .values(
        grid.map(([systolic, diastolic], i) => ({
          userId,
          systolic,
          diastolic,
          pulse: i % 3 === 0 ? null : 60 + (i % 40),
          measuredAt: new Date(t0 + i * 60_000),
          timeZone: "UTC",
        })),
      )
      .returning();
    const base = { userId, source: "camera", timeZone: "UTC", rrMs: RR } as const;
    const [computed, pending] = await db
      .insert(measurements)
      .values([
        { ...base, clientId: randomUUID(), startedAt: new Date(t0 - 3_600_000), result: RESULT },
        { ...base, clientId: randomUUID(), startedAt: new Date(t0 - 7_200_000), result: null },
      ])
      .returning();
    if (!computed || !pending) throw new Error("no measurements");
    return { readings, computed, pending };
  }

  it("migration 0013 writes the events of earlier readings and measurements, as the live path would", async () => {
    const { db } = app.ctx.database;
    const ann = await createTestUser(app.ctx.database);
    const bob = await createTestUser(app.ctx.database);
    const { readings, computed, pending } = await seed(ann.userId);
    await seed(bob.userId);
    // One reading already has its event (written live after 0004): it is kept as it is.
    const [kept] = readings;
    if (!kept) throw new Error("no reading");
    await db.insert(iftttEvents).values({
      userId: ann.userId,
      kind: "bp_reading",
      sourceId: kept.id,
      occurredAt: kept.measuredAt,
      data: { systolic: 1, diastolic: 1, category: "live" },
    });
    for (const statement of backfillStatements()) await app.ctx.database.query(statement);
    const events = await db.select().from(iftttEvents).where(eq(iftttEvents.userId, ann.userId));
    expect(events).toHaveLength(readings.length + 2);
    for (const r of readings) {
      const e = events.find((x) => x.kind === "bp_reading" && x.sourceId === r.id);
      expect(e?.occurredAt).toEqual(r.measuredAt);
      if (r.id === kept.id) {
        expect(e?.data.category).toBe("live");
        continue;
      }
      // The SQL category is bpCategory's, on every boundary.
      expect(e?.data, `${r.systolic}/${r.diastolic}`).toEqual({
        systolic: r.systolic,
        diastolic: r.diastolic,
        ...(r.pulse === null ? {} : { pulse: r.pulse }),
        category: bpCategory(r.systolic, r.diastolic),
      });
    }
    const m = events.find((x) => x.sourceId === computed.id);
    expect(m).toMatchObject({ kind: "hrv_measurement", occurredAt: computed.startedAt });
    expect(m?.data).toEqual(measurementEventData(RESULT));
    expect(m?.data).toEqual({ stress: 71, energy: 18, performance: 44, heart_rate: 66, rmssd: 35.5 });
    expect(events.find((x) => x.sourceId === pending.id)?.data).toEqual({});
    // Running it again adds nothing.
    const total = (await db.select().from(iftttEvents)).length;
    for (const statement of backfillStatements()) await app.ctx.database.query(statement);
    expect(await db.select().from(iftttEvents)).toHaveLength(total);

    // The triggers now report them, newest first; the pending measurement takes its numbers once computed.
    const auth = await tokenOf(ann.userId);
    const bp = await poll(auth, "new_bp_reading");
    expect(bp).toHaveLength(readings.length);
    expect(bp[0]?.meta).toMatchObject({ id: `new_bp_reading-bp_reading-${readings.at(-1)?.id}` });
    const hrv = await poll(auth, "new_hrv_measurement");
    expect(hrv.map((i) => i.stress)).toEqual([71, ""]);
    expect(await poll(auth, "stress_above", { threshold: "60" })).toHaveLength(1);
    await db
      .update(measurements)
      .set({ result: { scores: { stress: 90, energy: 5 }, values: { heart_rate: 80 } } })
      .where(eq(measurements.id, pending.id));
    expect((await poll(auth, "stress_above", { threshold: "60" })).map((i) => i.stress)).toEqual([71, 90]);
    expect((await poll(auth, "energy_below", { threshold: "10" })).map((i) => i.energy)).toEqual([5]);
    expect(
      (await db.select().from(iftttEvents).where(eq(iftttEvents.sourceId, pending.id)))[0]?.data,
    ).toEqual({ stress: 90, energy: 5, heart_rate: 80 });
  });

  it("an archive import writes the trigger events of the readings and measurements it restores", async () => {
    const { db } = app.ctx.database;
    const ann = await createTestUser(app.ctx.database);
    const { readings } = await seed(ann.userId);
    const archive = await exportUserData(registryEnv(app.ctx), ann.userId);
    // The archive names no ifttt events (they are internal), and an older archive has no ifttt section.
    expect(JSON.stringify(archive.sections.ifttt ?? {})).not.toContain('ifttt_events":[{');
    delete archive.sections.ifttt;
    const bob = await createTestUser(app.ctx.database);
    await importUserData(registryEnv(app.ctx), archive, { asUserId: bob.userId, intoExistingAccount: true });
    const restored = await db.select().from(bpReadings).where(eq(bpReadings.userId, bob.userId));
    const restoredM = await db.select().from(measurements).where(eq(measurements.userId, bob.userId));
    expect(restored).toHaveLength(readings.length);
    expect(restoredM).toHaveLength(2);
    const events = await db.select().from(iftttEvents).where(eq(iftttEvents.userId, bob.userId));
    expect(
      events
        .filter((e) => e.kind === "bp_reading")
        .map((e) => e.sourceId)
        .sort(),
    ).toEqual(restored.map((r) => r.id).sort());
    expect(
      events
        .filter((e) => e.kind === "hrv_measurement")
        .map((e) => e.sourceId)
        .sort(),
    ).toEqual(restoredM.map((m) => m.id).sort());
    for (const r of restored) {
      const e = events.find((x) => x.sourceId === r.id);
      expect(e?.data.category).toBe(bpCategory(r.systolic, r.diastolic));
    }
    const auth = await tokenOf(bob.userId);
    const newest = [...restored].sort((a, b) => b.measuredAt.getTime() - a.measuredAt.getTime())[0];
    expect((await poll(auth, "new_bp_reading"))[0]).toMatchObject({
      systolic: newest?.systolic,
      measured_at: newest?.measuredAt.toISOString().replace(".000Z", "+00:00"),
    });
    // Imported measurements wait for the recompute job; the trigger lists them, and a refused import
    // (into an account that is no longer empty) writes nothing more.
    expect(await poll(auth, "new_hrv_measurement")).toHaveLength(2);
    const before = (await db.select().from(iftttEvents)).length;
    await expect(
      importUserData(registryEnv(app.ctx), archive, { asUserId: bob.userId, intoExistingAccount: true }),
    ).rejects.toMatchObject({ code: "account_not_empty" });
    expect(await db.select().from(iftttEvents)).toHaveLength(before);
  });
});
