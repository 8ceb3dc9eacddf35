import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/raw.ts";
import { dashboardCharts, dashboardSettings, dashboardValues } from "../../db/schema.ts";
import type { DailyRow } from "./dashboard.buckets.ts";

/** Reads of the dashboard: summaries, layout and settings. Summaries are written by dashboard-values. */

type RawDaily = {
  metric: string;
  day: string;
  source: string;
  n: number | string;
  sum: number;
  min: number;
  max: number;
  last_at: Date | string;
  last_value: number;
};

/** Daily summaries of `metrics` between two local days (inclusive), every source. */
export async function dailyRows(
  db: Db,
  userId: string,
  metrics: readonly string[],
  from: string,
  to: string,
): Promise<DailyRow[]> {
  const r = rowsOf<RawDaily>(
    await db.execute(sql`
      select metric, day::text as day, source, n, sum, min, max, last_at, last_value
      from dashboard_daily
      where user_id = ${userId} and metric in (${sql.join(
        metrics.map((m) => sql`${m}`),
        sql`, `,
      )}) and day between ${from}::date and ${to}::date`),
  );
  return r.map((row) => ({
    metric: row.metric,
    day: row.day,
    source: row.source,
    n: Number(row.n),
    sum: row.sum,
    min: row.min,
    max: row.max,
    lastAtMs: new Date(row.last_at).getTime(),
    lastValue: row.last_value,
  }));
}

/** Per metric and source: whether there is any value, and the newest local day with one. */
export async function metricSources(
  db: Db,
  userId: string,
): Promise<{ metric: string; source: string; first_day: string; last_day: string }[]> {
  return rowsOf(
    await db.execute(sql`
      select metric, source, min(day)::text as first_day, max(day)::text as last_day from dashboard_daily
      where user_id = ${userId} group by metric, source`),
  );
}

/**
 * Raw samples of one metric over local days [from, to] in `tz`, downsampled to `buckets` buckets of
 * equal time, each keeping its first, lowest, highest and last sample (M4): a chart drawn from these
 * looks like one drawn from every sample, peaks included. Only the samples of each day's winning
 * source count (`winners`: the source the daily summaries chose for that local day), so a watch and
 * the phone's copy of its data are never drawn on top of each other. The samples come in time order
 * from the (user, metric, at) index and are folded in one pass (a week of 5-second samples is
 * ~120,000 rows).
 */
/** The UTC day of an instant, `YYYY-MM-DD`. */
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function intradayPoints(
  db: Db,
  userId: string,
  metric: string,
  range: { from: string; to: string; tz: string; winners: readonly { day: string; source: string }[] },
  buckets: number,
): Promise<{ samples: number; points: { atMs: number; value: number }[] }> {
  const bounds = rowsOf<{ lo: Date | string; hi: Date | string }>(
    await db.execute(sql`
      select (${range.from}::date::timestamp at time zone ${range.tz}) as lo,
        ((${range.to}::date + 1)::timestamp at time zone ${range.tz}) as hi`),
  )[0];
  const lo = new Date(bounds?.lo ?? 0).getTime();
  const hi = new Date(bounds?.hi ?? 0).getTime();
  if (range.winners.length === 0) return { samples: 0, points: [] };
  const winners = JSON.stringify(range.winners);
  const windows = sql`
    select source, (day::timestamp at time zone ${range.tz}) as lo, ((day + 1)::timestamp at time zone ${range.tz}) as hi
    from json_to_recordset(${winners}::json) as t(day date, source text)`;
  // One JSON text instead of one row per sample: parsing thousands of rows dominated the request.
  const [packed] = rowsOf<{ s: string }>(
    await db.execute(sql`
      with w as (${windows})
      select coalesce(json_agg(json_build_array((extract(epoch from v.at) * 1000)::int8, v.value) order by v.at), '[]')::text as s
      from dashboard_values v join w on v.source = w.source and v.at >= w.lo and v.at < w.hi
      where v.user_id = ${userId} and v.metric = ${metric} and v.at >= ${new Date(lo)} and v.at < ${new Date(hi)}`),
  );
  const r = (JSON.parse(packed?.s ?? "[]") as [number, number][]).map(([t, value]) => ({ t, value }));
  // The bulk store's blocks of the winning sources on the UTC days the range touches, whole (their arrays
  // as JSON), cut to each source's winning local days here.
  const blocks = rowsOf<{ a: string; v: string; w: string }>(
    await db.execute(sql`
      with w as (${windows})
      select to_json(d.at_ms)::text as a, to_json(d.vals)::text as v,
        (select json_agg(json_build_array(extract(epoch from w.lo) * 1000, extract(epoch from w.hi) * 1000))
         from w where w.source = d.source)::text as w
      from dashboard_samples d
      where d.user_id = ${userId} and d.metric = ${metric} and d.source in (select source from w)
        and d.day between ${utcDay(lo)}::date and ${utcDay(hi - 1)}::date`),
  );
  if (blocks.length > 0) {
    for (const b of blocks) {
      const at = JSON.parse(b.a) as number[];
      const vals = JSON.parse(b.v) as number[];
      const wins = (JSON.parse(b.w) as [number, number][]).map(([from, to]) => [Number(from), Number(to)]);
      at.forEach((t, i) => {
        if (wins.some(([from, to]) => t >= (from as number) && t < (to as number)))
          r.push({ t, value: vals[i] as number });
      });
    }
    r.sort((x, y) => x.t - y.t);
  }
  const width = Math.max(1, (hi - lo) / buckets);
  const points: { atMs: number; value: number }[] = [];
  let bucket = -1;
  let picks: { atMs: number; value: number }[] = [];
  const flush = () => {
    const unique = new Map(picks.map((p) => [p.atMs, p]));
    points.push(...[...unique.values()].sort((a, b) => a.atMs - b.atMs));
  };
  for (const row of r) {
    const atMs = Number(row.t);
    const b = Math.min(buckets - 1, Math.floor((atMs - lo) / width));
    const sample = { atMs, value: row.value };
    if (b !== bucket) {
      if (bucket >= 0) flush();
      bucket = b;
      picks = [sample, sample, sample, sample];
      continue;
    }
    // first stays; lowest, highest (earliest of equals) and last move.
    if (sample.value < (picks[1] as { value: number }).value) picks[1] = sample;
    if (sample.value > (picks[2] as { value: number }).value) picks[2] = sample;
    picks[3] = sample;
  }
  if (bucket >= 0) flush();
  return { samples: r.length, points };
}

export type ChartRow = typeof dashboardCharts.$inferSelect;
export type SettingsRow = typeof dashboardSettings.$inferSelect;

export async function listCharts(db: Db, userId: string): Promise<ChartRow[]> {
  return db
    .select()
    .from(dashboardCharts)
    .where(eq(dashboardCharts.userId, userId))
    .orderBy(asc(dashboardCharts.position), asc(dashboardCharts.createdAt));
}

export async function insertCharts(db: Db, userId: string, items: readonly string[], firstPosition: number) {
  if (items.length === 0) return [];
  return db
    .insert(dashboardCharts)
    .values(items.map((item, i) => ({ userId, item, position: firstPosition + i })))
    .returning();
}

export async function deleteChart(db: Db, userId: string, id: string): Promise<boolean> {
  const r = await db
    .delete(dashboardCharts)
    .where(and(eq(dashboardCharts.userId, userId), eq(dashboardCharts.id, id)))
    .returning({ id: dashboardCharts.id });
  return r.length > 0;
}

export async function setChartPosition(db: Db, userId: string, id: string, position: number): Promise<void> {
  await db
    .update(dashboardCharts)
    .set({ position })
    .where(and(eq(dashboardCharts.userId, userId), eq(dashboardCharts.id, id)));
}

export async function findSettings(db: Db, userId: string): Promise<SettingsRow | null> {
  const [row] = await db.select().from(dashboardSettings).where(eq(dashboardSettings.userId, userId));
  return row ?? null;
}

/** Creates the settings row if missing and applies `set`; answers the row. */
export async function upsertSettings(
  db: Db,
  userId: string,
  set: Partial<Pick<SettingsRow, "tableParameters" | "sourcePriority" | "layoutInitialized">>,
): Promise<SettingsRow> {
  const [row] = await db
    .insert(dashboardSettings)
    .values({ userId, ...set })
    .onConflictDoUpdate({ target: dashboardSettings.userId, set: { ...set, updatedAt: new Date() } })
    .returning();
  return row as SettingsRow;
}

/** Serialises layout edits of one user (adding, moving, seeding). */
export async function lockLayout(db: Db, userId: string): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`dashboard-layout:${userId}`}))`);
}

export type ValueRowOut = typeof dashboardValues.$inferSelect;

/** Values of one source (the person's own entries), newest first. */
export async function listSourceValues(
  db: Db,
  userId: string,
  source: string,
  q: { metric?: string; limit: number; offset: number },
): Promise<{ rows: ValueRowOut[]; count: number }> {
  const where = and(
    eq(dashboardValues.userId, userId),
    eq(dashboardValues.source, source),
    q.metric ? eq(dashboardValues.metric, q.metric) : undefined,
  );
  const rows = await db
    .select()
    .from(dashboardValues)
    .where(where)
    .orderBy(desc(dashboardValues.at), desc(dashboardValues.id))
    .limit(q.limit)
    .offset(q.offset);
  const [c] = await db.select({ n: sql<number>`count(*)::int` }).from(dashboardValues).where(where);
  return { rows, count: Number(c?.n ?? 0) };
}

export async function findSourceValue(
  db: Db,
  userId: string,
  source: string,
  id: number,
): Promise<ValueRowOut | null> {
  const [row] = await db
    .select()
    .from(dashboardValues)
    .where(
      and(eq(dashboardValues.userId, userId), eq(dashboardValues.source, source), eq(dashboardValues.id, id)),
    );
  return row ?? null;
}

export async function findByClientId(
  db: Db,
  userId: string,
  source: string,
  clientId: string,
): Promise<ValueRowOut | null> {
  const [row] = await db
    .select()
    .from(dashboardValues)
    .where(
      and(
        eq(dashboardValues.userId, userId),
        eq(dashboardValues.source, source),
        eq(dashboardValues.clientId, clientId),
      ),
    );
  return row ?? null;
}
