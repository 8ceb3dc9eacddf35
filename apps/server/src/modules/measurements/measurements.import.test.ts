import { readFileSync } from "node:fs";
import path from "node:path";
import type { MeasurementUpload } from "@tonus/contract";
import { analyzeRr } from "@tonus/hrv";
import { and, asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import type { Db } from "../../db/client.ts";
import { bpReadings, dashboardValuesAll, measurements, outboxEvents } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { createReading, storeReadings } from "../bp/bp.service.ts";
import { storeMeasurements } from "./measurements.import.ts";
import { baselineHistory, earlierBaseline } from "./measurements.repo.ts";
import { createMeasurement } from "./measurements.service.ts";

/**
 * The bulk paths a file import uses (`storeMeasurements`, `storeReadings`) store exactly what the
 * one-at-a-time paths store: the same computed results (baselines from the earlier measurements, the
 * reading taken beside each), the same dashboard values and events, the same refusals.
 */

const FIXTURES = path.resolve(import.meta.dirname, "../../../../../packages/hrv/test/fixtures/rr");
const CLEAN_5MIN = readFileSync(path.join(FIXTURES, "ltdb_14157_clean_5min_rr.csv"), "utf8")
  .split("\n")
  .slice(1)
  .map((line) => Number(line.split(",")[0]))
  .filter((v) => Number.isFinite(v) && v > 0);

let seq = 0;
const uuid = (prefix = "00000000") => `${prefix}-0000-4000-8000-${String(++seq).padStart(12, "0")}`;

/** Ten measurements over twenty days (each series a little different), and readings beside three of them. */
function plan() {
  const start = Date.UTC(2026, 2, 1, 7, 0);
  const uploads: MeasurementUpload[] = Array.from({ length: 10 }, (_, i) => ({
    client_id: uuid("10000000"),
    rr_ms: CLEAN_5MIN.map((v, j) => v + ((i * 7 + j) % 5) - 2),
    source: "watch",
    device: "Watch",
    started_at: new Date(start + i * 2 * 86_400_000 + (i % 3) * 3_600_000).toISOString(),
    time_zone: "Europe/Moscow",
    // One series with breaks (a camera measurement's lost frames): no difference is taken across them.
    ...(i === 2 ? { rr_breaks: [10, 50] } : {}),
    // Tags and labels that an array literal would have to quote, and what the person said.
    ...(i === 3
      ? {
          tags: ["утро", 'say "hi"', "{braces}", "NULL", "back\\slash", "😀", "утро"],
          labels: ["a b", "x"],
          feel: 4,
          mood: 2,
        }
      : {}),
  }));
  const readings = [1, 4, 8].map((i, k) => ({
    client_id: uuid("20000000"),
    systolic: 118 + k * 6,
    diastolic: 76 + k * 2,
    pulse: 60 + k,
    measured_at: new Date(Date.parse(uploads[i]?.started_at ?? "") + (k - 1) * 600_000).toISOString(),
    time_zone: "Europe/Moscow",
  }));
  return { uploads, readings };
}

describe.each(BACKENDS)("bulk measurements and readings on %s", (backend) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => resetDatabase(app.ctx.database));
  const inTx = <T>(work: (tx: Db) => Promise<T>) =>
    app.ctx.database.db.transaction((tx) => work(tx as unknown as Db));

  async function stored(userId: string) {
    const db = app.ctx.database.db;
    const rows = await db
      .select()
      .from(measurements)
      .where(eq(measurements.userId, userId))
      .orderBy(asc(measurements.startedAt));
    const values = await db
      .select({
        metric: dashboardValuesAll.metric,
        at: dashboardValuesAll.at,
        value: dashboardValuesAll.value,
      })
      .from(dashboardValuesAll)
      .where(eq(dashboardValuesAll.userId, userId));
    const events = await db.select().from(outboxEvents).where(eq(outboxEvents.userId, userId));
    const readingIds = new Map(
      (await db.select().from(bpReadings).where(eq(bpReadings.userId, userId))).map((r) => [
        r.id,
        r.clientId,
      ]),
    );
    const results = rows.map((r) => {
      const result = r.result as { bp: { reading_id: string } | null } | null;
      // Ids differ between the two people: the reading is compared by its client id.
      const bp = result?.bp ? { ...result.bp, reading_id: readingIds.get(result.bp.reading_id) } : null;
      const { id: _id, userId: _user, createdAt: _created, updatedAt: _updated, bpReadingId, ...rest } = r;
      return {
        ...rest,
        bpReadingId: bpReadingId === null ? null : readingIds.get(bpReadingId),
        result: { ...result, bp },
      };
    });
    const byKey = (a: { metric: string; at: Date }, b: { metric: string; at: Date }) =>
      a.at.getTime() - b.at.getTime() || a.metric.localeCompare(b.metric);
    return {
      results,
      values: values.sort(byKey),
      events: events.map((e) => e.type).sort(),
    };
  }

  it("computes each measurement as the one-at-a-time path does, in two batches, analysed beforehand or not", async () => {
    const one = await createTestUser(app.ctx.database, { dateOfBirth: "1985-04-12", heightCm: 180 });
    const two = await createTestUser(app.ctx.database, { dateOfBirth: "1985-04-12", heightCm: 180 });
    const { uploads, readings } = plan();
    const now = new Date(Date.UTC(2026, 5, 1));
    for (const r of readings) await createReading(app.ctx, one.userId, r);
    for (const u of uploads) await createMeasurement(app.ctx, one.userId, u, now);

    const created = await inTx((tx) => storeReadings(app.ctx, tx, two.userId, readings));
    expect(created).toEqual([true, true, true]);
    // Out of time order and in two calls: each is computed with the earlier ones as its baseline.
    const shuffled = [...uploads.slice(0, 6)].reverse();
    const first = await inTx((tx) => storeMeasurements(app.ctx, tx, two.userId, shuffled, { now }));
    // The second with each series analysed beforehand, as an import's reader thread does.
    const rest = uploads.slice(6);
    const analyses = rest.map((u) => analyzeRr(u.rr_ms, { breaks: u.rr_breaks ?? [] }));
    const second = await inTx((tx) => storeMeasurements(app.ctx, tx, two.userId, rest, { now, analyses }));
    expect([...first, ...second].every((o) => o.status === "created")).toBe(true);

    const a = await stored(one.userId);
    const b = await stored(two.userId);
    expect(b.results).toEqual(a.results);
    expect(b.results.filter((r) => r.result.bp !== null)).toHaveLength(3);
    expect(b.values).toEqual(a.values);
    expect(b.events).toEqual(a.events);
  });

  it("answers existing, refused and new per upload, and stores a repeated client id once", async () => {
    const user = await createTestUser(app.ctx.database);
    const { uploads } = plan();
    const now = new Date(Date.UTC(2026, 5, 1));
    const [first, second, third] = uploads as [MeasurementUpload, MeasurementUpload, MeasurementUpload];
    await inTx((tx) => storeMeasurements(app.ctx, tx, user.userId, [first], { now }));
    const outcomes = await inTx((tx) =>
      storeMeasurements(
        app.ctx,
        tx,
        user.userId,
        [
          first,
          { ...first, rr_ms: CLEAN_5MIN },
          { ...second, started_at: "2026-06-03T00:00:00Z" },
          { ...second, client_id: uuid(), started_at: "1999-12-31T00:00:00Z" },
          { ...second, client_id: uuid(), rr_ms: [800, 810, 805] },
          { ...second, client_id: uuid(), rr_breaks: [CLEAN_5MIN.length] },
          third,
          third,
        ],
        { now },
      ),
    );
    expect(outcomes).toEqual([
      { status: "existing" },
      { status: "refused", reason: "This client_id already names another measurement" },
      { status: "refused", reason: "The measurement's start lies in the future" },
      { status: "refused", reason: "The measurement's start is before the year 2000" },
      { status: "refused", reason: "The RR series has too few valid intervals" },
      { status: "refused", reason: "A break lies past the end of the RR series" },
      { status: "created" },
      { status: "existing" },
    ]);
    const rows = await app.ctx.database.db
      .select({ clientId: measurements.clientId })
      .from(measurements)
      .where(eq(measurements.userId, user.userId));
    expect(rows.map((r) => r.clientId).sort()).toEqual([first.client_id, third.client_id].sort());
  });

  it("reads a baseline's numbers from columns that follow each stored result", async () => {
    const user = await createTestUser(app.ctx.database);
    const { uploads } = plan();
    await inTx((tx) =>
      storeMeasurements(app.ctx, tx, user.userId, uploads, { now: new Date(Date.UTC(2026, 5, 1)) }),
    );
    const db = app.ctx.database.db;
    const fromResults = async () =>
      (
        await db
          .select({ startedAt: measurements.startedAt, result: measurements.result })
          .from(measurements)
          .where(eq(measurements.userId, user.userId))
          .orderBy(asc(measurements.startedAt))
      ).map((r) => {
        const v = (r.result as { values: Record<string, number | null> }).values;
        return { startedAt: r.startedAt, rmssd: v.rmssd, psi: v.psi, heartRate: v.heart_rate };
      });
    const end = new Date(Date.UTC(2027, 0, 1));
    const all = () => baselineHistory(db, user.userId, { first: end, last: end, days: 3650, limit: 500 });
    const expected = await fromResults();
    expect(expected.every((e) => typeof e.rmssd === "number" && typeof e.psi === "number")).toBe(true);
    const asHistory = ({ startedAt, ...e }: (typeof expected)[number]) => ({
      timeMs: startedAt.getTime(),
      ...e,
    });
    expect(await all()).toEqual(expected.map(asHistory));
    // A recomputed result (here edited in place) moves the numbers with it; a measurement without a
    // result (an archive import's, until recomputed) is no baseline.
    const [first, second] = await db
      .select({ id: measurements.id })
      .from(measurements)
      .where(eq(measurements.userId, user.userId))
      .orderBy(asc(measurements.startedAt));
    await db.execute(sql`
      update measurements set result = jsonb_set(result, '{values,rmssd}', '12.5'::jsonb)
      where id = ${first?.id}`);
    await db.execute(sql`update measurements set result = null where id = ${second?.id}`);
    const now = await all();
    expect(now[0]?.rmssd).toBe(12.5);
    expect(now).toHaveLength(expected.length - 1);
    // Before `first`, the latest `limit`; from `first` to `last`, all.
    const at = (i: number) => expected[i]?.startedAt as Date;
    expect(
      await baselineHistory(db, user.userId, { first: at(3), last: at(7), days: 3650, limit: 1 }),
    ).toEqual(expected.slice(2, 7).map(asHistory));
    expect(
      await earlierBaseline(db, {
        userId: user.userId,
        before: new Date(Date.UTC(2027, 0, 1)),
        days: 3650,
        exceptId: first?.id ?? null,
        limit: 3,
      }),
    ).toEqual(expected.slice(-3).reverse());
  });

  it("stores readings once by client id, with their dashboard values and events", async () => {
    const user = await createTestUser(app.ctx.database);
    const { readings } = plan();
    const [a, b] = readings as [(typeof readings)[number], (typeof readings)[number]];
    expect(await inTx((tx) => storeReadings(app.ctx, tx, user.userId, [a, a]))).toEqual([true, false]);
    expect(await inTx((tx) => storeReadings(app.ctx, tx, user.userId, [a, b]))).toEqual([false, true]);
    const db = app.ctx.database.db;
    expect(await db.select().from(bpReadings).where(eq(bpReadings.userId, user.userId))).toHaveLength(2);
    const values = await db
      .select()
      .from(dashboardValuesAll)
      .where(and(eq(dashboardValuesAll.userId, user.userId), eq(dashboardValuesAll.source, "bp_log")));
    // Systolic, diastolic and pulse of each reading.
    expect(values).toHaveLength(6);
    const events = await db.select().from(outboxEvents).where(eq(outboxEvents.userId, user.userId));
    expect(events.map((e) => e.type)).toEqual(["bp.reading_added", "bp.reading_added"]);
  });
});
