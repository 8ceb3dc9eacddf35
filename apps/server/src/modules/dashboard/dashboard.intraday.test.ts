import { API, type ChartData, defaultSourceOrder, type Intraday, orderSources } from "@tonus/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import type { Db } from "../../db/client.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, type TestClient } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import {
  type DashboardValue,
  recordSamples,
  recordValues,
} from "../dashboard-values/dashboard-values.service.ts";

const qs = (q: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString();

/** Five-second heart rate from one source over [startIso, startIso + minutes), all at `bpm`. */
function samples(source: string, startIso: string, minutes: number, bpm: number): DashboardValue[] {
  const start = Date.parse(startIso);
  return Array.from({ length: minutes * 12 }, (_, i) => ({
    metric: "heart_rate",
    at: new Date(start + i * 5000),
    value: bpm,
    source,
    clientId: `${source}-${startIso}-${i}`,
  }));
}

describe("default source order per metric", () => {
  it("differs by metric: the log for pressure, the ring for sleep, the scale for weight, measurements for HRV", () => {
    const first = (metric: Parameters<typeof defaultSourceOrder>[0], sources: string[]) =>
      orderSources(metric, sources)[0];
    expect(first("bp_systolic", ["withings", "bp_log", "apple_health"])).toBe("bp_log");
    expect(first("sleep", ["garmin", "oura", "apple_health"])).toBe("oura");
    expect(first("steps", ["oura", "garmin", "apple_health"])).toBe("garmin");
    expect(first("weight", ["garmin", "withings", "apple_health"])).toBe("withings");
    expect(first("rmssd", ["garmin", "measurement"])).toBe("measurement");
    expect(first("heart_rate", ["apple_health.watch", "polar"])).toBe("polar");
    // A person's own order comes first; unknown sources go last, by key.
    expect(orderSources("sleep", ["zeo", "oura", "garmin", "abc"], ["garmin"])).toEqual([
      "garmin",
      "oura",
      "abc",
      "zeo",
    ]);
    expect(defaultSourceOrder("sleep")).not.toEqual(defaultSourceOrder("steps"));
  });
});

describe.each(BACKENDS)("intraday series by source priority on %s", (backend) => {
  let app: App;
  let user: TestUser;
  let client: TestClient;

  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    user = await createTestUser(app.ctx.database, { isCustomerOverride: true, timezone: "Europe/Berlin" });
    client = user.client(app);
  });

  const intraday = async (from: string, to: string) =>
    (
      await client.get(`${API.chartIntraday}?${qs({ metric: "heart_rate", from, to, points: 2000 })}`)
    ).json() as Intraday;
  const daily = async (from: string, to: string) =>
    (
      (
        await client.get(`${API.chartData}?${qs({ item: "heart_rate", from, to, period: "day" })}`)
      ).json() as ChartData
    ).series[0]?.points.map((p) => [p.t, p.value]);

  // Values written one by one (dashboard_values) or as an import's samples (the bulk store, a block per
  // UTC day): the same views.
  const writers = {
    "one by one": (values: DashboardValue[]) => recordValues(app.ctx.database.db, user.userId, values),
    "as an import's samples": (values: DashboardValue[]) =>
      app.ctx.database.db.transaction((tx) => recordSamples(tx as unknown as Db, user.userId, values)),
  };

  it.each(Object.keys(writers) as (keyof typeof writers)[])(
    "draws each day from the source the daily chart chose, never two sources over each other (values written %s)",
    async (how) => {
      // 4 March: a Polar strap (60 bpm) and Apple Health's copy of a watch (90 bpm) overlap in time.
      // 5 March: only Apple Health (80 bpm). Berlin days: 23:00Z on 4 March is already 5 March.
      await writers[how]([
        ...samples("polar", "2026-03-04T08:00:00Z", 30, 60),
        ...samples("apple_health.watch", "2026-03-04T08:10:00Z", 30, 90),
        ...samples("apple_health.watch", "2026-03-04T23:00:00Z", 10, 80),
      ]);
      const both = await intraday("2026-03-04", "2026-03-05");
      const byValue = (body: Intraday) => [...new Set(body.points.map((p) => p.value))].sort();
      expect(byValue(both)).toEqual([60, 80]);
      expect(both.samples).toBe(30 * 12 + 10 * 12);
      expect(await daily("2026-03-04", "2026-03-05")).toEqual([
        ["2026-03-04", 60],
        ["2026-03-05", 80],
      ]);
      // The person prefers Apple Health for heart rate: both views switch together.
      const set = await client.put(API.chartLayoutPriority, {
        metric: "heart_rate",
        sources: ["apple_health"],
      });
      expect(set.statusCode, set.body).toBe(200);
      expect(byValue(await intraday("2026-03-04", "2026-03-05"))).toEqual([80, 90]);
      expect(await daily("2026-03-04", "2026-03-05")).toEqual([
        ["2026-03-04", 90],
        ["2026-03-05", 80],
      ]);
      // A range with no values answers no points.
      expect((await intraday("2026-03-01", "2026-03-02")).points).toEqual([]);
    },
  );
});
