import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { copyRows } from "../../db/copy.ts";
import { pgErrorCode, rowsOf } from "../../db/raw.ts";
import { msToTs, sampleRowsOf } from "./dashboard-values.samples-repo.ts";

/**
 * SQL of the dashboard's value store and its daily summaries. Rows travel as one JSON parameter
 * (`json_to_recordset`), which both drivers pass the same way and which keeps a batch of thousands of
 * values one statement. A local day `d` in zone `tz` is the half-open instant range
 * [`d::timestamp at time zone tz`, `(d + 1)::timestamp at time zone tz`): 23 or 25 hours long on the
 * days clocks change, which is what makes daily buckets right across daylight saving.
 */

export type ValueRow = { metric: string; at: string; value: number; source: string; client_id: string };
export type StoredValue = ValueRow & { id: number };
export type GroupKey = { metric: string; source: string; at: string };

/** Serialises the user's summary maintenance: concurrent writers of one user wait for each other. */
export async function lockUser(tx: Db, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`dashboard:${userId}`}))`);
}

/** The user's time zone and the one the summaries were built in (null: never built). */
export async function zonesOf(
  tx: Db,
  userId: string,
): Promise<{ tz: string; summaryTz: string | null } | null> {
  const r = rowsOf<{ tz: string; summary_tz: string | null }>(
    await tx.execute(sql`
      select u.timezone as tz, s.summary_tz from users u
      left join dashboard_settings s on s.user_id = u.id
      where u.id = ${userId}`),
  );
  const row = r[0];
  return row ? { tz: row.tz, summaryTz: row.summary_tz } : null;
}

/**
 * Rebuilds every daily summary of the user in `tz`, from both stores, and records that zone. Of values at
 * the same instant, the day's last value is the greatest (they have no order of their own).
 */
export async function rebuildSummaries(tx: Db, userId: string, tz: string): Promise<void> {
  await tx.execute(sql`delete from dashboard_daily where user_id = ${userId}`);
  await tx.execute(sql`
    insert into dashboard_daily (user_id, metric, day, source, n, sum, min, max, last_at, last_value)
    select ${userId}, metric, (at at time zone ${tz})::date, source, count(*), sum(value), min(value), max(value),
      max(at), (array_agg(value order by at desc, value desc))[1]
    from (
      select metric, at, value, source from dashboard_values where user_id = ${userId}
      union all ${sampleRowsOf(userId)}
    ) x
    group by 2, 3, 4`);
  await tx.execute(sql`
    insert into dashboard_settings (user_id, summary_tz) values (${userId}, ${tz})
    on conflict (user_id) do update set summary_tz = excluded.summary_tz, updated_at = now()`);
}

/** Folds the rows of the CTE `ins` (just inserted) into the daily summaries in `tz`. */
const foldInserted = (userId: string, tz: string) => sql`
  insert into dashboard_daily (user_id, metric, day, source, n, sum, min, max, last_at, last_value)
  select ${userId}, metric, (at at time zone ${tz})::date, source, count(*), sum(value), min(value), max(value),
    max(at), (array_agg(value order by at desc, value desc))[1]
  from ins group by 2, 3, 4
  on conflict (user_id, metric, day, source) do update set
    n = dashboard_daily.n + excluded.n,
    sum = dashboard_daily.sum + excluded.sum,
    min = least(dashboard_daily.min, excluded.min),
    max = greatest(dashboard_daily.max, excluded.max),
    last_value = case when excluded.last_at > dashboard_daily.last_at then excluded.last_value
      when excluded.last_at < dashboard_daily.last_at then dashboard_daily.last_value
      else greatest(excluded.last_value, dashboard_daily.last_value) end,
    last_at = greatest(dashboard_daily.last_at, excluded.last_at)
  returning 1`;

/**
 * Inserts the values that are new (by user, source and client id) and folds them into the daily
 * summaries in the same statement; answers the keys it inserted. Values whose key exists are left
 * for the caller to compare.
 */
export async function insertNewValues(
  tx: Db,
  userId: string,
  tz: string,
  rows: readonly ValueRow[],
): Promise<{ source: string; client_id: string }[]> {
  return rowsOf(
    await tx.execute(sql`
      with input as (
        select * from json_to_recordset(${JSON.stringify(rows)}::json)
          as t(metric text, at timestamptz, value float8, source text, client_id text)
      ), ins as (
        insert into dashboard_values (user_id, metric, at, value, source, client_id)
        select ${userId}, metric, at, value, source, client_id from input
        on conflict (user_id, source, client_id) do nothing
        returning id, metric, at, value, source, client_id
      ), folded as (${foldInserted(userId, tz)})
      select source, client_id from ins`),
  );
}

/**
 * The staging table of bulk writes: a temporary table of the connection, emptied at every commit, that
 * COPY fills with one batch (keys unique within it: `ValueBatchBuilder` merges repeats).
 */
const STAGE = "dashboard_values_stage";

/** Copies an encoded batch (`ValueBatch.bytes`) into the connection's staging table, emptied first. */
export async function stageValues(tx: Db, bytes: Uint8Array): Promise<void> {
  await tx.execute(
    sql.raw(`create temp table if not exists ${STAGE} (metric text not null, at timestamptz not null,
      value float8 not null, source text not null, client_id text not null, counted boolean not null)
      on commit delete rows`),
  );
  // Empty but for an earlier batch of this transaction (a commit empties it): a `truncate` would give it
  // new files each time.
  await tx.execute(sql.raw(`delete from ${STAGE}`));
  await copyRows(tx, `${STAGE} (metric, at, value, source, client_id, counted)`, bytes);
}

/**
 * Inserts the staged values that are new and folds them into the daily summaries, in one statement;
 * answers how many were inserted and how many of those were marked counted. `onConflict: false` is a
 * plain insert, which fails on a stored key (`insertStagedFreshValues`).
 */
export async function insertStagedValues(
  tx: Db,
  userId: string,
  tz: string,
  onConflict = true,
): Promise<{ inserted: number; counted: number }> {
  const [row] = rowsOf<{ inserted: number; counted: number }>(
    await tx.execute(sql`
      with ins as (
        insert into dashboard_values (user_id, metric, at, value, source, client_id)
        select ${userId}, metric, at, value, source, client_id from ${sql.raw(STAGE)}
        ${onConflict ? sql`on conflict (user_id, source, client_id) do nothing` : sql``}
        returning id, metric, at, value, source, client_id
      ), folded as (${foldInserted(userId, tz)})
      select count(*)::int as inserted, (count(*) filter (where s.counted))::int as counted
      from ins join ${sql.raw(STAGE)} s on s.source = ins.source and s.client_id = ins.client_id`),
  );
  return { inserted: Number(row?.inserted ?? 0), counted: Number(row?.counted ?? 0) };
}

/**
 * `insertStagedValues` for a batch none of whose keys is stored yet (a first import): a plain insert,
 * without `on conflict`'s second look at the key index for every row. Answers null, having written
 * nothing, when a key is stored after all (the caller then takes the general path): the insert runs
 * in a savepoint that a unique violation rolls back. The caller holds the user's lock, so no other
 * writer of the user's values can come between.
 */
export async function insertStagedFreshValues(
  tx: Db,
  userId: string,
  tz: string,
): Promise<{ inserted: number; counted: number } | null> {
  try {
    return await tx.transaction((sp) => insertStagedValues(sp as unknown as Db, userId, tz, false));
  } catch (error) {
    if (pgErrorCode(error) === "23505") return null;
    throw error;
  }
}

/** Staged values whose key is stored with another metric, time or value: the stored row and the new one. */
export async function changedStagedValues(
  tx: Db,
  userId: string,
): Promise<(StoredValue & { old_metric: string; old_at: string })[]> {
  return rowsOf(
    await tx.execute(sql`
      select v.id, v.metric as old_metric, v.at as old_at, s.metric, s.at, s.value, s.source, s.client_id
      from ${sql.raw(STAGE)} s
      join dashboard_values v on v.user_id = ${userId} and v.source = s.source and v.client_id = s.client_id
      where v.metric <> s.metric or v.at <> s.at or v.value <> s.value`),
  );
}

/** The stored values with these (source, client id) keys. */
export async function findByKeys(
  tx: Db,
  userId: string,
  keys: readonly { source: string; client_id: string }[],
): Promise<StoredValue[]> {
  if (keys.length === 0) return [];
  return rowsOf<StoredValue>(
    await tx.execute(sql`
      select v.id, v.metric, v.at, v.value, v.source, v.client_id
      from dashboard_values v
      join json_to_recordset(${JSON.stringify(keys)}::json) as k(source text, client_id text)
        on v.source = k.source and v.client_id = k.client_id
      where v.user_id = ${userId}`),
  );
}

/** Overwrites metric, time and value of stored rows by id. */
export async function updateValues(
  tx: Db,
  userId: string,
  rows: readonly { id: number; metric: string; at: string; value: number }[],
): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(sql`
    update dashboard_values v set metric = u.metric, at = u.at, value = u.value, updated_at = now()
    from json_to_recordset(${JSON.stringify(rows)}::json) as u(id bigint, metric text, at timestamptz, value float8)
    where v.id = u.id and v.user_id = ${userId}`);
}

/** Deletes rows by (source, client id) and answers what they were (to recompute their days). */
export async function deleteByKeys(
  tx: Db,
  userId: string,
  source: string,
  clientIds: readonly string[],
): Promise<GroupKey[]> {
  return rowsOf<GroupKey>(
    await tx.execute(sql`
      delete from dashboard_values v
      using json_array_elements_text(${JSON.stringify(clientIds)}::json) as k(client_id)
      where v.user_id = ${userId} and v.source = ${source} and v.client_id = k.client_id
      returning v.metric, v.source, v.at`),
  );
}

/** Recomputes the summaries of the days (in `tz`) holding these (metric, source, instant) keys, from both stores. */
export async function recomputeGroups(tx: Db, userId: string, tz: string, keys: readonly GroupKey[]) {
  if (keys.length === 0) return;
  const groups = sql`
    select distinct metric, source, (at at time zone ${tz})::date as day
    from json_to_recordset(${JSON.stringify(keys)}::json) as k(metric text, source text, at timestamptz)`;
  await tx.execute(sql`
    delete from dashboard_daily d using (${groups}) g
    where d.user_id = ${userId} and d.metric = g.metric and d.source = g.source and d.day = g.day`);
  // A local day lies within the UTC days before and after its own (offsets are under a day).
  await tx.execute(sql`
    with g as (
      select g.*, (g.day::timestamp at time zone ${tz}) as lo, ((g.day + 1)::timestamp at time zone ${tz}) as hi
      from (${groups}) g
    )
    insert into dashboard_daily (user_id, metric, day, source, n, sum, min, max, last_at, last_value)
    select ${userId}, x.metric, x.day, x.source, count(*), sum(x.value), min(x.value), max(x.value), max(x.at),
      (array_agg(x.value order by x.at desc, x.value desc))[1]
    from (
      select g.metric, g.day, g.source, v.at, v.value from g
      join dashboard_values v on v.user_id = ${userId} and v.metric = g.metric and v.source = g.source
        and v.at >= g.lo and v.at < g.hi
      union all
      select g.metric, g.day, g.source, ${sql.raw(msToTs("u.a"))}, u.v from g
      join dashboard_samples d on d.user_id = ${userId} and d.source = g.source and d.metric = g.metric
        and d.day between g.day - 1 and g.day + 1
      cross join lateral unnest(d.at_ms, d.vals) as u(a, v)
      where u.a >= extract(epoch from g.lo) * 1000 and u.a < extract(epoch from g.hi) * 1000
    ) x
    group by x.metric, x.day, x.source`);
}
