import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import type { App } from "../../app.ts";
import type { Db } from "../../db/client.ts";
import { measurements, notificationDeliveries } from "../../db/schema.ts";
import { recordValues } from "../dashboard-values/dashboard-values.service.ts";
import { MEASUREMENT_ALGORITHM_VERSION } from "../measurements/measurements.compute.ts";

/**
 * Test data for the notification tests. Measurements are stored as the measurements module stores them
 * (a computed result at the current algorithm version, so the recompute job leaves them alone) with the
 * values the test wants to read back in the report.
 */
export async function addMeasurement(
  db: Db,
  userId: string,
  startedAt: string,
  v: { rmssd: number; stress: number; energy: number },
): Promise<void> {
  const values = {
    heart_rate: 62,
    meanrr: 968,
    stdrr: 50,
    rmssd: v.rmssd,
    pnn50: 20,
    mxdmn: 200,
    amo: 40,
    psi: 90,
    pvi: 1,
    power: 2000,
    vlf: 500,
    lf: 800,
    hf: 700,
    lfhf: 1.1,
    total_beats: 120,
  };
  await db.insert(measurements).values({
    userId,
    clientId: randomUUID(),
    source: "camera",
    startedAt: new Date(startedAt),
    timeZone: "UTC",
    rrMs: [960, 970, 980],
    algorithmVersion: MEASUREMENT_ALGORITHM_VERSION,
    result: {
      values,
      series: "raw",
      raw: values,
      corrected: null,
      scores: { stress: v.stress, energy: v.energy, performance: 50 },
      bp: null,
      bpIndices: {
        kerdo: null,
        robinson: null,
        functional_changes: null,
        functional_changes_level: null,
        kek: null,
        kvas: null,
        phys_state: null,
        phys_state_level: null,
      },
      quality: "ok",
      issues: [],
      correctedBeats: [],
      spectrum: null,
    },
  });
}

/** A night's sleep as an import or a manual entry writes it: a dashboard value in seconds. */
export async function addSleep(db: Db, userId: string, at: string, seconds: number, source = "manual") {
  await recordValues(db, userId, [
    { metric: "sleep", at: new Date(at), value: seconds, source, clientId: randomUUID() },
  ]);
}

/** Waits until no ledger row is pending or being sent: every queued send job has finished. */
export async function settled(app: App): Promise<void> {
  await expect
    .poll(
      async () =>
        (
          await app.ctx.database.db
            .select({ status: notificationDeliveries.status })
            .from(notificationDeliveries)
        )
          .map((r) => r.status)
          .filter((s) => s === "pending" || s === "sending").length,
      { timeout: 45_000, interval: 200 },
    )
    .toBe(0);
}

export async function ledger(app: App) {
  return (await app.ctx.database.db.select().from(notificationDeliveries)).map((r) => ({
    userId: r.userId,
    kind: r.kind,
    periodKey: r.periodKey,
    status: r.status,
  }));
}
