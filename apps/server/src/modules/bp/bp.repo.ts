import { and, count, desc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/raw.ts";
import { bpReadings } from "../../db/schema.ts";

export type BpReadingRow = typeof bpReadings.$inferSelect;
export type NewBpReading = Omit<typeof bpReadings.$inferInsert, "id" | "createdAt" | "updatedAt">;

/** Inserts a reading; with a client id already used by this user, nothing is inserted and null returned. */
export async function insertReading(db: Db, values: NewBpReading): Promise<BpReadingRow | null> {
  const [row] = await db.insert(bpReadings).values(values).onConflictDoNothing().returning();
  return row ?? null;
}

/** What an inserted reading answers: what its dashboard values and its event need. */
export type InsertedReading = Pick<
  BpReadingRow,
  "id" | "clientId" | "systolic" | "diastolic" | "pulse" | "measuredAt"
>;

/**
 * Inserts many readings at once, with one JSON parameter (an import inserts a hundred at a time); those
 * whose client id this user already used are skipped (not returned).
 */
export async function insertReadings(db: Db, values: readonly NewBpReading[]): Promise<InsertedReading[]> {
  if (values.length === 0) return [];
  const rows = values.map((v) => ({
    user_id: v.userId,
    client_id: v.clientId ?? null,
    systolic: v.systolic,
    diastolic: v.diastolic,
    pulse: v.pulse ?? null,
    measured_at: v.measuredAt.toISOString(),
    time_zone: v.timeZone,
    arm: v.arm ?? null,
    note: v.note ?? "",
  }));
  const inserted = rowsOf<{
    id: string;
    client_id: string | null;
    systolic: number;
    diastolic: number;
    pulse: number | null;
    measured_at: string | Date;
  }>(
    await db.execute(sql`
      insert into bp_readings (user_id, client_id, systolic, diastolic, pulse, measured_at, time_zone, arm, note)
      select r.user_id, r.client_id, r.systolic, r.diastolic, r.pulse, r.measured_at, r.time_zone, r.arm, r.note
      from json_to_recordset(${JSON.stringify(rows)}::json) as r(user_id uuid, client_id uuid, systolic integer,
        diastolic integer, pulse integer, measured_at timestamptz, time_zone text, arm text, note text)
      on conflict do nothing
      returning id, client_id, systolic, diastolic, pulse, measured_at`),
  );
  return inserted.map((r) => ({
    id: r.id,
    clientId: r.client_id,
    systolic: r.systolic,
    diastolic: r.diastolic,
    pulse: r.pulse,
    measuredAt: new Date(r.measured_at),
  }));
}

/** What a measurement takes of the reading beside it. */
export type ReadingValues = Pick<BpReadingRow, "id" | "systolic" | "diastolic" | "pulse" | "measuredAt">;

/**
 * The user's readings measured in [from, to], oldest first. Plain SQL, the time as a number: an import
 * asks this for each batch, and drizzle's mapping of every column (three times parsed into Dates) took
 * the writer twice the CPU.
 */
export async function readingsBetween(
  db: Db,
  userId: string,
  from: Date,
  to: Date,
): Promise<ReadingValues[]> {
  const rows = rowsOf<{ id: string; systolic: number; diastolic: number; pulse: number | null; t: number }>(
    await db.execute(sql`
      select id, systolic, diastolic, pulse, floor(extract(epoch from measured_at) * 1000)::float8 as t
      from bp_readings
      where user_id = ${userId} and measured_at >= ${from.toISOString()}::timestamptz
        and measured_at <= ${to.toISOString()}::timestamptz
      order by measured_at`),
  );
  return rows.map((r) => ({
    id: r.id,
    systolic: r.systolic,
    diastolic: r.diastolic,
    pulse: r.pulse,
    measuredAt: new Date(Number(r.t)),
  }));
}

export async function findReadingOf(db: Db, userId: string, id: string): Promise<BpReadingRow | null> {
  const [row] = await db
    .select()
    .from(bpReadings)
    .where(and(eq(bpReadings.userId, userId), eq(bpReadings.id, id)));
  return row ?? null;
}

export async function findReadingByClientId(
  db: Db,
  userId: string,
  clientId: string,
): Promise<BpReadingRow | null> {
  const [row] = await db
    .select()
    .from(bpReadings)
    .where(and(eq(bpReadings.userId, userId), eq(bpReadings.clientId, clientId)));
  return row ?? null;
}

export async function listReadingsOf(
  db: Db,
  userId: string,
  q: { from?: Date; to?: Date; limit: number; offset: number },
): Promise<{ rows: BpReadingRow[]; count: number }> {
  const conditions: SQL[] = [eq(bpReadings.userId, userId)];
  if (q.from) conditions.push(gte(bpReadings.measuredAt, q.from));
  if (q.to) conditions.push(lt(bpReadings.measuredAt, q.to));
  const where = and(...conditions);
  const rows = await db
    .select()
    .from(bpReadings)
    .where(where)
    .orderBy(desc(bpReadings.measuredAt), desc(bpReadings.id))
    .limit(q.limit)
    .offset(q.offset);
  const [total] = await db.select({ n: count() }).from(bpReadings).where(where);
  return { rows, count: Number(total?.n ?? 0) };
}

export async function updateReadingOf(
  db: Db,
  userId: string,
  id: string,
  set: Partial<NewBpReading>,
): Promise<BpReadingRow | null> {
  const [row] = await db
    .update(bpReadings)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(bpReadings.userId, userId), eq(bpReadings.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteReadingOf(db: Db, userId: string, id: string): Promise<BpReadingRow | null> {
  const [row] = await db
    .delete(bpReadings)
    .where(and(eq(bpReadings.userId, userId), eq(bpReadings.id, id)))
    .returning();
  return row ?? null;
}

/** The reading nearest in time to `at` within ± `windowMinutes`, or null. Ties go to the earlier one. */
export async function nearestReading(
  db: Db,
  userId: string,
  at: Date,
  windowMinutes: number,
): Promise<BpReadingRow | null> {
  const ms = windowMinutes * 60_000;
  const [row] = await db
    .select()
    .from(bpReadings)
    .where(
      and(
        eq(bpReadings.userId, userId),
        gte(bpReadings.measuredAt, new Date(at.getTime() - ms)),
        sql`${bpReadings.measuredAt} <= ${new Date(at.getTime() + ms).toISOString()}::timestamptz`,
      ),
    )
    .orderBy(
      sql`abs(extract(epoch from (${bpReadings.measuredAt} - ${at.toISOString()}::timestamptz)))`,
      bpReadings.measuredAt,
    )
    .limit(1);
  return row ?? null;
}

/** One local day's readings, summed (the averages' building block). */
export type BpDayStats = {
  day: string;
  n: number;
  sys: { sum: number; min: number; max: number };
  dia: { sum: number; min: number; max: number };
  pulse: { n: number; sum: number; min: number | null; max: number | null };
};

/**
 * Per local day in [from, to] (each reading's day in its own time zone): count, sums, lowest and
 * highest. The instants searched are a day wider on each side than any zone's day, so the
 * (user, measured_at) index bounds the scan and the local day decides.
 */
export async function dailyReadingStats(
  db: Db,
  userId: string,
  from: string,
  to: string,
): Promise<BpDayStats[]> {
  const lo = new Date(Date.parse(`${from}T00:00:00Z`) - 86_400_000);
  const hi = new Date(Date.parse(`${to}T00:00:00Z`) + 2 * 86_400_000);
  const r = (await db.execute(sql`
    select day::text as day, count(*)::int as n,
      sum(systolic)::float8 as sys_sum, min(systolic) as sys_min, max(systolic) as sys_max,
      sum(diastolic)::float8 as dia_sum, min(diastolic) as dia_min, max(diastolic) as dia_max,
      count(pulse)::int as pulse_n, coalesce(sum(pulse), 0)::float8 as pulse_sum,
      min(pulse) as pulse_min, max(pulse) as pulse_max
    from (
      select (measured_at at time zone time_zone)::date as day, systolic, diastolic, pulse
      from bp_readings
      where user_id = ${userId} and measured_at >= ${lo.toISOString()}::timestamptz
        and measured_at < ${hi.toISOString()}::timestamptz
    ) r
    where day between ${from}::date and ${to}::date
    group by day order by day`)) as unknown as {
    rows: {
      day: string;
      n: number;
      sys_sum: number;
      sys_min: number;
      sys_max: number;
      dia_sum: number;
      dia_min: number;
      dia_max: number;
      pulse_n: number;
      pulse_sum: number;
      pulse_min: number | null;
      pulse_max: number | null;
    }[];
  };
  return r.rows.map((row) => ({
    day: row.day,
    n: Number(row.n),
    sys: { sum: Number(row.sys_sum), min: Number(row.sys_min), max: Number(row.sys_max) },
    dia: { sum: Number(row.dia_sum), min: Number(row.dia_min), max: Number(row.dia_max) },
    pulse: {
      n: Number(row.pulse_n),
      sum: Number(row.pulse_sum),
      min: row.pulse_min === null ? null : Number(row.pulse_min),
      max: row.pulse_max === null ? null : Number(row.pulse_max),
    },
  }));
}
