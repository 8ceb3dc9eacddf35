import { eq, sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import type { Db } from "../../db/client.ts";
import { dashboardSamples, dashboardValues, dashboardValuesAll, users } from "../../db/schema.ts";
import { deleteUserData, registryEnv } from "../../lib/registry.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { ValueBatchBuilder } from "./dashboard-values.batch.ts";
import { SampleBatchBuilder } from "./dashboard-values.samples.ts";
import {
  type DashboardValue,
  holdValueWrites,
  recordSampleBatch,
  recordValueBatch,
  recordValues,
  refreshSummaryZone,
  removeValues,
} from "./dashboard-values.service.ts";

const RUNS = process.env.TONUS_HEAVY ? 300 : 25;

/** The same values as a batch of samples (the bulk store's path); the first one counted. */
function samplesOf(values: readonly DashboardValue[]) {
  const builder = new SampleBatchBuilder();
  values.forEach((v, i) => {
    builder.add(v.metric, v.at.getTime(), v.value, v.source, v.clientId, i === 0);
  });
  return builder.build();
}

/** The same values through the bulk path (encoded, copied to the staging table); the first one counted. */
function batchOf(values: readonly DashboardValue[]) {
  const builder = new ValueBatchBuilder();
  values.forEach((v, i) => {
    builder.add(
      { metric: v.metric, atMs: v.at.getTime(), value: v.value, source: v.source, clientId: v.clientId },
      i === 0,
    );
  });
  return builder.build();
}

type Summary = {
  metric: string;
  day: string;
  source: string;
  n: number;
  sum: number;
  min: number;
  max: number;
  last_value: number;
};

/** The summaries as stored, and as a from-scratch aggregation of the raw rows in `tz` would give them. */
async function summaries(db: Db, userId: string, tz: string) {
  const norm = (rows: Summary[]) =>
    rows
      .map((r) => ({ ...r, n: Number(r.n), sum: Math.round(r.sum * 1e6) / 1e6 }))
      .sort((a, b) => `${a.metric}${a.day}${a.source}`.localeCompare(`${b.metric}${b.day}${b.source}`));
  const stored = (await db.execute(sql`
    select metric, day::text as day, source, n, sum, min, max, last_value from dashboard_daily
    where user_id = ${userId}`)) as unknown as { rows: Summary[] };
  const fresh = (await db.execute(sql`
    select metric, (at at time zone ${tz})::date::text as day, source, count(*) as n, sum(value) as sum,
      min(value) as min, max(value) as max, (array_agg(value order by at desc, value desc))[1] as last_value
    from (
      select metric, at, value, source from dashboard_values where user_id = ${userId}
      union all
      select d.metric, timestamptz 'epoch' + u.a * interval '1 millisecond', u.v, d.source
      from dashboard_samples d cross join lateral unnest(d.at_ms, d.vals) as u(a, v) where d.user_id = ${userId}
    ) x group by 1, 2, 3`)) as unknown as { rows: Summary[] };
  return { stored: norm(stored.rows), fresh: norm(fresh.rows) };
}

describe.each(BACKENDS)("dashboard value write path on %s", (backend) => {
  let app: App;
  let db: Db;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
    db = app.ctx.database.db;
  });
  afterAll(() => app.close());
  beforeEach(async () => resetDatabase(app.ctx.database));

  const inTx = <T>(work: (tx: Db) => Promise<T>) => db.transaction((tx) => work(tx as unknown as Db));

  it("is idempotent by (user, source, client id), skips non-finite values and removes by client id", async () => {
    const a = await createTestUser(app.ctx.database);
    const b = await createTestUser(app.ctx.database);
    const at = new Date("2026-11-20T07:00:00Z");
    const value = (v: number, clientId = "w1") => ({
      metric: "weight",
      at,
      value: v,
      source: "manual",
      clientId,
    });
    expect(await recordValues(db, a.userId, [value(80), value(Number.NaN, "w2")])).toBe(1);
    expect(await recordValues(db, a.userId, [value(80)])).toBe(0);
    expect(await recordValues(db, a.userId, [value(79.5)])).toBe(1);
    await recordValues(db, b.userId, [value(60)]);
    await recordValues(db, a.userId, [{ ...value(80), source: "apple_health" }]);
    const rows = await db.select().from(dashboardValues);
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.userId === a.userId && r.source === "manual")?.value).toBe(79.5);
    await removeValues(db, a.userId, "manual", ["w1"]);
    const left = await db.select().from(dashboardValues);
    expect(left.map((r) => `${r.userId === a.userId ? "a" : "b"}:${r.source}`).sort()).toEqual([
      "a:apple_health",
      "b:manual",
    ]);
    await expect(recordValues(db, a.userId, [{ ...value(1), metric: "Weight; drop" }])).rejects.toThrow();
    const { stored, fresh } = await summaries(db, a.userId, "UTC");
    expect(stored).toEqual(fresh);
  });

  it("keeps the daily summaries equal to a fresh aggregation through any writes, edits and removals, by either path", async () => {
    const user = await createTestUser(app.ctx.database, { timezone: "Europe/Moscow" });
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("write" as const),
        path: fc.constantFrom("values", "bulk", "samples"),
        plainInsertFirst: fc.boolean(),
        values: fc.array(
          fc.record({
            metric: fc.constantFrom("steps", "weight", "heart_rate"),
            source: fc.constantFrom("manual", "garmin", "apple_health.watch"),
            clientId: fc.integer({ min: 0, max: 12 }).map(String),
            hour: fc.integer({ min: 0, max: 24 * 6 }),
            value: fc.double({ min: -1000, max: 1000, noNaN: true }),
          }),
          { maxLength: 8 },
        ),
      }),
      fc.record({
        kind: fc.constant("remove" as const),
        source: fc.constantFrom("manual", "garmin"),
        clientIds: fc.array(fc.integer({ min: 0, max: 12 }).map(String), { maxLength: 4 }),
      }),
      fc.record({
        kind: fc.constant("zone" as const),
        tz: fc.constantFrom("UTC", "America/New_York", "Asia/Tokyo"),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        await db.delete(dashboardValues).where(eq(dashboardValues.userId, user.userId));
        await db.delete(dashboardSamples).where(eq(dashboardSamples.userId, user.userId));
        await inTx((tx) => refreshSummaryZone(tx, user.userId));
        await db.execute(sql`delete from dashboard_daily where user_id = ${user.userId}`);
        let tz =
          (await db.select({ tz: users.timezone }).from(users).where(eq(users.id, user.userId)))[0]?.tz ??
          "UTC";
        for (const o of ops) {
          if (o.kind === "write") {
            const values: DashboardValue[] = o.values.map((v) => ({
              metric: v.metric,
              source: v.source,
              clientId: v.clientId,
              at: new Date(Date.UTC(2026, 2, 6) + v.hour * 3_600_000),
              value: v.value,
            }));
            if (o.path === "bulk")
              await inTx((tx) =>
                recordValueBatch(tx, user.userId, batchOf(values), { plainInsertFirst: o.plainInsertFirst }),
              );
            else if (o.path === "samples")
              await inTx((tx) => recordSampleBatch(tx, user.userId, samplesOf(values)));
            else await inTx((tx) => recordValues(tx, user.userId, values));
          } else if (o.kind === "remove") {
            await inTx((tx) => removeValues(tx, user.userId, o.source, o.clientIds));
          } else {
            tz = o.tz;
            await inTx(async (tx) => {
              await tx.update(users).set({ timezone: tz }).where(eq(users.id, user.userId));
              await refreshSummaryZone(tx, user.userId);
            });
          }
        }
        const { stored, fresh } = await summaries(db, user.userId, tz);
        expect(stored).toEqual(fresh);
        await expectSoundBlocks(user.userId);
      }),
      { numRuns: RUNS },
    );
  }, 180_000);

  it("counts values into the person's local days across daylight-saving changes (F10)", async () => {
    const ny = await createTestUser(app.ctx.database, { timezone: "America/New_York" });
    const msk = await createTestUser(app.ctx.database, { timezone: "Europe/Moscow" });
    // 23:30 local on the days around both 2026 clock changes in New York, and the same instants in Moscow.
    const instants = [
      "2026-03-08T04:30:00Z", // 7 March 23:30 EST
      "2026-03-09T03:30:00Z", // 8 March 23:30 EDT (a 23-hour day)
      "2026-11-01T03:30:00Z", // 31 October 23:30 EDT
      "2026-11-02T04:30:00Z", // 1 November 23:30 EST (a 25-hour day)
    ];
    for (const user of [ny, msk])
      await recordValues(
        db,
        user.userId,
        instants.map((at, i) => ({
          metric: "steps",
          at: new Date(at),
          value: 100,
          source: "manual",
          clientId: `s${i}`,
        })),
      );
    const days = async (userId: string) =>
      (
        (await db.execute(
          sql`select day::text as day from dashboard_daily where user_id = ${userId} order by day`,
        )) as unknown as { rows: { day: string }[] }
      ).rows.map((r) => r.day);
    expect(await days(ny.userId)).toEqual(["2026-03-07", "2026-03-08", "2026-10-31", "2026-11-01"]);
    expect(await days(msk.userId)).toEqual(["2026-03-08", "2026-03-09", "2026-11-01", "2026-11-02"]);
  });

  it("writes a bulk batch as recordValues writes the same values: new, repeated, changed and skipped", async () => {
    const one = await createTestUser(app.ctx.database, { timezone: "America/New_York" });
    const two = await createTestUser(app.ctx.database, { timezone: "America/New_York" });
    const at = (h: number) => new Date(Date.UTC(2026, 2, 7, 20) + h * 3_600_000);
    const first: DashboardValue[] = [
      { metric: "steps", at: at(0), value: 100, source: "apple_health", clientId: "a" },
      { metric: "steps", at: at(1), value: 200, source: "apple_health", clientId: "b" },
      { metric: "steps", at: at(9), value: 300, source: "apple_health", clientId: "c" },
      { metric: "steps", at: at(2), value: Number.NaN, source: "apple_health", clientId: "nan" },
      { metric: "heart_rate", at: at(3), value: 61, source: "garmin", clientId: "tab\there\\\n" },
    ];
    // "b" repeated (the last wins), "c" moved across the DST night to another day, "a" unchanged.
    const second: DashboardValue[] = [
      { metric: "steps", at: at(0), value: 100, source: "apple_health", clientId: "a" },
      { metric: "steps", at: at(1), value: 250, source: "apple_health", clientId: "b" },
      { metric: "steps", at: at(1), value: 260, source: "apple_health", clientId: "b" },
      { metric: "steps", at: at(30), value: 300, source: "apple_health", clientId: "c" },
      { metric: "steps", at: at(4), value: 5, source: "apple_health", clientId: "d" },
    ];
    const viaValues = [
      await inTx((tx) => recordValues(tx, one.userId, first)),
      await inTx((tx) => recordValues(tx, one.userId, second)),
      await inTx((tx) => recordValues(tx, one.userId, second)),
    ];
    // The first batch by the plain insert; the others try it too, find keys stored and take `on conflict`.
    const plainInsertFirst = { plainInsertFirst: true };
    const viaBatch = [
      await inTx((tx) => recordValueBatch(tx, two.userId, batchOf(first), plainInsertFirst)),
      await inTx((tx) => recordValueBatch(tx, two.userId, batchOf(second), plainInsertFirst)),
      await inTx((tx) => recordValueBatch(tx, two.userId, batchOf(second), plainInsertFirst)),
    ];
    expect(viaBatch.map((r) => r.written)).toEqual(viaValues);
    expect(viaBatch.map((r) => r.newCounted)).toEqual([1, 0, 0]);
    expect(viaBatch.map((r) => r.foundStored)).toEqual([false, true, true]);
    const stored = async (userId: string) =>
      (
        await db
          .select({
            metric: dashboardValues.metric,
            at: dashboardValues.at,
            value: dashboardValues.value,
            source: dashboardValues.source,
            clientId: dashboardValues.clientId,
          })
          .from(dashboardValues)
          .where(eq(dashboardValues.userId, userId))
      ).sort((a, b) => a.clientId.localeCompare(b.clientId));
    expect(await stored(two.userId)).toEqual(await stored(one.userId));
    expect((await stored(two.userId)).map((r) => r.clientId)).toContain("tab\there\\\n");
    const a = await summaries(db, one.userId, "America/New_York");
    const b = await summaries(db, two.userId, "America/New_York");
    expect(b.stored).toEqual(b.fresh);
    expect(b.stored).toEqual(a.stored);
  });

  /** A user's stored values from both stores, comparable across users. */
  const storedOf = async (userId: string) =>
    (
      await db
        .select({
          metric: dashboardValuesAll.metric,
          at: dashboardValuesAll.at,
          value: dashboardValuesAll.value,
          source: dashboardValuesAll.source,
          clientId: dashboardValuesAll.clientId,
        })
        .from(dashboardValuesAll)
        .where(eq(dashboardValuesAll.userId, userId))
    ).sort((a, b) => `${a.source}${a.clientId}`.localeCompare(`${b.source}${b.clientId}`));

  /** Every block of the user: arrays of its length, ascending by time then key bytes, each key once. */
  const expectSoundBlocks = async (userId: string) => {
    const blocks = await db.select().from(dashboardSamples).where(eq(dashboardSamples.userId, userId));
    for (const b of blocks) {
      expect([b.atMs.length, b.vals.length, b.keys.length]).toEqual([b.n, b.n, b.n]);
      expect(new Set(b.keys).size).toBe(b.n);
      const order = b.atMs.map((at, i) => ({ at: Number(at), key: Buffer.from(b.keys[i] as string) }));
      const sorted = [...order].sort((x, y) => x.at - y.at || Buffer.compare(x.key, y.key));
      expect(order).toEqual(sorted);
      for (const at of b.atMs) expect(new Date(Number(at)).toISOString().slice(0, 10)).toBe(b.day);
    }
  };

  it("writes samples as recordValues writes the same values: new, repeated, changed and skipped", async () => {
    const one = await createTestUser(app.ctx.database, { timezone: "America/New_York" });
    const two = await createTestUser(app.ctx.database, { timezone: "America/New_York" });
    const at = (h: number) => new Date(Date.UTC(2026, 2, 7, 1) + h * 3_600_000);
    const first: DashboardValue[] = [
      { metric: "steps", at: at(0), value: 100, source: "apple_health", clientId: "a" },
      { metric: "steps", at: at(1), value: 200, source: "apple_health", clientId: "b" },
      { metric: "steps", at: at(2), value: 300, source: "apple_health", clientId: "c" },
      { metric: "steps", at: at(2), value: Number.NaN, source: "apple_health", clientId: "nan" },
      { metric: "heart_rate", at: at(3), value: 61, source: "garmin", clientId: "tab\there\\\n" },
    ];
    // "b" repeated (the last wins), "c" later on its UTC day and on New York's next day, "a" unchanged.
    const second: DashboardValue[] = [
      { metric: "steps", at: at(0), value: 100, source: "apple_health", clientId: "a" },
      { metric: "steps", at: at(1), value: 250, source: "apple_health", clientId: "b" },
      { metric: "steps", at: at(1), value: 260, source: "apple_health", clientId: "b" },
      { metric: "steps", at: at(22), value: 300, source: "apple_health", clientId: "c" },
      { metric: "steps", at: at(4), value: 5, source: "apple_health", clientId: "d" },
    ];
    const viaValues = [
      await inTx((tx) => recordValues(tx, one.userId, first)),
      await inTx((tx) => recordValues(tx, one.userId, second)),
      await inTx((tx) => recordValues(tx, one.userId, second)),
    ];
    const viaSamples = [
      await inTx((tx) => recordSampleBatch(tx, two.userId, samplesOf(first))),
      await inTx((tx) => recordSampleBatch(tx, two.userId, samplesOf(second))),
      await inTx((tx) => recordSampleBatch(tx, two.userId, samplesOf(second))),
    ];
    expect(viaSamples.map((r) => r.written)).toEqual(viaValues);
    expect(viaSamples.map((r) => r.newCounted)).toEqual([1, 0, 0]);
    expect(viaSamples.map((r) => r.foundStored)).toEqual([false, true, true]);
    expect(await storedOf(two.userId)).toEqual(await storedOf(one.userId));
    expect(await db.select().from(dashboardValues).where(eq(dashboardValues.userId, two.userId))).toEqual([]);
    const a = await summaries(db, one.userId, "America/New_York");
    const b = await summaries(db, two.userId, "America/New_York");
    expect(b.stored).toEqual(b.fresh);
    expect(b.stored).toEqual(a.stored);
  });

  it("appends a day's later samples to its block, for keys that fix their time, as a merge would store them", async () => {
    // Keys hold their sample's metric and minute, as an importer's do; batches come in any order, overlap
    // and repeat, some with a later value of a key they share.
    const sample = fc.record({
      metric: fc.constantFrom("steps", "heart_rate"),
      minute: fc.integer({ min: 0, max: 3 * 24 * 4 }).map((q) => q * 15),
      value: fc.integer({ min: 0, max: 200 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(sample, { maxLength: 30 }), { minLength: 1, maxLength: 6 }),
        async (batches) => {
          const [a, b] = [
            await createTestUser(app.ctx.database, { timezone: "Asia/Tokyo" }),
            await createTestUser(app.ctx.database, { timezone: "Asia/Tokyo" }),
          ];
          for (const batch of batches) {
            const values = batch.map((x) => ({
              metric: x.metric,
              at: new Date(Date.UTC(2026, 4, 1) + x.minute * 60_000),
              value: x.value,
              source: "fit",
              clientId: `${x.metric}:${x.minute}`,
            }));
            const viaValues = await inTx((tx) => recordValues(tx, a.userId, values));
            const viaSamples = await inTx((tx) =>
              recordSampleBatch(tx, b.userId, samplesOf(values), { keysFixTime: true }),
            );
            expect(viaSamples.written).toBe(viaValues);
          }
          expect(await storedOf(b.userId)).toEqual(await storedOf(a.userId));
          await expectSoundBlocks(b.userId);
          const sa = await summaries(db, a.userId, "Asia/Tokyo");
          const sb = await summaries(db, b.userId, "Asia/Tokyo");
          expect(sb.stored).toEqual(sb.fresh);
          expect(sb.stored).toEqual(sa.stored);
        },
      ),
      { numRuns: RUNS },
    );
  }, 180_000);

  it("stores a key once across both stores, whichever path brings it again, and removes it from either", async () => {
    const user = await createTestUser(app.ctx.database, { timezone: "Europe/Moscow" });
    const at = new Date("2026-11-20T07:00:00Z");
    const v = (clientId: string, value: number, source = "garmin"): DashboardValue => ({
      metric: "heart_rate",
      at,
      value,
      source,
      clientId,
    });
    // "api" is written one value at a time first, "imported" by an import's batch first.
    await inTx((tx) => recordValues(tx, user.userId, [v("api", 60)]));
    await inTx((tx) => recordSampleBatch(tx, user.userId, samplesOf([v("imported", 70)])));
    const again = await inTx((tx) =>
      recordSampleBatch(tx, user.userId, samplesOf([v("api", 61), v("new", 80)])),
    );
    expect(again).toEqual({ written: 2, newCounted: 0, foundStored: true });
    expect(await inTx((tx) => recordValues(tx, user.userId, [v("imported", 71)]))).toBe(1);
    expect(await inTx((tx) => recordValues(tx, user.userId, [v("imported", 71)]))).toBe(0);
    const rows = await db.select().from(dashboardValues).where(eq(dashboardValues.userId, user.userId));
    expect(rows.map((r) => [r.clientId, r.value])).toEqual([["api", 61]]);
    expect((await storedOf(user.userId)).map((r) => [r.clientId, r.value])).toEqual([
      ["api", 61],
      ["imported", 71],
      ["new", 80],
    ]);
    let { stored, fresh } = await summaries(db, user.userId, "Europe/Moscow");
    expect(stored).toEqual(fresh);
    expect(stored[0]).toMatchObject({ n: 3, sum: 212 });
    // Removed from wherever they are; a block left empty goes.
    await inTx((tx) => removeValues(tx, user.userId, "garmin", ["imported", "api"]));
    expect((await storedOf(user.userId)).map((r) => r.clientId)).toEqual(["new"]);
    await inTx((tx) => removeValues(tx, user.userId, "garmin", ["new"]));
    expect(await db.select().from(dashboardSamples).where(eq(dashboardSamples.userId, user.userId))).toEqual(
      [],
    );
    ({ stored, fresh } = await summaries(db, user.userId, "Europe/Moscow"));
    expect(stored).toEqual([]);
    expect(fresh).toEqual([]);
  });

  it("counts samples into the local days PostgreSQL gives, in zones with odd offsets and changes", async () => {
    // Changes at midnight (Santiago), by half an hour (Lord Howe), +05:45 (Kathmandu), a day skipped (Apia
    // 2011-12-30), the widest offsets (Kiritimati +14, Niue -11), and the first and last years stored.
    const spans: [string, number, number][] = [
      ["America/Santiago", Date.UTC(2026, 3, 4, 0), Date.UTC(2026, 3, 6, 0)],
      ["America/Santiago", Date.UTC(2026, 8, 5, 0), Date.UTC(2026, 8, 7, 0)],
      ["Australia/Lord_Howe", Date.UTC(2026, 3, 4, 12), Date.UTC(2026, 3, 5, 18)],
      ["Asia/Kathmandu", Date.UTC(2026, 0, 1, 0), Date.UTC(2026, 0, 2, 6)],
      ["Pacific/Apia", Date.UTC(2011, 11, 29, 0), Date.UTC(2011, 11, 31, 12)],
      ["Pacific/Kiritimati", Date.UTC(2026, 5, 1, 0), Date.UTC(2026, 5, 2, 12)],
      ["Pacific/Niue", Date.parse("0001-01-01T00:00:00Z"), Date.parse("0001-01-02T00:00:00Z")],
      // Detroit left its local mean time (-05:32:11) at 05:32:11 UTC, inside a quarter hour, back to the
      // day before.
      ["America/Detroit", Date.parse("1905-01-01T05:00:00Z"), Date.parse("1905-01-01T06:30:00Z")],
      ["Pacific/Kiritimati", Date.parse("9999-12-30T12:00:00Z"), Date.parse("9999-12-31T23:59:59.999Z")],
    ];
    for (const [tz, from, to] of spans) {
      const user = await createTestUser(app.ctx.database, { timezone: tz });
      const values: DashboardValue[] = [];
      // Every 7 minutes and 13 seconds, and each of a few instants either side of every quarter hour.
      for (let t = from, i = 0; t <= to; t += 433_000, i++)
        values.push({ metric: "steps", at: new Date(t), value: i % 17, source: "fit", clientId: `s${i}` });
      for (let q = Math.ceil(from / 900_000) * 900_000; q <= to; q += 900_000)
        for (const d of [-1, 0, 1])
          if (q + d >= from && q + d <= to)
            values.push({
              metric: "steps",
              at: new Date(q + d),
              value: 1,
              source: "fit",
              clientId: `q${q + d}`,
            });
      await inTx((tx) => recordSampleBatch(tx, user.userId, samplesOf(values)));
      const { stored, fresh } = await summaries(db, user.userId, tz);
      expect(stored, tz).toEqual(fresh);
      expect(stored.reduce((n, s) => n + s.n, 0)).toBe(values.length);
    }
  });

  it("refuses a bulk value with an invalid metric or source key, as recordValues does", () => {
    const builder = new ValueBatchBuilder();
    const v = { metric: "steps", atMs: Date.UTC(2026, 0, 1), value: 1, source: "fit", clientId: "x" };
    expect(() => builder.add({ ...v, metric: "Steps; drop" }, true)).toThrow();
    expect(() => builder.add({ ...v, source: "A b" }, true)).toThrow();
    expect(builder.add({ ...v, atMs: Number.NaN }, true)).toBe(false);
    expect(builder.add({ ...v, atMs: Date.UTC(20000, 0, 1) }, true)).toBe(false);
    expect(builder.add(v, true)).toBe(true);
    expect(builder.build()).toMatchObject({ rows: 1, counted: 1, repeatedCounted: 0 });
  });

  it("encodes rows in the order their keys came, a repeated key in its first place with its last value", () => {
    const builder = new ValueBatchBuilder();
    const at = Date.UTC(2026, 0, 1);
    const row = (metric: string, value: number, source: string, clientId: string, counted: boolean) =>
      `${metric}\t${new Date(at).toISOString()}\t${value}\t${source}\t${clientId}\t${counted ? "t" : "f"}\n`;
    builder.add({ metric: "steps", atMs: at, value: 1, source: "fit", clientId: "a" }, true);
    builder.add({ metric: "steps", atMs: at, value: 2, source: "fit", clientId: "b\tß\\" }, false);
    builder.add({ metric: "steps", atMs: at, value: 3, source: "csv", clientId: "a" }, false);
    builder.add({ metric: "weight", atMs: at, value: 4, source: "fit", clientId: "a" }, false);
    // Enough rows to grow the buffer several times.
    for (let i = 0; i < 3000; i++)
      builder.add({ metric: "steps", atMs: at, value: i, source: "fit", clientId: `c${i}` }, i % 2 === 0);
    const batch = builder.build();
    const lines = new TextDecoder().decode(batch.bytes).split(/(?<=\n)/);
    expect(lines.slice(0, 3)).toEqual([
      // The first key's place, the last value, counted because the first was.
      row("weight", 4, "fit", "a", true),
      row("steps", 2, "fit", "b\\tß\\\\", false),
      row("steps", 3, "csv", "a", false),
    ]);
    expect(lines[3002]).toBe(row("steps", 2999, "fit", "c2999", false));
    expect(lines).toHaveLength(3003);
    expect(batch).toMatchObject({ rows: 3003, counted: 1501, repeatedCounted: 0 });
    // Emptied: the next batch starts afresh.
    builder.add({ metric: "steps", atMs: at, value: 5, source: "fit", clientId: "a" }, true);
    const next = builder.build();
    expect(new TextDecoder().decode(next.bytes)).toBe(row("steps", 5, "fit", "a", true));
    expect(next).toMatchObject({ rows: 1, counted: 1, repeatedCounted: 0 });
  });
});

// Two connections at once: PostgreSQL only (PGlite has one and runs transactions one after another).
describe.runIf(BACKENDS.includes("postgres"))("values and account deletion on postgres", () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase("postgres"));
  });
  afterAll(() => app.close());
  beforeEach(async () => resetDatabase(app.ctx.database));

  const value = (clientId: string): DashboardValue => ({
    metric: "steps",
    at: new Date("2026-11-20T07:00:00Z"),
    value: 10,
    source: "apple_health",
    clientId,
  });
  /** Resolves once some transaction waits for the user's dashboard lock (in this database). */
  async function someoneWaitsForTheLock(userId: string) {
    for (let i = 0; i < 1200; i++) {
      const r = await app.ctx.database.query<{ n: number }>(
        `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
         where d.datname = current_database() and l.locktype = 'advisory' and not l.granted
           and ((l.classid::bigint << 32) | l.objid::bigint) = hashtext('dashboard:' || $1::text)::bigint`,
        [userId],
      );
      if (Number(r.rows[0]?.n) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error("nobody waited for the lock");
  }
  async function valuesOf(userId: string) {
    return app.ctx.database.db.select().from(dashboardValues).where(eq(dashboardValues.userId, userId));
  }

  it("deletes a batch written while the deletion starts: the deletion waits for it", async () => {
    const user = await createTestUser(app.ctx.database);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let written: () => void = () => {};
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const writing = app.ctx.database.db.transaction(async (tx) => {
      await recordValueBatch(tx as unknown as Db, user.userId, batchOf([value("a"), value("b")]));
      written();
      await held;
    });
    await wrote;
    const deletion = deleteUserData(registryEnv(app.ctx), user.userId);
    await someoneWaitsForTheLock(user.userId);
    release();
    await writing;
    await deletion;
    expect(await valuesOf(user.userId)).toEqual([]);
  });

  it("writes nothing for a batch that waited for the deletion", async () => {
    const user = await createTestUser(app.ctx.database);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked: () => void = () => {};
    const holding = new Promise<void>((resolve) => (locked = resolve));
    // The deletion's transaction, stopped after its first step (the lock) until the write waits.
    const deletion = app.ctx.database.db.transaction(async (tx) => {
      await holdValueWrites(tx as unknown as Db, user.userId);
      locked();
      await held;
      await tx.delete(users).where(eq(users.id, user.userId));
    });
    await holding;
    const written = app.ctx.database.db.transaction((tx) =>
      recordValueBatch(tx as unknown as Db, user.userId, batchOf([value("a")])),
    );
    await someoneWaitsForTheLock(user.userId);
    release();
    await deletion;
    expect(await written).toEqual({ written: 0, newCounted: 0, foundStored: false });
    expect(await valuesOf(user.userId)).toEqual([]);
  });
});
