import {
  ANALYTICS_EVENT_NAMES,
  ANALYTICS_PROPERTY_KEYS,
  type AnalyticsEvent,
  type AnalyticsSendResult,
  type AnalyticsSummary,
  type TimeOfDay,
} from "@tonus/contract";
import { eq, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { analyticsEvents } from "../../db/schema.ts";
import { hmac } from "../../lib/crypto.ts";

const NAMES: ReadonlySet<string> = new Set(ANALYTICS_EVENT_NAMES);
const KEYS: ReadonlySet<string> = new Set(ANALYTICS_PROPERTY_KEYS);
const DAY_MS = 86_400_000;
/** Events dated further back or ahead than this are clock errors or replays: dropped. */
const MAX_AGE_MS = 30 * DAY_MS;
const MAX_AHEAD_MS = DAY_MS;

/**
 * The spec's time-of-day buckets (§7) as half-open hour ranges: night [3, 5), morning [5, 12),
 * day [12, 20), evening otherwise ([20, 24) and [0, 3)).
 */
export function timeOfDayBucket(hour: number): TimeOfDay {
  if (hour >= 3 && hour < 5) return "night";
  if (hour >= 5 && hour < 12) return "morning";
  if (hour >= 12 && hour < 20) return "day";
  return "evening";
}

/** The local hour (0–23) of `at` in `timeZone`; UTC when the zone is unknown. */
export function localHour(at: Date, timeZone: string | null | undefined): number {
  const read = (tz: string) =>
    Number(new Intl.DateTimeFormat("en-GB", { hour: "2-digit", hourCycle: "h23", timeZone: tz }).format(at));
  try {
    return read(timeZone || "UTC");
  } catch {
    return read("UTC");
  }
}

/** The keyed pseudonym stored instead of a user or device id (never reversible without the secret). */
export function analyticsKey(secret: string, kind: "user" | "device", id: string): string {
  return hmac(secret, `analytics:${kind}:${id}`);
}

/**
 * Keeps only allow-listed keys with short string or boolean values. Numbers are dropped whatever the
 * key, so no measurement value can travel in an event; paths lose their query and fragment (they can
 * carry tokens), and control characters are removed.
 */
export function cleanProps(props: Record<string, unknown> | undefined): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const [k, v] of Object.entries(props ?? {})) {
    if (!KEYS.has(k)) continue;
    if (typeof v === "boolean") out[k] = v;
    else if (typeof v === "string") {
      // Control characters (NUL above all) and lone surrogates are never part of a label, and PostgreSQL's
      // jsonb refuses both.
      const value = (k === "path" ? (v.split(/[?#]/)[0] ?? "") : v)
        .toWellFormed()
        // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
        .replace(/[\u0000-\u001f\u007f]/g, "");
      // A string that is only a number is a value in disguise.
      if (/^\s*-?\d+([.,]\d+)?\s*$/.test(value)) continue;
      out[k] = value.slice(0, 120);
    }
  }
  return out;
}

/** Stores events idempotently by event_id; disallowed names and out-of-range dates are dropped. */
export async function ingestEvents(
  db: Db,
  secret: string,
  events: AnalyticsEvent[],
  now = new Date(),
): Promise<AnalyticsSendResult> {
  let stored = 0;
  let duplicates = 0;
  let dropped = 0;
  for (const e of events) {
    const at = new Date(e.date_created);
    const age = now.getTime() - at.getTime();
    if (!NAMES.has(e.event_name) || Number.isNaN(age) || age > MAX_AGE_MS || age < -MAX_AHEAD_MS) {
      dropped++;
      continue;
    }
    const rows = await db
      .insert(analyticsEvents)
      .values({
        eventId: e.event_id.toLowerCase(),
        userKey: e.user_id ? analyticsKey(secret, "user", e.user_id) : null,
        deviceKey: e.device_id ? analyticsKey(secret, "device", e.device_id) : null,
        name: e.event_name,
        props: cleanProps(e.event_props),
        dateCreated: at,
        timeOfDay: timeOfDayBucket(localHour(at, e.timezone)),
        receivedAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: analyticsEvents.eventId });
    if (rows.length) stored++;
    else duplicates++;
  }
  return { stored, duplicates, dropped };
}

export async function deleteEventsOf(db: Db, secret: string, userId: string): Promise<void> {
  await db.delete(analyticsEvents).where(eq(analyticsEvents.userKey, analyticsKey(secret, "user", userId)));
}

export async function deleteExpiredEvents(db: Db, retentionDays: number, now = new Date()): Promise<number> {
  const rows = await db
    .delete(analyticsEvents)
    .where(lt(analyticsEvents.dateCreated, new Date(now.getTime() - retentionDays * DAY_MS)))
    .returning({ id: analyticsEvents.eventId });
  return rows.length;
}

const FUNNEL = ["sign_up", "measurement_completed", "upgrade_completed"] as const;

/**
 * The operator's view over the last `days` days (UTC dates): daily active users, and the funnel
 * sign-up → first measurement → upgrade. Steps count in order per person: a measurement counts only at
 * or after that person's first sign-up in the window, an upgrade only at or after their first
 * measurement after it; a person who upgraded before measuring stops at the measurement step.
 */
export async function summarize(db: Db, days: number, now = new Date()): Promise<AnalyticsSummary> {
  const since = new Date(now.getTime() - days * DAY_MS);
  const daily = (await db.execute(sql`
    select to_char(date_created at time zone 'UTC', 'YYYY-MM-DD') as date, count(distinct user_key)::int as users
    from analytics_events where user_key is not null and date_created >= ${since}
    group by 1 order by 1`)) as unknown as { rows: { date: string; users: number }[] };
  const steps = (await db.execute(sql`
    with signed as (
      select user_key, min(date_created) as at from analytics_events
      where name = 'sign_up' and user_key is not null and date_created >= ${since} and date_created <= ${now}
      group by user_key),
    measured as (
      select e.user_key, min(e.date_created) as at from analytics_events e join signed s using (user_key)
      where e.name = 'measurement_completed' and e.date_created >= s.at and e.date_created <= ${now}
      group by e.user_key),
    upgraded as (
      select e.user_key from analytics_events e join measured m using (user_key)
      where e.name = 'upgrade_completed' and e.date_created >= m.at and e.date_created <= ${now}
      group by e.user_key)
    select (select count(*) from signed)::int as sign_up,
      (select count(*) from measured)::int as measurement_completed,
      (select count(*) from upgraded)::int as upgrade_completed`)) as unknown as {
    rows: { sign_up: number; measurement_completed: number; upgrade_completed: number }[];
  };
  const row = steps.rows[0];
  const funnel: AnalyticsSummary["funnel"] = FUNNEL.map((step) => ({ step, users: row?.[step] ?? 0 }));
  return { days, daily_active_users: daily.rows, funnel };
}
