import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { copyRows } from "../../db/copy.ts";
import { rowsOf } from "../../db/raw.ts";
import type { GroupKey } from "./dashboard-values.repo.ts";

/**
 * SQL of the bulk store (`dashboard_samples`): blocks of one source's samples of one metric on one UTC
 * day. A batch is copied into a staging table (binary COPY), its blocks that are not stored yet are
 * inserted as they are, and the others are merged with the stored ones element by element.
 */

/** An instant from milliseconds since 1970, exactly (`to_timestamp` of a fraction rounds in far years). */
export const msToTs = (ms: string) =>
  `(to_timestamp(${ms} / 1000) + (${ms} % 1000) * interval '1 millisecond')`;

/** The staging table: a temporary table of the connection, emptied at every commit. */
const STAGE = "dashboard_samples_stage";

/**
 * The user's block of the staged block `s`, as a subquery for `cross join lateral`: looked up by its whole
 * key one staged block at a time (`offset 0` keeps PostgreSQL from flattening it into a join). A table an
 * import has just filled has no statistics yet, and with its own estimates PostgreSQL scanned every block
 * of the person for each staged one, reading their arrays.
 */
const blockOf = (userId: string, s: string) => sql`
  select d.ctid, d.n, d.at_ms, d.vals, d.keys from dashboard_samples d
  where d.user_id = ${userId} and d.source = ${sql.raw(s)}.source and d.metric = ${sql.raw(s)}.metric
    and d.day = ${sql.raw(s)}.day offset 0`;

/**
 * Copies a batch's blocks (`encodeSampleBlocks`) into the connection's staging table, emptied first. Its
 * arrays are stored uncompressed, as `dashboard_samples` stores them (compressing them costs most of a
 * COPY's time and saves little).
 */
export async function stageSamples(tx: Db, bytes: Uint8Array): Promise<void> {
  const [exists] = rowsOf<{ t: string | null }>(
    await tx.execute(sql.raw(`select to_regclass('pg_temp.${STAGE}')::text as t`)),
  );
  // Empty but for an earlier batch of this transaction (a commit empties it): a `truncate` would give it
  // new files each time.
  if (exists?.t) await tx.execute(sql.raw(`delete from ${STAGE}`));
  else {
    // A temporary table lives as long as its connection: made once per connection.
    await tx.execute(
      sql.raw(`create temp table ${STAGE} (i int not null, source text not null, metric text not null,
        day date not null, at_ms int8[] not null, vals float8[] not null, keys text[] not null)
        on commit delete rows`),
    );
    await tx.execute(
      sql.raw(`alter table ${STAGE} alter column at_ms set storage external,
        alter column vals set storage external, alter column keys set storage external`),
    );
  }
  await copyRows(tx, `${STAGE} (i, source, metric, day, at_ms, vals, keys)`, bytes, true);
}

/** The staged blocks (their `i`) whose (source, metric, day) the user has a block of already. */
export async function storedStagedBlocks(tx: Db, userId: string): Promise<number[]> {
  const rows = rowsOf<{ i: number }>(
    await tx.execute(sql`
      select s.i from ${sql.raw(STAGE)} s
      cross join lateral (${blockOf(userId, "s")} limit 1) d`),
  );
  return rows.map((r) => Number(r.i));
}

/** Inserts the staged blocks other than `stored` as they are. */
export async function insertStagedBlocks(tx: Db, userId: string, stored: readonly number[]): Promise<void> {
  await tx.execute(sql`
    insert into dashboard_samples (user_id, source, metric, day, n, at_ms, vals, keys)
    select ${userId}, source, metric, day, cardinality(keys), at_ms, vals, keys from ${sql.raw(STAGE)}
    where not (i = any(${`{${stored.join(",")}}`}::int[]))`);
}

/**
 * Appends each staged block of `stored` whose first sample comes after the stored block's last to that
 * block, and answers which (their `i`). Only for samples whose key fixes their time (an importer's): a
 * key the stored block holds then has one of its times, so none of a later block's keys can be there.
 */
export async function appendStagedBlocks(
  tx: Db,
  userId: string,
  stored: readonly number[],
): Promise<number[]> {
  if (stored.length === 0) return [];
  const rows = rowsOf<{ i: number }>(
    await tx.execute(sql`
      update dashboard_samples t set n = t.n + cardinality(a.keys), at_ms = t.at_ms || a.at_ms,
        vals = t.vals || a.vals, keys = t.keys || a.keys, updated_at = now()
      from (
        select s.i, s.at_ms, s.vals, s.keys, d.ctid as target from ${sql.raw(STAGE)} s
        cross join lateral (${blockOf(userId, "s")}) d
        where s.i = any(${`{${stored.join(",")}}`}::int[]) and s.at_ms[1] > d.at_ms[d.n]
        offset 0
      ) a
      where t.ctid = a.target
      returning a.i`),
  );
  return rows.map((r) => Number(r.i));
}

/** An incoming element of a merged block that is new (`old_a` null) or changed its time or value. */
export type MergedElement = { i: number; o: number; old_a: number | null; old_v: number | null };

/**
 * Merges the staged blocks `stored` into the user's blocks of the same (source, metric, day): an element
 * whose key the block holds replaces it, the others are added, the block stays ordered by time (ties by
 * key). Answers the incoming elements that were new or changed (`o`: the element's 1-based position in its
 * staged block); a block nothing changes is not rewritten.
 */
export async function mergeStagedBlocks(
  tx: Db,
  userId: string,
  stored: readonly number[],
): Promise<MergedElement[]> {
  if (stored.length === 0) return [];
  const rows = rowsOf<MergedElement>(
    await tx.execute(sql`
      with c as (
        select s.i, s.source, s.metric, s.day from ${sql.raw(STAGE)} s
        where s.i = any(${`{${stored.join(",")}}`}::int[])
      ), inc as (
        select s.i, u.o, u.a, u.v, u.k from ${sql.raw(STAGE)} s join c on c.i = s.i
        cross join lateral unnest(s.at_ms, s.vals, s.keys) with ordinality as u(a, v, k, o)
      ), blocks as (
        select c.i, d.ctid as target, d.at_ms, d.vals, d.keys from c cross join lateral (${blockOf(userId, "c")}) d
      ), cur as (
        select b.i, u.a, u.v, u.k from blocks b cross join lateral unnest(b.at_ms, b.vals, b.keys) as u(a, v, k)
      ), j as (
        select coalesce(inc.i, cur.i) as i, coalesce(inc.k, cur.k) as k, coalesce(inc.a, cur.a) as a,
          coalesce(inc.v, cur.v) as v, inc.o, cur.a as old_a, cur.v as old_v,
          inc.o is not null and (cur.k is null or inc.a <> cur.a or inc.v <> cur.v) as news
        from inc full join cur on cur.i = inc.i and cur.k = inc.k
      ), merged as (
        select j.i, count(*)::int as n,
          array_agg(j.a order by j.a, j.k collate "C") as at_ms,
          array_agg(j.v order by j.a, j.k collate "C") as vals,
          array_agg(j.k order by j.a, j.k collate "C") as keys
        from j where j.i in (select i from j where news) group by j.i
      ), upd as (
        update dashboard_samples d set n = m.n, at_ms = m.at_ms, vals = m.vals, keys = m.keys, updated_at = now()
        from merged m join blocks b on b.i = m.i
        where d.ctid = b.target
        returning 1
      )
      select i, o::int as o, old_a::float8 as old_a, old_v from j where news`),
  );
  return rows.map((r) => ({
    i: Number(r.i),
    o: Number(r.o),
    old_a: r.old_a === null ? null : Number(r.old_a),
    old_v: r.old_v === null ? null : Number(r.old_v),
  }));
}

/** Of these sources, the ones the user has blocks of. */
export async function sourcesWithSamples(tx: Db, userId: string, sources: readonly string[]) {
  if (sources.length === 0) return new Set<string>();
  const rows = rowsOf<{ s: string }>(
    await tx.execute(sql`
      select t.s from json_array_elements_text(${JSON.stringify(sources)}::json) as t(s)
      cross join lateral (select 1 from dashboard_samples d where d.user_id = ${userId} and d.source = t.s
        limit 1) x`),
  );
  return new Set(rows.map((r) => r.s));
}

/** Of these sources, the ones the user has values of in `dashboard_values`. */
export async function sourcesWithRows(tx: Db, userId: string, sources: readonly string[]) {
  if (sources.length === 0) return new Set<string>();
  const rows = rowsOf<{ s: string }>(
    await tx.execute(sql`
      select t.s from json_array_elements_text(${JSON.stringify(sources)}::json) as t(s)
      cross join lateral (select 1 from dashboard_values v where v.user_id = ${userId} and v.source = t.s
        limit 1) x`),
  );
  return new Set(rows.map((r) => r.s));
}

/**
 * Which of these values (`i`: the caller's index) have their key in the block their metric and UTC day
 * name, and the time and value stored there.
 */
export async function findInSampleBlocks(
  tx: Db,
  userId: string,
  values: readonly { i: number; source: string; metric: string; at_ms: number; client_id: string }[],
): Promise<{ i: number; a: number; v: number }[]> {
  if (values.length === 0) return [];
  const rows = rowsOf<{ i: number; a: number; v: number }>(
    await tx.execute(sql`
      select k.i, d.at_ms[p.p]::float8 as a, d.vals[p.p] as v
      from (
        select k.*, date '1970-01-01' + floor(k.at_ms / 86400000.0)::int as day
        from json_to_recordset(${JSON.stringify(values)}::json)
          as k(i int, source text, metric text, at_ms int8, client_id text)
      ) k
      cross join lateral (${blockOf(userId, "k")}) d
      cross join lateral (select array_position(d.keys, k.client_id) as p) p
      where p.p is not null`),
  );
  return rows.map((r) => ({ i: Number(r.i), a: Number(r.a), v: Number(r.v) }));
}

/**
 * Removes one source's samples by client id, on whatever day and metric they are, and answers what they
 * were (to recompute their days); blocks left empty go.
 */
export async function removeSampleKeys(
  tx: Db,
  userId: string,
  source: string,
  clientIds: readonly string[],
): Promise<GroupKey[]> {
  const keys = JSON.stringify(clientIds);
  const rows = rowsOf<{ metric: string; source: string; a: number }>(
    await tx.execute(sql`
      with gone as (select array_agg(k) as k from json_array_elements_text(${keys}::json) as t(k)),
      hit as (
        select d.source, d.metric, d.day, u.a, u.v, u.k, u.k = any(g.k) as drop
        from dashboard_samples d cross join gone g
        cross join lateral unnest(d.at_ms, d.vals, d.keys) as u(a, v, k)
        where d.user_id = ${userId} and d.source = ${source} and d.keys && g.k
      ), kept as (
        select source, metric, day, count(*) filter (where not drop)::int as n,
          array_agg(a order by a, k collate "C") filter (where not drop) as at_ms,
          array_agg(v order by a, k collate "C") filter (where not drop) as vals,
          array_agg(k order by a, k collate "C") filter (where not drop) as keys
        from hit group by 1, 2, 3
      ), upd as (
        update dashboard_samples d set n = k.n, at_ms = k.at_ms, vals = k.vals, keys = k.keys, updated_at = now()
        from kept k where k.n > 0 and d.user_id = ${userId} and d.source = k.source and d.metric = k.metric
          and d.day = k.day
        returning 1
      ), del as (
        delete from dashboard_samples d using kept k
        where k.n = 0 and d.user_id = ${userId} and d.source = k.source and d.metric = k.metric and d.day = k.day
        returning 1
      )
      select metric, source, a::float8 as a from hit where drop`),
  );
  return rows.map((r) => ({ metric: r.metric, source: r.source, at: new Date(Number(r.a)).toISOString() }));
}

/**
 * UTC offsets (ms) in zone `tz` at the start and at the last millisecond of each 15-minute bucket
 * (`bucket * 900,000` ms since 1970): where both are the same, every instant of the bucket has it.
 */
export async function bucketOffsets(
  tx: Db,
  tz: string,
  buckets: readonly number[],
): Promise<{ b: number; o0: number; o1: number }[]> {
  if (buckets.length === 0) return [];
  const rows = rowsOf<{ b: number; o0: number; o1: number }>(
    await tx.execute(sql`
      select b::float8 as b,
        (extract(epoch from (t.t0 at time zone ${tz}) - (t.t0 at time zone 'UTC')) * 1000)::float8 as o0,
        (extract(epoch from (t.t1 at time zone ${tz}) - (t.t1 at time zone 'UTC')) * 1000)::float8 as o1
      from unnest(${`{${buckets.join(",")}}`}::int8[]) as b
      cross join lateral (select to_timestamp(b * 900) as t0,
        to_timestamp(b * 900 + 900) - interval '1 millisecond' as t1) t`),
  );
  return rows.map((r) => ({ b: Number(r.b), o0: Number(r.o0), o1: Number(r.o1) }));
}

/** The local day (days since 1970) in `tz` of each instant (ms since 1970). */
export async function localDaysOf(tx: Db, tz: string, ms: readonly number[]): Promise<number[]> {
  if (ms.length === 0) return [];
  const rows = rowsOf<{ d: number }>(
    await tx.execute(sql`
      select ((${sql.raw(msToTs("a"))} at time zone ${tz})::date - date '1970-01-01') as d
      from unnest(${`{${ms.join(",")}}`}::int8[]) with ordinality as u(a, o) order by o`),
  );
  return rows.map((r) => Number(r.d));
}

/** A day's summary of new samples, to fold into `dashboard_daily`. */
export type SampleFold = {
  metric: string;
  source: string;
  /** Local day, days since 1970. */
  d: number;
  n: number;
  sum: number;
  min: number;
  max: number;
  last_ms: number;
  last_value: number;
};

/** Folds new samples' day summaries into the user's daily summaries (the values' `foldInserted`). */
export async function foldSampleDays(tx: Db, userId: string, folds: readonly SampleFold[]): Promise<void> {
  if (folds.length === 0) return;
  await tx.execute(sql`
    insert into dashboard_daily (user_id, metric, day, source, n, sum, min, max, last_at, last_value)
    select ${userId}, f.metric, date '1970-01-01' + f.d, f.source, f.n, f.sum, f.min, f.max,
      ${sql.raw(msToTs("f.last_ms"))}, f.last_value
    from json_to_recordset(${JSON.stringify(folds)}::json) as f(metric text, source text, d int, n int,
      sum float8, min float8, max float8, last_ms int8, last_value float8)
    on conflict (user_id, metric, day, source) do update set
      n = dashboard_daily.n + excluded.n,
      sum = dashboard_daily.sum + excluded.sum,
      min = least(dashboard_daily.min, excluded.min),
      max = greatest(dashboard_daily.max, excluded.max),
      last_value = case when excluded.last_at > dashboard_daily.last_at then excluded.last_value
        when excluded.last_at < dashboard_daily.last_at then dashboard_daily.last_value
        else greatest(excluded.last_value, dashboard_daily.last_value) end,
      last_at = greatest(dashboard_daily.last_at, excluded.last_at)`);
}

/**
 * The user's samples as rows (metric, at, value, source), for the summaries' from-scratch aggregations:
 * an SQL fragment to `union all` with `dashboard_values`.
 */
export const sampleRowsOf = (userId: string) => sql`
  select d.metric, ${sql.raw(msToTs("u.a"))} as at, u.v as value, d.source
  from dashboard_samples d cross join lateral unnest(d.at_ms, d.vals) as u(a, v)
  where d.user_id = ${userId}`;
