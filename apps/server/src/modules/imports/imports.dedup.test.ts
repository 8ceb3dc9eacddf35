import { API, type ChartData } from "@tonus/contract";
import { and, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { dashboardValuesAll } from "../../db/schema.ts";
import { BACKENDS, resetDatabase } from "../../test/databases.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import type { ProviderApi, StreamContext } from "../connectors/connectors.types.ts";
import { oura } from "../connectors/providers/oura.ts";
import { recordValues } from "../dashboard-values/dashboard-values.service.ts";
import { utf8 } from "./test/fixtures.ts";
import { importSuite, upload, waitForImport } from "./test/import-client.ts";

/**
 * The same reading through two routes counts once on the dashboard: a vendor's export file and its
 * cloud API name a day's totals by the same id (stored once), and Apple Health's Watch and iPhone —
 * both counting steps over the same minutes — are kept apart by device, the Watch's day shown.
 */

const chart = (item: string, from: string, to: string) =>
  `${API.chartData}?${new URLSearchParams({ item, from, to, period: "day" })}`;

/** An export.xml with steps from an Apple Watch and an iPhone: both on 1 March, the iPhone alone on 2 March. */
function twoDevicesExport(): Uint8Array {
  const device = (model: string) =>
    `&lt;&lt;HKDevice: 0x2830&gt;, name:${model === "Watch" ? "Apple Watch" : "iPhone"}, manufacturer:Apple Inc., model:${model}, hardware:${model}1,1, software:17.2&gt;`;
  const steps = (source: string, model: string, start: string, end: string, value: number) =>
    ` <Record type="HKQuantityTypeIdentifierStepCount" sourceName="${source}" sourceVersion="17.2" device="${device(model)}" unit="count" creationDate="${end}" startDate="${start}" endDate="${end}" value="${value}"/>\n`;
  const rows = [
    steps("Anna’s Apple Watch", "Watch", "2026-03-01 09:00:00 +0000", "2026-03-01 09:10:00 +0000", 1200),
    steps("Anna’s Apple Watch", "Watch", "2026-03-01 18:00:00 +0000", "2026-03-01 18:10:00 +0000", 800),
    steps("Anna’s iPhone", "iPhone", "2026-03-01 09:00:00 +0000", "2026-03-01 09:10:00 +0000", 1100),
    steps("Anna’s iPhone", "iPhone", "2026-03-01 18:02:00 +0000", "2026-03-01 18:09:00 +0000", 700),
    steps("Anna’s iPhone", "iPhone", "2026-03-02 10:00:00 +0000", "2026-03-02 10:30:00 +0000", 3000),
  ];
  return utf8(
    `<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n <ExportDate value="2026-03-03 09:00:00 +0000"/>\n${rows.join("")}</HealthData>\n`,
  );
}

/** A ProviderApi answering every request with `body` (Oura's documented daily_activity page). */
function answering(body: unknown): ProviderApi {
  return {
    url: (p) => new URL(p, "https://api.ouraring.com"),
    json: async () => body,
    send: async () => ({ status: 200, json: body }),
    isOwnUrl: () => true,
  };
}

describe.each(BACKENDS)("one reading through two routes on %s", (backend) => {
  const suite = importSuite(backend, "dedup");
  let user: TestUser;
  beforeEach(async () => {
    await resetDatabase(suite.app.ctx.database);
    user = await createTestUser(suite.app.ctx.database, { isCustomerOverride: true, timezone: "UTC" });
  });

  async function importFile(source: string, name: string, data: Uint8Array) {
    const client = user.client(suite.app);
    const res = await upload(client, source, name, data, { time_zone: "UTC" });
    expect(res.statusCode, res.body).toBe(201);
    const done = await waitForImport(client, res.json().id, 60_000);
    expect(done.status, JSON.stringify(done.report)).toBe("done");
    return done;
  }

  async function dayValues(item: string, from: string, to: string) {
    const data = (await user.client(suite.app).get(chart(item, from, to))).json() as ChartData;
    return Object.fromEntries((data.series[0]?.points ?? []).map((p) => [p.t, p.value]));
  }

  it("stores Oura's daily steps once, whether the trends export or the cloud brought them", async () => {
    await importFile(
      "oura-ring",
      "oura_trends.csv",
      utf8(
        "date,Readiness Score,Sleep Score,Average Resting Heart Rate,Average HRV,Total Sleep Duration,Steps,Respiratory Rate\n" +
          "2026-03-01,80,75,52,48,27000,9000,14.5\n" +
          "2026-03-02,82,77,51,50,27600,7000,14.2\n",
      ),
    );
    // The cloud connector's daily_activity stream, as Oura's API documents a page of it.
    const stream = oura.streams.find((s) => s.key === "daily_activity");
    const ctx: StreamContext = {
      api: answering({
        data: [
          { day: "2026-03-01", steps: 9100, active_calories: 400 },
          { day: "2026-03-02", steps: 7000, active_calories: 350 },
        ],
        next_token: null,
      }),
      tz: "UTC",
      now: new Date("2026-03-02T20:00:00Z"),
      historyStart: new Date("2026-03-01T00:00:00Z"),
      externalUserId: null,
    } as StreamContext;
    const page = await stream?.fetchPage(ctx, null);
    await suite.app.ctx.database.db.transaction((tx) =>
      recordValues(
        tx as never,
        user.userId,
        (page?.values ?? []).flatMap((v) =>
          v.at && typeof v.value === "number"
            ? [{ metric: v.metric, at: v.at, value: v.value, source: oura.source, clientId: v.clientId }]
            : [],
        ),
      ),
    );
    const steps = await suite.app.ctx.database.db
      .select()
      .from(dashboardValuesAll)
      .where(and(eq(dashboardValuesAll.userId, user.userId), eq(dashboardValuesAll.metric, "steps")));
    expect(steps).toHaveLength(2);
    // The later route's value stands; never the sum of both.
    expect(await dayValues("steps", "2026-03-01", "2026-03-02")).toEqual({
      "2026-03-01": 9100,
      "2026-03-02": 7000,
    });
  });

  it("shows the Watch's steps where the Watch and the iPhone both counted, the iPhone's where alone", async () => {
    const done = await importFile("apple-health", "export.xml", twoDevicesExport());
    expect(done.report?.imported).toBe(5);
    const sources = await suite.app.ctx.database.db
      .selectDistinct({ source: dashboardValuesAll.source })
      .from(dashboardValuesAll)
      .where(eq(dashboardValuesAll.userId, user.userId));
    expect(sources.map((s) => s.source).sort()).toEqual(["apple_health.phone", "apple_health.watch"]);
    expect(await dayValues("steps", "2026-03-01", "2026-03-02")).toEqual({
      "2026-03-01": 2000,
      "2026-03-02": 3000,
    });
  });
});
