import { and, eq, notExists, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Db } from "../../db/client.ts";
import { bpReadings, iftttEvents, measurements } from "../../db/schema.ts";
import { bpEventData, measurementEventData } from "./ifttt.triggers.ts";

const CHUNK = 500;

/** An `ifttt_events` row of `kind` for the source row's id does not exist yet. */
const hasNoEvent = (db: Db, userId: string, kind: string, sourceId: AnyPgColumn) =>
  notExists(
    db
      .select({ one: sql`1` })
      .from(iftttEvents)
      .where(
        and(
          eq(iftttEvents.userId, userId),
          eq(iftttEvents.kind, kind),
          eq(iftttEvents.sourceId, sql`${sourceId}::text`),
        ),
      ),
  );

/**
 * Writes the trigger events of one person's readings and measurements that have none: those an archive
 * import restored (they arrive without domain events). The same rows as migration 0013 writes for data
 * stored before `ifttt_events` existed. Idempotent; answers how many events were added.
 */
export async function backfillIftttEvents(tx: Db, userId: string): Promise<number> {
  let added = 0;
  const readings = await tx
    .select()
    .from(bpReadings)
    .where(and(eq(bpReadings.userId, userId), hasNoEvent(tx, userId, "bp_reading", bpReadings.id)));
  const measurementRows = await tx
    .select({ id: measurements.id, startedAt: measurements.startedAt, result: measurements.result })
    .from(measurements)
    .where(and(eq(measurements.userId, userId), hasNoEvent(tx, userId, "hrv_measurement", measurements.id)));
  const rows = [
    ...readings.map((r) => ({
      userId,
      kind: "bp_reading",
      sourceId: r.id,
      occurredAt: r.measuredAt,
      data: bpEventData(r) as Record<string, unknown>,
    })),
    ...measurementRows.map((m) => ({
      userId,
      kind: "hrv_measurement",
      sourceId: m.id,
      occurredAt: m.startedAt,
      data: measurementEventData(m.result) as Record<string, unknown>,
    })),
  ];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const inserted = await tx
      .insert(iftttEvents)
      .values(rows.slice(i, i + CHUNK))
      .onConflictDoNothing()
      .returning({ id: iftttEvents.id });
    added += inserted.length;
  }
  return added;
}
