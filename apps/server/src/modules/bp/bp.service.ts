import type {
  BpReading,
  BpReadingCreate,
  BpReadingList,
  BpReadingListQuery,
  BpReadingUpdate,
} from "@tonus/contract";
import { bpCategory } from "@tonus/hrv";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { recordValues, removeValues } from "../dashboard-values/dashboard-values.service.ts";
import {
  type BpReadingRow,
  deleteReadingOf,
  findReadingByClientId,
  findReadingOf,
  type InsertedReading,
  insertReading,
  insertReadings,
  listReadingsOf,
  nearestReading,
  type ReadingValues,
  readingsBetween,
  updateReadingOf,
} from "./bp.repo.ts";

/** Event types this module emits; payload `{ reading_id, measured_at, previous_measured_at? }`. */
export const BP_EVENTS = {
  added: "bp.reading_added",
  changed: "bp.reading_changed",
  deleted: "bp.reading_deleted",
} as const;

type Ctx = Pick<AppContext, "database" | "services">;

export function readingToWire(row: BpReadingRow): BpReading {
  return {
    id: row.id,
    client_id: row.clientId,
    systolic: row.systolic,
    diastolic: row.diastolic,
    pulse: row.pulse,
    measured_at: row.measuredAt.toISOString(),
    time_zone: row.timeZone,
    arm: (row.arm as BpReading["arm"]) ?? null,
    note: row.note,
    category: bpCategory(row.systolic, row.diastolic),
    created: row.createdAt.toISOString(),
  };
}

const tx0 = (tx: unknown) => tx as Db;

/** The dashboard source of the log's readings; each reading writes its values keyed by its id. */
export const BP_DASHBOARD_SOURCE = "bp_log";

const dashboardKeys = (id: string) => [`${id}:systolic`, `${id}:diastolic`, `${id}:pulse`];

/**
 * Writes readings' pressures and pulse to the dashboard (charts "Blood pressure" and "Pulse"), in the
 * caller's transaction; a reading whose pulse was cleared loses its pulse value.
 */
export async function syncReadingsToDashboard(tx: Db, userId: string, rows: readonly InsertedReading[]) {
  const source = BP_DASHBOARD_SOURCE;
  await recordValues(
    tx,
    userId,
    rows.flatMap((r) => [
      { metric: "bp_systolic", at: r.measuredAt, value: r.systolic, source, clientId: `${r.id}:systolic` },
      { metric: "bp_diastolic", at: r.measuredAt, value: r.diastolic, source, clientId: `${r.id}:diastolic` },
      ...(r.pulse === null
        ? []
        : [{ metric: "bp_pulse", at: r.measuredAt, value: r.pulse, source, clientId: `${r.id}:pulse` }]),
    ]),
  );
}

/** Removes the pulse value of readings that have none any more (an edit cleared it). */
async function dropClearedPulse(tx: Db, row: BpReadingRow, before: BpReadingRow) {
  if (row.pulse === null && before.pulse !== null)
    await removeValues(tx, row.userId, BP_DASHBOARD_SOURCE, [`${row.id}:pulse`]);
}

const syncDashboard = (tx: Db, row: BpReadingRow) => syncReadingsToDashboard(tx, row.userId, [row]);

/**
 * Adds a reading. With a `client_id` this user already sent, answers the stored reading and
 * `created: false` (a retry), changing nothing. Emits "bp.reading_added" in the same transaction.
 * `db` may be a caller's transaction (the ingest API stores a whole batch in one).
 */
export async function createReading(
  ctx: Ctx,
  userId: string,
  input: BpReadingCreate,
  db: Db = ctx.database.db,
): Promise<{ reading: BpReading; created: boolean }> {
  const result = await db.transaction(async (t) => {
    const tx = tx0(t);
    const row = await insertReading(tx, {
      userId,
      clientId: input.client_id ?? null,
      systolic: input.systolic,
      diastolic: input.diastolic,
      pulse: input.pulse ?? null,
      measuredAt: new Date(input.measured_at),
      timeZone: input.time_zone,
      arm: input.arm ?? null,
      note: input.note ?? "",
    });
    if (!row) return null;
    await syncDashboard(tx, row);
    await ctx.services.events.emitEvent(tx, {
      type: BP_EVENTS.added,
      userId,
      payload: { reading_id: row.id, measured_at: row.measuredAt.toISOString() },
    });
    return row;
  });
  if (result) return { reading: readingToWire(result), created: true };
  const existing = input.client_id ? await findReadingByClientId(db, userId, input.client_id) : null;
  if (!existing) throw new AppError("conflict", "The reading could not be stored, try again");
  return { reading: readingToWire(existing), created: false };
}

/**
 * `createReading` for many readings at once, in the caller's transaction (a file import writes a batch
 * with its checkpoint): each reading whose client id this user has not used yet is inserted, written to
 * the dashboard and announced ("bp.reading_added"), with one statement for each; a client id already
 * used (earlier, or earlier in `inputs`) changes nothing. Answers, per input, whether it was new.
 */
export async function storeReadings(
  ctx: Pick<AppContext, "services">,
  tx: Db,
  userId: string,
  inputs: readonly (BpReadingCreate & { client_id: string })[],
): Promise<boolean[]> {
  const rows = await insertReadings(
    tx,
    inputs.map((input) => ({
      userId,
      clientId: input.client_id,
      systolic: input.systolic,
      diastolic: input.diastolic,
      pulse: input.pulse ?? null,
      measuredAt: new Date(input.measured_at),
      timeZone: input.time_zone,
      arm: input.arm ?? null,
      note: input.note ?? "",
    })),
  );
  await syncReadingsToDashboard(tx, userId, rows);
  await ctx.services.events.emitEvents(
    tx,
    rows.map((row) => ({
      type: BP_EVENTS.added,
      userId,
      payload: { reading_id: row.id, measured_at: row.measuredAt.toISOString() },
    })),
  );
  const fresh = new Set(rows.map((r) => r.clientId));
  return inputs.map((input) => fresh.delete(input.client_id));
}

/** The user's readings measured in [from, to], oldest first: what a measurement takes of each. */
export function findReadingsBetween(db: Db, userId: string, from: Date, to: Date): Promise<ReadingValues[]> {
  return readingsBetween(db, userId, from, to);
}

export async function getReading(ctx: Pick<AppContext, "database">, userId: string, id: string) {
  const row = await findReadingOf(ctx.database.db, userId, id);
  if (!row) throw new AppError("not_found", "Not found");
  return readingToWire(row);
}

export async function listReadings(
  ctx: Pick<AppContext, "database">,
  userId: string,
  q: BpReadingListQuery,
): Promise<BpReadingList> {
  const { rows, count } = await listReadingsOf(ctx.database.db, userId, {
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
    limit: q.limit,
    offset: q.offset,
  });
  return { results: rows.map(readingToWire), count, limit: q.limit, offset: q.offset };
}

/** Changes a reading of the user's; the result must still have systolic above diastolic. */
export async function updateReading(
  ctx: Ctx,
  userId: string,
  id: string,
  input: BpReadingUpdate,
): Promise<BpReading> {
  const row = await ctx.database.db.transaction(async (t) => {
    const tx = tx0(t);
    const before = await findReadingOf(tx, userId, id);
    if (!before) throw new AppError("not_found", "Not found");
    const systolic = input.systolic ?? before.systolic;
    const diastolic = input.diastolic ?? before.diastolic;
    if (systolic <= diastolic)
      throw new AppError("validation_failed", "Systolic pressure must be above diastolic", {
        issues: [{ path: "systolic", message: "Systolic pressure must be above diastolic" }],
      });
    const after = await updateReadingOf(tx, userId, id, {
      ...(input.systolic !== undefined ? { systolic: input.systolic } : {}),
      ...(input.diastolic !== undefined ? { diastolic: input.diastolic } : {}),
      ...(input.pulse !== undefined ? { pulse: input.pulse } : {}),
      ...(input.measured_at !== undefined ? { measuredAt: new Date(input.measured_at) } : {}),
      ...(input.time_zone !== undefined ? { timeZone: input.time_zone } : {}),
      ...(input.arm !== undefined ? { arm: input.arm } : {}),
      ...(input.note !== undefined ? { note: input.note } : {}),
    });
    if (!after) throw new AppError("not_found", "Not found");
    await dropClearedPulse(tx, after, before);
    await syncDashboard(tx, after);
    await ctx.services.events.emitEvent(tx, {
      type: BP_EVENTS.changed,
      userId,
      payload: {
        reading_id: id,
        measured_at: after.measuredAt.toISOString(),
        previous_measured_at: before.measuredAt.toISOString(),
      },
    });
    return after;
  });
  return readingToWire(row);
}

export async function deleteReading(ctx: Ctx, userId: string, id: string): Promise<void> {
  await ctx.database.db.transaction(async (t) => {
    const tx = tx0(t);
    const row = await deleteReadingOf(tx, userId, id);
    if (!row) throw new AppError("not_found", "Not found");
    await removeValues(tx, userId, BP_DASHBOARD_SOURCE, dashboardKeys(id));
    await ctx.services.events.emitEvent(tx, {
      type: BP_EVENTS.deleted,
      userId,
      payload: { reading_id: id, measured_at: row.measuredAt.toISOString() },
    });
  });
}

/**
 * The service other modules ask (measurements' blood-pressure indices): the user's reading nearest in
 * time to `at` within ± `windowMinutes`, or null. Takes the caller's `db` or transaction.
 */
export async function findReadingNear(
  db: Db,
  userId: string,
  at: Date,
  windowMinutes: number,
): Promise<BpReadingRow | null> {
  return nearestReading(db, userId, at, windowMinutes);
}
