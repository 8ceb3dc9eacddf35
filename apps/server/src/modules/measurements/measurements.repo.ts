import {
  and,
  arrayContains,
  asc,
  count,
  desc,
  eq,
  gt,
  gte,
  inArray,
  isNull,
  lt,
  ne,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { arrayLiteral, rowsOf } from "../../db/raw.ts";
import { measurements, users } from "../../db/schema.ts";
import { UUID_RE } from "../../lib/uuid.ts";
import type { Anthropometry, MeasurementResult } from "./measurements.compute.ts";

export type MeasurementRow = typeof measurements.$inferSelect;
export type NewMeasurement = Omit<typeof measurements.$inferInsert, "id" | "createdAt" | "updatedAt">;

/** Typed access to the stored result (written only by this module). */
export const resultOf = (row: MeasurementRow): MeasurementResult | null =>
  (row.result as MeasurementResult | null) ?? null;

/** Inserts a measurement; when this user already used the client id, inserts nothing and returns null. */
export async function insertMeasurement(db: Db, values: NewMeasurement): Promise<MeasurementRow | null> {
  const [row] = await db.insert(measurements).values(values).onConflictDoNothing().returning();
  return row ?? null;
}

/** What `insertMeasurements` answers of each row it inserted. */
export type InsertedMeasurement = Pick<MeasurementRow, "id" | "clientId">;

/**
 * Inserts many measurements at once; those whose client id this user already used are skipped. The rows
 * travel as one JSON parameter and only their keys come back: an import's batch inserts a hundred
 * measurements with their RR series, and building that statement value by value, then reading every
 * series and result back, cost the import's writer more than the insert itself. The parameter is read
 * as jsonb once: `json_to_recordset` would parse each row's series and result a second time into jsonb.
 */
export async function insertMeasurements(
  db: Db,
  values: readonly NewMeasurement[],
): Promise<InsertedMeasurement[]> {
  if (values.length === 0) return [];
  const rows = values.map((v) => ({
    user_id: v.userId,
    client_id: v.clientId,
    source: v.source,
    device: v.device ?? null,
    started_at: v.startedAt.toISOString(),
    time_zone: v.timeZone,
    rr_ms: v.rrMs,
    rr_breaks: v.rrBreaks ?? [],
    feel: v.feel ?? null,
    mood: v.mood ?? null,
    tags: v.tags ?? [],
    labels: v.labels ?? [],
    algorithm_version: v.algorithmVersion ?? "",
    result: v.result ?? null,
    bp_reading_id: v.bpReadingId ?? null,
  }));
  const inserted = rowsOf<{ id: string; client_id: string }>(
    await db.execute(sql`
      insert into measurements (user_id, client_id, source, device, started_at, time_zone, rr_ms, rr_breaks,
        feel, mood, tags, labels, algorithm_version, result, bp_reading_id)
      select t.user_id, t.client_id, t.source, t.device, t.started_at, t.time_zone, t.rr_ms, t.rr_breaks,
        t.feel, t.mood, t.tags, t.labels, t.algorithm_version, t.result, t.bp_reading_id
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as t(user_id uuid, client_id uuid, source text,
        device text, started_at timestamptz, time_zone text, rr_ms jsonb, rr_breaks jsonb, feel integer,
        mood integer, tags text[], labels text[], algorithm_version text, result jsonb, bp_reading_id uuid)
      on conflict (user_id, client_id) do nothing
      returning id, client_id`),
  );
  return inserted.map((r) => ({ id: r.id, clientId: r.client_id }));
}

/**
 * Client id, RR series and its breaks of the user's measurements with these client ids. Plain SQL with
 * one array parameter: an import asks this for each batch's hundred ids, and drizzle's builder, binding
 * each id on its own, took the writer two to three times the CPU.
 */
export async function findByClientIds(
  db: Db,
  userId: string,
  clientIds: readonly string[],
): Promise<{ clientId: string; rrMs: number[]; rrBreaks: number[] }[]> {
  if (clientIds.length === 0) return [];
  const rows = rowsOf<{ client_id: string; rr_ms: number[]; rr_breaks: number[] }>(
    await db.execute(sql`
      select client_id, rr_ms, rr_breaks from measurements
      where user_id = ${userId} and client_id = any(${arrayLiteral(clientIds)}::uuid[])`),
  );
  return rows.map((r) => ({ clientId: r.client_id, rrMs: r.rr_ms, rrBreaks: r.rr_breaks }));
}

/** What a score baseline needs of one computed measurement (the row's `baseline_*` columns). */
export type BaselineRow = {
  startedAt: Date;
  rmssd: number | null;
  psi: number | null;
  heartRate: number | null;
};

const baselineColumns = {
  startedAt: measurements.startedAt,
  rmssd: measurements.baselineRmssd,
  psi: measurements.baselinePsi,
  heartRate: measurements.baselineHeartRate,
};

/** `BaselineRow` with its start as ms since 1970. */
export type BaselineHistoryRow = Omit<BaselineRow, "startedAt"> & { timeMs: number };

/**
 * What the baselines of measurements started in [first, last] can hold, oldest first: the latest `limit`
 * computed measurements of the `days` before `first`, and all of those in [first, last). Each later
 * measurement's window of the `limit` latest before it lies within these. An import asks this for each
 * batch: older rows would never count, and the starts come as numbers, not as Dates to take apart again.
 */
export async function baselineHistory(
  db: Db,
  userId: string,
  w: { first: Date; last: Date; days: number; limit: number },
): Promise<BaselineHistoryRow[]> {
  const from = new Date(w.first.getTime() - w.days * 86_400_000);
  const rows = rowsOf<{ t: number; rmssd: number | null; psi: number | null; hr: number | null }>(
    await db.execute(sql`
      select floor(extract(epoch from h.started_at) * 1000)::float8 as t, h.baseline_rmssd as rmssd,
        h.baseline_psi as psi, h.baseline_heart_rate as hr
      from (
        (select started_at, baseline_rmssd, baseline_psi, baseline_heart_rate from measurements
          where user_id = ${userId} and started_at >= ${from.toISOString()}::timestamptz
            and started_at < ${w.first.toISOString()}::timestamptz and result is not null
          order by started_at desc limit ${w.limit})
        union all
        (select started_at, baseline_rmssd, baseline_psi, baseline_heart_rate from measurements
          where user_id = ${userId} and started_at >= ${w.first.toISOString()}::timestamptz
            and started_at < ${w.last.toISOString()}::timestamptz and result is not null)
      ) h
      order by h.started_at`),
  );
  return rows.map((r) => ({ timeMs: Number(r.t), rmssd: r.rmssd, psi: r.psi, heartRate: r.hr }));
}

/**
 * Which of a user's computed measurements a later one looks back on: those of the `days` before
 * `before`, except `exceptId`, the latest `limit` (default 500).
 */
export type EarlierWindow = {
  userId: string;
  before: Date;
  days: number;
  exceptId: string | null;
  limit?: number;
};

function computedIn(w: EarlierWindow) {
  return and(
    eq(measurements.userId, w.userId),
    lt(measurements.startedAt, w.before),
    gte(measurements.startedAt, new Date(w.before.getTime() - w.days * 86_400_000)),
    sql`${measurements.result} is not null`,
    w.exceptId ? ne(measurements.id, w.exceptId) : undefined,
  );
}

/**
 * What a score baseline needs of the window's measurements (newest first): time, rMSSD, stress index and
 * heart rate, from columns PostgreSQL keeps from each result, so the results themselves are not read.
 */
export async function earlierBaseline(db: Db, w: EarlierWindow): Promise<BaselineRow[]> {
  return db
    .select(baselineColumns)
    .from(measurements)
    .where(computedIn(w))
    .orderBy(desc(measurements.startedAt))
    .limit(w.limit ?? 500);
}

export async function findMeasurementOf(db: Db, userId: string, id: string): Promise<MeasurementRow | null> {
  const [row] = await db
    .select()
    .from(measurements)
    .where(and(eq(measurements.userId, userId), eq(measurements.id, id)));
  return row ?? null;
}

export async function findByClientId(
  db: Db,
  userId: string,
  clientId: string,
): Promise<MeasurementRow | null> {
  const [row] = await db
    .select()
    .from(measurements)
    .where(and(eq(measurements.userId, userId), eq(measurements.clientId, clientId)));
  return row ?? null;
}

export async function listMeasurementsOf(
  db: Db,
  userId: string,
  q: { from?: Date; to?: Date; tags: string[]; limit: number; offset: number },
): Promise<{ rows: MeasurementRow[]; count: number }> {
  const conditions: SQL[] = [eq(measurements.userId, userId)];
  if (q.from) conditions.push(gte(measurements.startedAt, q.from));
  if (q.to) conditions.push(lt(measurements.startedAt, q.to));
  if (q.tags.length) conditions.push(arrayContains(measurements.tags, q.tags));
  const where = and(...conditions);
  const rows = await db
    .select()
    .from(measurements)
    .where(where)
    .orderBy(desc(measurements.startedAt), desc(measurements.id))
    .limit(q.limit)
    .offset(q.offset);
  const [total] = await db.select({ n: count() }).from(measurements).where(where);
  return { rows, count: Number(total?.n ?? 0) };
}

/** The stored results of the window's measurements, newest first: the decoding's personal reference. */
export async function earlierResults(
  db: Db,
  w: EarlierWindow,
): Promise<{ startedAt: Date; result: MeasurementResult }[]> {
  const rows = await db
    .select({ startedAt: measurements.startedAt, result: measurements.result })
    .from(measurements)
    .where(computedIn(w))
    .orderBy(desc(measurements.startedAt))
    .limit(w.limit ?? 500);
  return rows.map((r) => ({ startedAt: r.startedAt, result: r.result as MeasurementResult }));
}

export async function anthropometryOf(db: Db, userId: string): Promise<Anthropometry> {
  const [row] = await db
    .select({ dateOfBirth: users.dateOfBirth, heightCm: users.heightCm, weightKg: users.weightKg })
    .from(users)
    .where(eq(users.id, userId));
  return row ?? { dateOfBirth: null, heightCm: null, weightKg: null };
}

export async function updateMeasurementOf(
  db: Db,
  userId: string,
  id: string,
  set: Partial<NewMeasurement>,
): Promise<MeasurementRow | null> {
  const [row] = await db
    .update(measurements)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(measurements.userId, userId), eq(measurements.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteMeasurementOf(
  db: Db,
  userId: string,
  id: string,
): Promise<MeasurementRow | null> {
  const [row] = await db
    .delete(measurements)
    .where(and(eq(measurements.userId, userId), eq(measurements.id, id)))
    .returning();
  return row ?? null;
}

/** What `measurementsNear` answers of a measurement: enough to tell whether a change touches it. */
export type NearMeasurement = Pick<MeasurementRow, "id" | "startedAt" | "bpReadingId">;

/**
 * Keys of the user's measurements taken within `minutes` of any of `times`, or computed with one of
 * `readingIds`, oldest first. Plain SQL with array parameters: the blood-pressure subscriber asks this
 * for a hundred readings at once on the server's main thread (an import's thousands, once it ends), and
 * each time range is an index range scan.
 */
export async function measurementsNear(
  db: Db,
  userId: string,
  times: readonly Date[],
  minutes: number,
  readingIds: readonly string[],
): Promise<NearMeasurement[]> {
  const ids = readingIds.filter((id) => UUID_RE.test(id));
  if (times.length === 0 && ids.length === 0) return [];
  // Each time an index range scan, each reading id an index look-up, each measurement found its own row:
  // one small step at a time (`offset 0` keeps PostgreSQL from flattening the subqueries into joins).
  // Each step is also written so that only its index serves it, whatever the statistics say: right after
  // an import they describe the table as it was (the importing person's id as good as absent), and
  // PostgreSQL then took any index that starts with user_id for every step, filtering all of the person's
  // measurements each time (0.77 s a call of 100 readings after a 200 MB import, against 2 ms). So the
  // range scan asks for the order of (user_id, started_at), and the look-ups by reading and by id leave
  // the user's test outside their fence.
  const result = await db.execute(sql`
    with ids as (
      select n.id from unnest(${arrayLiteral(times.map((t) => t.toISOString()))}::timestamptz[]) as t(at)
      cross join lateral (select n.id from measurements n where n.user_id = ${userId}
        and n.started_at >= t.at - make_interval(mins => ${minutes})
        and n.started_at <= t.at + make_interval(mins => ${minutes})
        order by n.started_at offset 0) n
      union
      select n.id from unnest(${arrayLiteral(ids)}::uuid[]) as r(id)
      cross join lateral (select n.id, n.user_id from measurements n where n.bp_reading_id = r.id
        offset 0) n
      where n.user_id = ${userId}
    )
    select m.id, m.started_at, m.bp_reading_id from ids
    cross join lateral (select m.id, m.started_at, m.bp_reading_id, m.user_id from measurements m
      where m.id = ids.id offset 0) m
    where m.user_id = ${userId}
    order by m.started_at`);
  return (
    result as unknown as { rows: { id: string; started_at: string | Date; bp_reading_id: string | null }[] }
  ).rows.map((r) => ({ id: r.id, startedAt: new Date(r.started_at), bpReadingId: r.bp_reading_id }));
}

/** The user's measurements with these ids, whole, oldest first. */
export async function measurementsByIds(
  db: Db,
  userId: string,
  ids: readonly string[],
): Promise<MeasurementRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(measurements)
    .where(and(eq(measurements.userId, userId), inArray(measurements.id, [...ids])))
    .orderBy(asc(measurements.startedAt));
}

/**
 * The next batch of measurements whose result is stale (another algorithm version, or none after an
 * import), in id order after `afterId`: the recompute job walks the table with it, resumably.
 */
export async function staleBatch(
  db: Db,
  version: string,
  afterId: string | null,
  limit: number,
): Promise<MeasurementRow[]> {
  const stale = or(ne(measurements.algorithmVersion, version), isNull(measurements.result)) as SQL;
  return db
    .select()
    .from(measurements)
    .where(afterId ? and(stale, gt(measurements.id, afterId)) : stale)
    .orderBy(asc(measurements.id))
    .limit(limit);
}

/**
 * Marks every measurement computed with `version` as stale by setting its version to `marker` (its
 * stored numbers stay readable meanwhile); returns how many were marked.
 */
export async function markForRecompute(db: Db, version: string, marker: string): Promise<number> {
  const rows = await db
    .update(measurements)
    .set({ algorithmVersion: marker })
    .where(eq(measurements.algorithmVersion, version))
    .returning({ id: measurements.id });
  return rows.length;
}

export async function countWithVersion(db: Db, version: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(measurements)
    .where(eq(measurements.algorithmVersion, version));
  return Number(row?.n ?? 0);
}

export async function countStale(db: Db, version: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(measurements)
    .where(or(ne(measurements.algorithmVersion, version), isNull(measurements.result)));
  return Number(row?.n ?? 0);
}

/** Start, tags and stored result of the user's measurements in [from, to) carrying every tag of `tags`. */
export async function resultsInRange(
  db: Db,
  userId: string,
  q: { from: Date; to: Date; tags: string[] },
): Promise<{ startedAt: Date; tags: string[]; result: MeasurementResult | null }[]> {
  const conditions: SQL[] = [
    eq(measurements.userId, userId),
    gte(measurements.startedAt, q.from),
    lt(measurements.startedAt, q.to),
  ];
  if (q.tags.length) conditions.push(arrayContains(measurements.tags, q.tags));
  const rows = await db
    .select({ startedAt: measurements.startedAt, tags: measurements.tags, result: measurements.result })
    .from(measurements)
    .where(and(...conditions))
    .orderBy(asc(measurements.startedAt));
  return rows.map((r) => ({ ...r, result: (r.result as MeasurementResult | null) ?? null }));
}

/** The tags on the user's measurements with how many carry each, most used first. */
export async function tagCounts(db: Db, userId: string): Promise<{ tag: string; count: number }[]> {
  const r = (await db.execute(sql`
    select tag, count(*)::int as count from measurements, unnest(tags) as tag
    where user_id = ${userId} group by tag order by count(*) desc, tag limit 200`)) as unknown as {
    rows: { tag: string; count: number }[];
  };
  return r.rows.map((row) => ({ tag: row.tag, count: Number(row.count) }));
}
