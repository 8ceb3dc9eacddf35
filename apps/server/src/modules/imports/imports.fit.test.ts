import fs from "node:fs";
import path from "node:path";
import { API, type Import, type MeasurementDetail, type MeasurementList } from "@tonus/contract";
import { chunksOf, collect, FIT_MESSAGE, FitDecoder, importFit, type SampleRecord } from "@tonus/importers";
import { and, eq, notInArray } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { dashboardValuesAll } from "../../db/schema.ts";
import { BACKENDS, resetDatabase } from "../../test/databases.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { eventually, importSuite, upload, waitForImport } from "./test/import-client.ts";

// Every file of the fit-samples set (real device files from python-fitparse, MIT), kept with their
// licence in packages/importers/test/fixtures/fit; the counts are those of the set's README.
const FIT_DIR = path.resolve(import.meta.dirname, "../../../../../packages/importers/test/fixtures/fit");
const fit = (name: string) => new Uint8Array(fs.readFileSync(path.join(FIT_DIR, name)));

function recordMessages(name: string): number {
  const decoder = new FitDecoder({ messages: new Set() });
  decoder.push(fit(name));
  decoder.finish();
  return decoder.counts.get(FIT_MESSAGE.record) ?? 0;
}

/** Distinct (metric, client id) samples of a metric the FIT reader yields for the file, read directly. */
async function distinctSamples(name: string, metric: string): Promise<number> {
  const records = await collect(importFit(chunksOf(fit(name))).records);
  const ids = records
    .filter((r): r is SampleRecord => r.kind === "sample" && r.metric === metric)
    .map((r) => r.clientId);
  return new Set(ids).size;
}

describe.each(BACKENDS)("FIT files imported through the server on %s", (backend) => {
  const suite = importSuite(backend, "fit");
  let user: TestUser;
  beforeEach(async () => {
    await resetDatabase(suite.app.ctx.database);
    user = await createTestUser(suite.app.ctx.database);
  });

  async function importFile(name: string, source = "garmin-connect"): Promise<Import> {
    const client = user.client(suite.app);
    const res = await upload(client, source, name, fit(name));
    expect(res.statusCode, res.body).toBe(201);
    return waitForImport(client, (res.json() as Import).id);
  }

  /** The file's own values of `metric` (not those of the measurement it made). */
  async function values(metric: string) {
    return suite.app.ctx.database.db
      .select()
      .from(dashboardValuesAll)
      .where(
        and(
          eq(dashboardValuesAll.userId, user.userId),
          eq(dashboardValuesAll.metric, metric),
          notInArray(dashboardValuesAll.source, ["measurement", "bp_log"]),
        ),
      );
  }

  it.each([
    ["garmin-fenix-5-run.fit", "garmin"],
    ["WeightScaleSingleUser.fit", "garmin"],
    ["coros-pace-2-cycling-misaligned-fields.fit", "coros"],
    ["developer-types-sample.fit", "fit"],
  ])("stores %s under its maker's brand (%s) from the file id", async (name, brand) => {
    expect((await importFile(name)).status).toBe("done");
    const sources = await suite.app.ctx.database.db
      .selectDistinct({ source: dashboardValuesAll.source })
      .from(dashboardValuesAll)
      .where(
        and(
          eq(dashboardValuesAll.userId, user.userId),
          notInArray(dashboardValuesAll.source, ["measurement", "bp_log"]),
        ),
      );
    expect(sources).toEqual([{ source: brand }]);
  });

  it.each([
    ["garmin-fenix-5-run.fit", 113, 75005, 456, 1448, 21],
    ["garmin-fenix-5-walk.fit", 62, 49592, 731, 935, 17],
    ["garmin-edge-820-bike.fit", 126, 66289, 495, 990, 15],
  ])(
    "turns the beat intervals of %s into one measurement with every interval",
    async (name, beats, sumMs, minMs, maxMs, hr) => {
      const done = await importFile(name);
      expect(done.status, JSON.stringify(done.report)).toBe("done");
      expect(done.report?.fatal).toBeNull();
      expect(done.report?.measurements).toBe(1);
      const client = user.client(suite.app);
      const [m] = ((await client.get(API.measurements)).json() as MeasurementList).results;
      const detail = (
        await client.get(API.measurement.replace(":id", m?.id ?? ""))
      ).json() as MeasurementDetail;
      expect(detail.rr_ms).toHaveLength(beats);
      expect(detail.rr_ms.reduce((a, b) => a + b, 0)).toBe(sumMs);
      expect(Math.min(...detail.rr_ms)).toBe(minMs);
      expect(Math.max(...detail.rr_ms)).toBe(maxMs);
      expect(detail.source).toBe("watch");
      expect(await values("heart_rate")).toHaveLength(hr);
      // The upload is gone once the import has ended.
      expect(await eventually(() => fs.readdirSync(path.join(suite.filesDir, "imports")).length === 0)).toBe(
        true,
      );
    },
  );

  it("imports a ride without beat intervals as a workout and no measurement", async () => {
    const done = await importFile("garmin-fenix-5-bike.fit");
    expect(done.status).toBe("done");
    expect(done.report?.measurements).toBe(0);
    expect((await values("workout_duration")).length).toBeGreaterThan(0);
  });

  it.each([
    ["activity-small-fenix2-run.fit", 2809],
    ["activity-large-fenxi2-multisport.fit", 24239],
    ["developer-types-sample.fit", 3424],
    ["coros-pace-2-cycling-misaligned-fields.fit", 11272],
  ])("stores the heart rate of every record of %s (%i records)", async (name, count) => {
    expect(recordMessages(name)).toBe(count);
    const done = await importFile(name);
    expect(done.status, JSON.stringify(done.report)).toBe("done");
    const stored = await values("heart_rate");
    expect(stored).toHaveLength(await distinctSamples(name, "heart_rate"));
    expect(stored.length).toBeGreaterThan(count * 0.75);
    expect(done.progress.bytes_read).toBe(done.progress.bytes_total);
  });

  it("reads the monitoring file's steps and the scales' weights", async () => {
    expect((await importFile("MonitoringFile.fit")).status).toBe("done");
    expect((await values("steps")).length).toBeGreaterThan(10);
    expect((await importFile("WeightScaleSingleUser.fit")).status).toBe("done");
    expect((await values("weight")).map((v) => v.value).sort()).toEqual([75.8, 76.09]);
  });

  it("reads both users' weights from the multi-user scale file", async () => {
    expect((await importFile("WeightScaleMultiUser.fit")).status).toBe("done");
    expect((await values("weight")).map((v) => v.value).sort()).toEqual([58.2, 75.8]);
  });

  it.each([
    ["activity-filecrc.fit", "crc_mismatch"],
    ["activity-settings-corruptheader.fit", "invalid_header"],
    ["activity-settings-nodata.fit", "unexpected_eof"],
    ["activity-unexpected-eof.fit", "unexpected_eof"],
    ["nick.fit", "invalid_record"],
  ])("ends the broken %s with the report %s, not an error", async (name, reason) => {
    const done = await importFile(name);
    expect(["done", "failed"]).toContain(done.status);
    expect(done.report?.fatal?.reason).toBe(reason);
  });

  it("keeps what the truncated large activity holds before the cut", async () => {
    const done = await importFile("nick.fit");
    expect(done.status).toBe("done");
    expect(done.report?.fatal?.reason).toBe("invalid_record");
    expect((await values("heart_rate")).length).toBeGreaterThan(14000);
  });

  it("adds nothing when the same file is imported again, and says the values were already there", async () => {
    const first = await importFile("garmin-fenix-5-run.fit");
    const rows = (await suite.app.ctx.database.db.select().from(dashboardValuesAll)).length;
    const again = await importFile("garmin-fenix-5-run.fit", "garmin-fenix");
    expect(again.status).toBe("done");
    expect(again.report?.imported).toBe(0);
    expect(again.report?.duplicates).toBe((first.report?.imported ?? 0) + (first.report?.duplicates ?? 0));
    expect(again.report?.measurements).toBe(0);
    expect((await suite.app.ctx.database.db.select().from(dashboardValuesAll)).length).toBe(rows);
    const list = (await user.client(suite.app).get(API.measurements)).json() as MeasurementList;
    expect(list.results).toHaveLength(1);
  });
});
