import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { dashboardValues } from "../../db/schema.ts";

/**
 * The one write path for dated values the dashboard charts (issue 5): measurements, manual entries,
 * imports and automations all go through `recordValues`. Values are stored in the metric's storage unit
 * (SI where there is one: durations in seconds, powers in s²; heart rate in beats per minute; scores and
 * indices as they are). This is the minimal write path; chart summaries and source priorities come with
 * the dashboard module (issue 5) and hook in here.
 */
export type DashboardValue = {
  /** Metric key, e.g. `heart_rate`, `rmssd`, `stress`, `weight`. */
  metric: string;
  at: Date;
  value: number;
  /** Where it came from, e.g. `measurement`, `manual`, `apple_health`. */
  source: string;
  /** The source's own id for this value: a second write with the same (user, source, client id) updates. */
  clientId: string;
};

const METRIC_RE = /^[a-z][a-z0-9_]{0,63}$/;
const SOURCE_RE = /^[a-z][a-z0-9_.-]{0,63}$/;

/**
 * Writes values for one user in the caller's transaction, idempotent by (user, source, client id): a
 * repeated write replaces metric, time and value (a recomputed measurement updates its values).
 * Non-finite values are skipped (a value that cannot be computed is absent, not zero).
 */
export async function recordValues(
  tx: Db,
  userId: string,
  values: readonly DashboardValue[],
): Promise<number> {
  const rows = values
    .filter((v) => Number.isFinite(v.value) && !Number.isNaN(v.at.getTime()))
    .map((v) => {
      if (!METRIC_RE.test(v.metric)) throw new Error(`Invalid metric key ${v.metric}`);
      if (!SOURCE_RE.test(v.source)) throw new Error(`Invalid source ${v.source}`);
      return { userId, metric: v.metric, at: v.at, value: v.value, source: v.source, clientId: v.clientId };
    });
  if (rows.length === 0) return 0;
  await tx
    .insert(dashboardValues)
    .values(rows)
    .onConflictDoUpdate({
      target: [dashboardValues.userId, dashboardValues.source, dashboardValues.clientId],
      set: {
        metric: sql`excluded.metric`,
        at: sql`excluded.at`,
        value: sql`excluded.value`,
        updatedAt: sql`now()`,
      },
    });
  return rows.length;
}

/** Removes values of one source by their client ids (a deleted measurement, a value no longer computable). */
export async function removeValues(
  tx: Db,
  userId: string,
  source: string,
  clientIds: readonly string[],
): Promise<void> {
  if (clientIds.length === 0) return;
  await tx
    .delete(dashboardValues)
    .where(
      and(
        eq(dashboardValues.userId, userId),
        eq(dashboardValues.source, source),
        inArray(dashboardValues.clientId, [...clientIds]),
      ),
    );
}
