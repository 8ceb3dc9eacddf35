import {
  DASHBOARD_LIMITS,
  displayUnitOf,
  entryUnitsOf,
  fromDisplayUnit,
  isMetricKey,
  type ManualValue,
  type ManualValueCreate,
  type ManualValueList,
  METRICS,
  type MetricKey,
  toDisplayUnit,
} from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { recordValues, removeValues } from "../dashboard-values/dashboard-values.service.ts";
import { findByClientId, findSourceValue, listSourceValues, type ValueRowOut } from "./dashboard.repo.ts";
import type { Viewer } from "./dashboard.service.ts";

/** Values the person types in on the dashboard (weight, water, sleep…), source `manual`. */
export const MANUAL_SOURCE = "manual";

type Ctx = Pick<AppContext, "database">;

function toWire(row: ValueRowOut, viewer: Viewer): ManualValue | null {
  if (!isMetricKey(row.metric)) return null;
  const unit = displayUnitOf(row.metric, viewer.units, viewer.energy);
  return {
    id: String(row.id),
    client_id: row.clientId,
    metric: row.metric,
    at: row.at.toISOString(),
    value: toDisplayUnit(row.value, unit),
    unit,
  };
}

function requireCustomer(viewer: Viewer): string {
  if (viewer.demo || !viewer.userId)
    throw new AppError("pro_required", "Your own dashboard is part of PRO: upgrade to add values");
  return viewer.userId;
}

const invalid = (path: string, message: string) =>
  new AppError("validation_failed", message, { issues: [{ path, message }] });

/** The value in its storage unit after checking the metric, unit, plausible range and time. */
function checkedValue(input: ManualValueCreate, now: Date): { metric: MetricKey; value: number } {
  const def = METRICS[input.metric];
  if (!("manual" in def) || def.manual !== true)
    throw invalid("metric", "This metric cannot be entered by hand");
  if (!entryUnitsOf(input.metric).includes(input.unit))
    throw invalid("unit", "This unit does not fit the metric");
  const value = fromDisplayUnit(input.value, input.unit);
  const [min, max] = def.range;
  if (!(value >= min && value <= max)) throw invalid("value", "The value is outside the plausible range");
  if (new Date(input.at).getTime() > now.getTime() + DASHBOARD_LIMITS.maxFutureMs)
    throw invalid("at", "The time cannot be in the future");
  return { metric: input.metric, value };
}

/** Adds a value; a retry with the same `client_id` answers the stored value (created: false). */
export async function createManualValue(
  ctx: Ctx,
  viewer: Viewer,
  input: ManualValueCreate,
): Promise<{ value: ManualValue; created: boolean }> {
  const userId = requireCustomer(viewer);
  const { metric, value } = checkedValue(input, new Date());
  const { row, created } = await ctx.database.db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const before = await findByClientId(tx, userId, MANUAL_SOURCE, input.client_id);
    if (before) return { row: before, created: false };
    await recordValues(tx, userId, [
      { metric, at: new Date(input.at), value, source: MANUAL_SOURCE, clientId: input.client_id },
    ]);
    return { row: await findByClientId(tx, userId, MANUAL_SOURCE, input.client_id), created: true };
  });
  const wire = row ? toWire(row, viewer) : null;
  if (!wire) throw new AppError("conflict", "The value could not be stored, try again");
  return { value: wire, created };
}

export async function listManualValues(
  ctx: Ctx,
  viewer: Viewer,
  q: { metric?: MetricKey | undefined; limit: number; offset: number },
): Promise<ManualValueList> {
  if (viewer.demo || !viewer.userId) return { results: [], count: 0 };
  const { rows, count } = await listSourceValues(ctx.database.db, viewer.userId, MANUAL_SOURCE, q);
  return { results: rows.flatMap((r) => toWire(r, viewer) ?? []), count };
}

/** Deletes one of the person's own entries; any other id is "not found". */
export async function deleteManualValue(ctx: Ctx, viewer: Viewer, id: string): Promise<void> {
  const userId = requireCustomer(viewer);
  const numeric = /^\d{1,15}$/.test(id) ? Number(id) : -1;
  await ctx.database.db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const row = numeric > 0 ? await findSourceValue(tx, userId, MANUAL_SOURCE, numeric) : null;
    if (!row) throw new AppError("not_found", "Not found");
    await removeValues(tx, userId, MANUAL_SOURCE, [row.clientId]);
  });
}
