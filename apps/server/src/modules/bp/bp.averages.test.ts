import {
  API,
  BP_LOG_SHARE_TARGET,
  type BpAverages,
  type BpReading,
  type ChartData,
  type ShareLinkCreated,
} from "@tonus/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, type TestClient } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { bucketStart } from "./bp.averages.ts";

const qs = (q: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString();

const reading = (systolic: number, diastolic: number, pulse: number | null, at: string, tz = "UTC") => ({
  systolic,
  diastolic,
  pulse,
  measured_at: at,
  time_zone: tz,
});

describe("bucketStart", () => {
  it("starts weeks on Sunday or Monday and months on the 1st", () => {
    // 2026-03-04 is a Wednesday.
    expect(bucketStart("2026-03-04", "week", 0)).toBe("2026-03-01");
    expect(bucketStart("2026-03-04", "week", 1)).toBe("2026-03-02");
    expect(bucketStart("2026-03-01", "week", 1)).toBe("2026-02-23");
    expect(bucketStart("2026-03-04", "month", 1)).toBe("2026-03-01");
    expect(bucketStart("2026-03-04", "day", 1)).toBe("2026-03-04");
  });
});

describe.each(BACKENDS)("blood-pressure averages on %s", (backend) => {
  let app: App;
  let owner: TestUser;
  let other: TestUser;
  let client: TestClient;

  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    owner = await createTestUser(app.ctx.database, { isCustomerOverride: true });
    other = await createTestUser(app.ctx.database);
    client = owner.client(app);
    for (const r of [
      reading(120, 80, 60, "2026-03-02T08:00:00Z"),
      reading(130, 84, null, "2026-03-02T20:00:00Z"),
      reading(150, 95, 80, "2026-03-04T08:00:00Z"),
      // 23:30 in New York on 9 March is 10 March in UTC: it counts on the day it was taken, 9 March.
      reading(160, 100, 90, "2026-03-10T03:30:00Z", "America/New_York"),
      reading(118, 76, 58, "2026-02-20T08:00:00Z"),
    ]) {
      const res = await client.post(API.bpReadings, r);
      expect(res.statusCode, res.body).toBe(201);
    }
    await other.client(app).post(API.bpReadings, reading(200, 120, 100, "2026-03-03T08:00:00Z"));
  });

  const averages = async (q: Record<string, string | number>, as = client) =>
    (await as.get(`${API.bpAverages}?${qs(q)}`)).json() as BpAverages;

  it("averages readings by day, week and month with counts and the category of the average", async () => {
    const byDay = await averages({ from: "2026-03-01", to: "2026-03-10", period: "day" });
    expect(
      byDay.buckets.map((b) => [b.t, b.count, b.systolic.mean, b.diastolic.mean, b.pulse?.mean ?? null]),
    ).toEqual([
      ["2026-03-02", 2, 125, 82, 60],
      ["2026-03-04", 1, 150, 95, 80],
      ["2026-03-09", 1, 160, 100, 90],
    ]);
    expect(byDay.buckets[0]).toMatchObject({
      pulse_count: 1,
      systolic: { min: 120, max: 130 },
      diastolic: { min: 80, max: 84 },
      category: "normal",
    });
    expect(byDay.overall).toMatchObject({
      count: 4,
      systolic: { mean: 140, min: 120, max: 160 },
      diastolic: { mean: 89.8, min: 80, max: 100 },
      pulse: { mean: 76.7, min: 60, max: 90 },
      pulse_count: 3,
      category: "grade_1",
    });
    const monday = await averages({ from: "2026-02-01", to: "2026-03-10", period: "week", week_start: 1 });
    expect(monday.buckets.map((b) => [b.t, b.count])).toEqual([
      ["2026-02-16", 1],
      ["2026-03-02", 3],
      ["2026-03-09", 1],
    ]);
    const sunday = await averages({ from: "2026-02-01", to: "2026-03-10", period: "week", week_start: 0 });
    expect(sunday.buckets.map((b) => [b.t, b.count])).toEqual([
      ["2026-02-15", 1],
      ["2026-03-01", 3],
      ["2026-03-08", 1],
    ]);
    const month = await averages({ from: "2026-01-01", to: "2026-03-31", period: "month" });
    expect(month.buckets.map((b) => [b.t, b.count, b.category])).toEqual([
      ["2026-02-01", 1, "optimal"],
      ["2026-03-01", 4, "grade_1"],
    ]);
    // The 7 and 30 days ending on `to`, whatever the range asked.
    const short = await averages({ from: "2026-03-09", to: "2026-03-10", period: "day" });
    expect(short.overall?.count).toBe(1);
    expect(short.last_7_days?.count).toBe(2);
    expect(short.last_30_days?.count).toBe(5);
    const empty = await averages({ from: "2025-01-01", to: "2025-01-31", period: "day" });
    expect(empty).toMatchObject({ buckets: [], overall: null, last_7_days: null, last_30_days: null });
  });

  it("shows each person only their own log and refuses bad ranges with a 400", async () => {
    const theirs = await averages({ from: "2026-03-01", to: "2026-03-10", period: "day" }, other.client(app));
    expect(theirs.buckets.map((b) => [b.t, b.systolic.mean])).toEqual([["2026-03-03", 200]]);
    const bad: Record<string, string | number>[] = [
      { from: "2026-03-10", to: "2026-03-01" },
      { from: "1990-01-01", to: "2026-03-01" },
      { from: "2026-02-30", to: "2026-03-01" },
      { from: "2026-03-01", to: "2026-03-02", period: "year" },
      { from: "2026-03-01", to: "2026-03-02", week_start: 3 },
    ];
    for (const q of bad) {
      const res = await client.get(`${API.bpAverages}?${qs(q)}`);
      expect(res.statusCode, JSON.stringify(q)).toBe(400);
      expect(res.json()).toMatchObject({ code: "validation_failed" });
    }
    const anonymous = await app.inject({
      method: "GET",
      url: `${API.bpAverages}?from=2026-03-01&to=2026-03-02`,
    });
    expect(anonymous.statusCode).toBeGreaterThanOrEqual(400);
    expect(anonymous.statusCode).toBeLessThan(500);
  });

  it("lets a share link read its log's averages only, and nothing after revocation (A2)", async () => {
    const link = (
      await client.post(API.shareLinks, { kind: "bp_log", target_id: BP_LOG_SHARE_TARGET })
    ).json() as ShareLinkCreated;
    const url = `${API.sharedBpLogAverages}?${qs({ from: "2026-03-01", to: "2026-03-10", period: "month" })}`;
    const view = (token?: string) =>
      app.inject({ method: "GET", url, headers: token ? { authorization: `Token ${token}` } : {} });
    const res = await view(link.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["x-robots-tag"]).toBe("noindex, nofollow");
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
    expect((res.json() as BpAverages).buckets).toEqual([
      expect.objectContaining({ t: "2026-03-01", count: 4 }),
    ]);
    // The owner's route does not take the token; signed-in callers without it get the viewer's 404.
    const ownerRoute = await app.inject({
      method: "GET",
      url: url.replace(API.sharedBpLogAverages, API.bpAverages),
      headers: { authorization: `Token ${link.token}` },
    });
    expect(ownerRoute.statusCode).toBeGreaterThanOrEqual(400);
    expect((await client.get(url)).statusCode).toBe(404);
    expect((await view()).statusCode).toBe(404);
    expect((await client.delete(API.shareLink.replace(":id", link.id))).statusCode).toBe(200);
    const revoked = await view(link.token);
    const unknown = await view(`tsh_${"B".repeat(43)}`);
    expect(revoked.statusCode).toBe(404);
    expect(revoked.json().code).toBe(unknown.json().code);
  });

  it("writes each reading's pulse to the dashboard, edits and removes it with the reading", async () => {
    const chart = async () =>
      (
        (
          await client.get(
            `${API.chartData}?${qs({ item: "bp_pulse", from: "2026-03-01", to: "2026-03-10", period: "day" })}`,
          )
        ).json() as ChartData
      ).series[0]?.points.map((p) => [p.t, p.value]);
    // 9 March in New York is 10 March in the person's zone (UTC): the dashboard counts profile days.
    expect(await chart()).toEqual([
      ["2026-03-02", 60],
      ["2026-03-04", 80],
      ["2026-03-10", 90],
    ]);
    const list = (await client.get(`${API.bpReadings}?limit=10`)).json() as { results: BpReading[] };
    const march4 = list.results.find((r) => r.systolic === 150) as BpReading;
    const march2 = list.results.find((r) => r.systolic === 130) as BpReading;
    const path = (id: string) => API.bpReading.replace(":id", id);
    expect((await client.request("PATCH", path(march4.id), { body: { pulse: null } })).statusCode).toBe(200);
    expect((await client.request("PATCH", path(march2.id), { body: { pulse: 70 } })).statusCode).toBe(200);
    expect(await chart()).toEqual([
      ["2026-03-02", 65],
      ["2026-03-10", 90],
    ]);
    const last = list.results.find((r) => r.systolic === 160) as BpReading;
    expect((await client.delete(path(last.id))).statusCode).toBe(200);
    expect(await chart()).toEqual([["2026-03-02", 65]]);
  });
});
