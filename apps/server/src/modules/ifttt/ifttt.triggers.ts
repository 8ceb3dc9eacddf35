import { bpCategory } from "@tonus/hrv";
import { and, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { arrayLiteral, rowsOf } from "../../db/raw.ts";
import { bpReadings, iftttEvents, measurements } from "../../db/schema.ts";
import type { DomainEvent } from "../../lib/events.ts";
import { UUID_RE } from "../../lib/uuid.ts";

/** What an IFTTT event row records: a measurement or a blood-pressure reading. */
export type IftttEventKind = "hrv_measurement" | "bp_reading";

/**
 * The domain events this module listens to (emitted by modules/bp and modules/measurements in the
 * transaction that stores the row). Their payloads carry ids only; the values are read from the row.
 */
export const IFTTT_EVENT_TYPES = {
  bpAdded: "bp.reading_added",
  bpDeleted: "bp.reading_deleted",
  measurementCreated: "measurement.created",
  measurementDeleted: "measurement.deleted",
} as const;

/** 2018 ESC/ESH office categories, as the blood-pressure module names them. */
export const BP_CATEGORIES = [
  ["optimal", "Optimal"],
  ["normal", "Normal"],
  ["high_normal", "High normal"],
  ["grade_1", "Grade 1 hypertension"],
  ["grade_2", "Grade 2 hypertension"],
  ["grade_3", "Grade 3 hypertension"],
  ["isolated_systolic_1", "Isolated systolic hypertension, grade 1"],
  ["isolated_systolic_2", "Isolated systolic hypertension, grade 2"],
  ["isolated_systolic_3", "Isolated systolic hypertension, grade 3"],
] as const;

const finite = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const pick = (o: unknown, k: string) =>
  o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined;

/** What a blood-pressure reading's trigger items carry (category as bpCategory names it). */
export function bpEventData(row: { systolic: number; diastolic: number; pulse: number | null }) {
  return {
    systolic: row.systolic,
    diastolic: row.diastolic,
    ...(row.pulse !== null ? { pulse: row.pulse } : {}),
    category: bpCategory(row.systolic, row.diastolic),
  };
}

/** What a measurement's trigger items carry: its scores and values, where the result has them. */
export function measurementEventData(result: unknown): Record<string, number> {
  const scores = pick(result, "scores");
  const values = pick(result, "values");
  const data = {
    stress: finite(pick(scores, "stress")),
    energy: finite(pick(scores, "energy")),
    performance: finite(pick(scores, "performance")),
    heart_rate: finite(pick(values, "heart_rate")),
    rmssd: finite(pick(values, "rmssd")),
  };
  return Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)) as Record<
    string,
    number
  >;
}

/** The rows the events name that belong to the event's own person, in the events' order. */
function ownRows<R extends { id: string; userId: string }>(
  refs: readonly { id: string; userId: string }[],
  rows: readonly R[],
): R[] {
  const byId = new Map(rows.map((r) => [r.id, r] as const));
  return refs.flatMap((ref) => {
    const row = byId.get(ref.id);
    return row?.userId === ref.userId ? [row] : [];
  });
}

/**
 * Keeps the IFTTT copy of each new reading or measurement (the numbers triggers filter on, as they were
 * when it happened), and drops it when the person deletes the original. A repeated delivery is a no-op.
 * Reads and writes once per kind for the whole list (an import announces thousands). Answers the people
 * who got a new trigger event.
 */
export async function recordIftttEvents(tx: Db, events: readonly DomainEvent[]): Promise<Set<string>> {
  const readings: { id: string; userId: string }[] = [];
  const created: { id: string; userId: string }[] = [];
  const deleted: { userId: string; kind: IftttEventKind; id: string }[] = [];
  for (const event of events) {
    const userId = event.userId;
    const p = event.payload;
    if (!userId) continue;
    if (event.type === IFTTT_EVENT_TYPES.bpAdded && typeof p.reading_id === "string")
      readings.push({ id: p.reading_id, userId });
    else if (event.type === IFTTT_EVENT_TYPES.measurementCreated && typeof p.measurement_id === "string")
      created.push({ id: p.measurement_id, userId });
    else if (
      event.type === IFTTT_EVENT_TYPES.bpDeleted ||
      event.type === IFTTT_EVENT_TYPES.measurementDeleted
    ) {
      const id = p.reading_id ?? p.measurement_id;
      const kind = event.type === IFTTT_EVENT_TYPES.bpDeleted ? "bp_reading" : "hrv_measurement";
      if (typeof id === "string") deleted.push({ userId, kind, id });
    }
  }
  const rows: {
    user_id: string;
    kind: IftttEventKind;
    source_id: string;
    occurred_at: string;
    data: object;
  }[] = [];
  const ids = (refs: readonly { id: string }[]) => [...new Set(refs.map((r) => r.id))];
  if (readings.length > 0) {
    const found = await tx
      .select()
      .from(bpReadings)
      .where(inArray(bpReadings.id, ids(readings)));
    for (const row of ownRows(readings, found))
      rows.push({
        user_id: row.userId,
        kind: "bp_reading",
        source_id: row.id,
        occurred_at: row.measuredAt.toISOString(),
        data: bpEventData(row),
      });
  }
  if (created.length > 0) {
    // Only the numbers the trigger items carry: the whole result (the decoding, several KB each) would
    // be read and parsed on the server's main thread for every measurement an import announces.
    const found = rowsOf<{ id: string; user_id: string; started_at: string | Date; data: unknown }>(
      await tx.execute(sql`
        select id, user_id, started_at, jsonb_build_object(
          'scores', jsonb_build_object('stress', result->'scores'->'stress',
            'energy', result->'scores'->'energy', 'performance', result->'scores'->'performance'),
          'values', jsonb_build_object('heart_rate', result->'values'->'heart_rate',
            'rmssd', result->'values'->'rmssd')) as data
        from measurements where id in (select unnest(${arrayLiteral(ids(created).filter((id) => UUID_RE.test(id)))}::uuid[]))`),
    ).map((r) => ({ id: r.id, userId: r.user_id, startedAt: new Date(r.started_at), data: r.data }));
    for (const row of ownRows(created, found))
      rows.push({
        user_id: row.userId,
        kind: "hrv_measurement",
        source_id: row.id,
        occurred_at: row.startedAt.toISOString(),
        data: measurementEventData(row.data),
      });
  }
  const added = new Set<string>();
  if (rows.length > 0) {
    const inserted = rowsOf<{ user_id: string }>(
      await tx.execute(sql`
        insert into ifttt_events (user_id, kind, source_id, occurred_at, data)
        select user_id, kind, source_id, occurred_at, data
        from json_to_recordset(${JSON.stringify(rows)}::json)
          as t(user_id uuid, kind text, source_id text, occurred_at timestamptz, data jsonb)
        on conflict do nothing
        returning user_id`),
    );
    for (const r of inserted) added.add(r.user_id);
  }
  // After the inserts: an original created and deleted before this delivery is found by neither.
  for (const d of deleted)
    await tx
      .delete(iftttEvents)
      .where(
        and(eq(iftttEvents.userId, d.userId), eq(iftttEvents.kind, d.kind), eq(iftttEvents.sourceId, d.id)),
      );
  return added;
}

type Field = {
  /** Validates a value IFTTT sends; the message is shown to the person in IFTTT. */
  validate: (value: unknown) => string | null;
  options?: readonly { label: string; value: string }[];
  sample: string;
  invalidSample: string;
};

const threshold: Field = {
  validate: (v) => {
    const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
    return Number.isFinite(n) && n >= 0 && n <= 100 ? null : "Enter a number from 0 to 100";
  },
  sample: "50",
  invalidSample: "abc",
};

const categoryField: Field = {
  validate: (v) => (BP_CATEGORIES.some(([value]) => value === v) ? null : "Choose a category from the list"),
  options: BP_CATEGORIES.map(([value, label]) => ({ label, value })),
  sample: "grade_1",
  invalidSample: "very_high",
};

export type TriggerDef = {
  kind: IftttEventKind;
  fields: Record<string, Field>;
  matches: (data: Record<string, unknown>, fields: Record<string, unknown>) => boolean;
};

const num = (v: unknown) => (typeof v === "number" ? v : Number(v));

/** The triggers: new HRV measurement, stress above, energy below, new BP reading, BP in a category. */
export const TRIGGERS: Record<string, TriggerDef> = {
  new_hrv_measurement: { kind: "hrv_measurement", fields: {}, matches: () => true },
  stress_above: {
    kind: "hrv_measurement",
    fields: { threshold },
    matches: (d, f) => typeof d.stress === "number" && d.stress > num(f.threshold),
  },
  energy_below: {
    kind: "hrv_measurement",
    fields: { threshold },
    matches: (d, f) => typeof d.energy === "number" && d.energy < num(f.threshold),
  },
  new_bp_reading: { kind: "bp_reading", fields: {}, matches: () => true },
  bp_in_category: {
    kind: "bp_reading",
    fields: { category: categoryField },
    matches: (d, f) => d.category === f.category,
  },
};

export type TriggerItem = Record<string, unknown> & { meta: { id: string; timestamp: number } };

/** Whether `timeZone` is an IANA zone this runtime knows. */
export function isTimeZone(timeZone: unknown): timeZone is string {
  if (typeof timeZone !== "string" || timeZone === "") return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * `at` as ISO 8601 with the wall-clock time and UTC offset of `timeZone` (`2026-11-22T09:15:00+01:00`),
 * the form IFTTT shows a "date with time" ingredient in.
 */
export function isoInZone(at: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      timeZoneName: "longOffset",
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  // "GMT" alone is UTC; historical zones can have second offsets ("GMT+05:53:28"), cut to ±hh:mm.
  const offset = parts.timeZoneName === "GMT" ? "+00:00" : String(parts.timeZoneName).slice(3, 9);
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}

/** IFTTT ingredients are strings or numbers; absent values are empty strings so recipes never break. */
function ingredients(
  kind: IftttEventKind,
  data: Record<string, unknown>,
  occurredAt: Date,
  timeZone: string,
) {
  const keys =
    kind === "hrv_measurement"
      ? ["stress", "energy", "performance", "heart_rate", "rmssd"]
      : ["systolic", "diastolic", "pulse", "category"];
  const out: Record<string, unknown> = { measured_at: isoInZone(occurredAt, timeZone) };
  for (const k of keys) out[k] = data[k] ?? "";
  return out;
}

type EventRow = typeof iftttEvents.$inferSelect;

/**
 * A measurement restored from an archive (or backfilled by migration 0013) before the recompute job
 * gave it a result has an event with empty data; once the result exists, the event takes its numbers.
 */
async function completeMeasurementEvents(db: Db, userId: string, rows: EventRow[]): Promise<void> {
  const empty = rows.filter((r) => r.kind === "hrv_measurement" && Object.keys(r.data).length === 0);
  if (empty.length === 0) return;
  const ids = empty.map((r) => r.sourceId).filter((id) => UUID_RE.test(id));
  if (ids.length === 0) return;
  const found = await db
    .select({ id: measurements.id, result: measurements.result })
    .from(measurements)
    .where(
      and(eq(measurements.userId, userId), inArray(measurements.id, ids), isNotNull(measurements.result)),
    );
  for (const m of found) {
    const data = measurementEventData(m.result);
    if (Object.keys(data).length === 0) continue;
    for (const row of empty) {
      if (row.sourceId !== m.id) continue;
      row.data = data;
      await db.update(iftttEvents).set({ data }).where(eq(iftttEvents.id, row.id));
    }
  }
}

/**
 * Up to `limit` matching events, newest first, each with its ingredients (times in `timeZone`) and a
 * stable `meta`.
 */
export async function pollTrigger(
  db: Db,
  q: {
    userId: string;
    slug: string;
    def: TriggerDef;
    fields: Record<string, unknown>;
    limit: number;
    timeZone: string;
  },
): Promise<TriggerItem[]> {
  const { userId, slug, def, fields, limit, timeZone } = q;
  if (limit === 0) return [];
  const out: TriggerItem[] = [];
  // Filtering happens here (few rows per person); scan newest first in pages until `limit` match.
  const PAGE = 500;
  for (let offset = 0; out.length < limit && offset < 20_000; offset += PAGE) {
    const rows = await db
      .select()
      .from(iftttEvents)
      .where(and(eq(iftttEvents.userId, userId), eq(iftttEvents.kind, def.kind)))
      .orderBy(desc(iftttEvents.occurredAt), desc(iftttEvents.id))
      .limit(PAGE)
      .offset(offset);
    await completeMeasurementEvents(db, userId, rows);
    for (const row of rows) {
      if (!def.matches(row.data, fields)) continue;
      out.push({
        ...ingredients(def.kind, row.data, row.occurredAt, timeZone),
        meta: {
          id: `${slug}-${row.kind}-${row.sourceId}`,
          timestamp: Math.floor(row.occurredAt.getTime() / 1000),
        },
      });
      if (out.length >= limit) break;
    }
    if (rows.length < PAGE) break;
  }
  return out;
}

/** Fixture events for `test/setup`: three measurements and three readings that every trigger matches. */
export async function seedFixtureEvents(db: Db, userId: string, now = new Date()): Promise<void> {
  const rows = [0, 1, 2].flatMap((i) => {
    const at = new Date(now.getTime() - (i + 1) * 3_600_000);
    return [
      {
        userId,
        kind: "hrv_measurement",
        sourceId: `fixture-m-${i}`,
        occurredAt: at,
        data: { stress: 80 + i, energy: 20 - i, performance: 50, heart_rate: 70 + i, rmssd: 30 + i },
      },
      {
        userId,
        kind: "bp_reading",
        sourceId: `fixture-bp-${i}`,
        occurredAt: at,
        data: { systolic: 150 + i, diastolic: 95, pulse: 72, category: "grade_1" },
      },
    ];
  });
  await db.insert(iftttEvents).values(rows).onConflictDoNothing();
}
