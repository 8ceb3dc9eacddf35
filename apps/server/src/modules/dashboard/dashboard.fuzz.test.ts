import { randomUUID } from "node:crypto";
import {
  AddChartSchema,
  API,
  type DashboardLayout,
  entryUnitsOf,
  isMetricKey,
  type ManualValue,
  ManualValueCreateSchema,
  MoveChartSchema,
  SourcePrioritySchema,
  TableParametersSchema,
} from "@tonus/contract";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { fuzzBodies } from "../../test/fuzz.ts";
import { FUZZ_TIMEOUT_MS, fuzzRoute } from "../../test/fuzz-routes.ts";
import { buildTestApp, type TestClient } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";

const TABLES = ["dashboard_charts", "dashboard_values", "dashboard_daily", "dashboard_settings"] as const;

const recent = fc
  .integer({ min: Date.now() - 400 * 86_400_000, max: Date.now() + 2 * 86_400_000 })
  .map((ms) => new Date(ms).toISOString());

// RELIABILITY Z1 for the dashboard's write routes as a customer, whose requests reach the real work
// (the route walker in routes.test.ts sends bodies as someone who is refused earlier).
describe.each(BACKENDS)(
  "hostile bodies on the dashboard's write routes as a customer on %s (Z1)",
  (backend) => {
    let app: App;
    let customer: TestUser;
    let client: TestClient;
    let own: { charts: string[]; values: string[] };

    beforeAll(async () => {
      app = await buildTestApp(await getTestDatabase(backend));
      await resetDatabase(app.ctx.database);
      customer = await createTestUser(app.ctx.database, { isCustomerOverride: true });
      client = customer.client(app);
      const values: string[] = [];
      for (const [metric, value, unit] of [
        ["weight", 80, "kg"],
        ["water", 500, "ml"],
        ["steps", 9000, "steps"],
      ] as const) {
        const res = await client.post(API.chartValues, {
          client_id: randomUUID(),
          metric,
          value,
          unit,
          at: new Date().toISOString(),
        });
        expect(res.statusCode, res.body).toBe(201);
        values.push((res.json() as ManualValue).id);
      }
      await client.post(API.chartLayoutCharts, { item: "water" });
      const layout = (await client.get(API.chartLayout)).json() as DashboardLayout;
      own = { charts: layout.charts.map((c) => c.id), values };
    });
    afterAll(() => app.close());

    const idUrl = (template: string, ids: () => string[]) =>
      fc
        .oneof(
          fc.constantFrom(...ids()),
          fc.string({ maxLength: 120 }),
          fc.uuid(),
          fc.constantFrom("default-stress", "default-", "0", "-1", "9".repeat(30), "%00", "..", "1e3"),
        )
        .map((id) => template.replace(/:\w+/, encodeURIComponent(id) || "x"));

    const bodyRoutes: {
      name: string;
      method: "POST" | "PUT";
      url: string;
      schema: z.ZodType;
      hints?: Record<string, fc.Arbitrary<unknown>>;
      adjust?: (body: Record<string, unknown>, pick: number) => Record<string, unknown>;
    }[] = [
      { name: "add chart", method: "POST", url: API.chartLayoutCharts, schema: AddChartSchema },
      { name: "table parameters", method: "PUT", url: API.chartLayoutTable, schema: TableParametersSchema },
      {
        name: "source priority",
        method: "PUT",
        url: API.chartLayoutPriority,
        schema: SourcePrioritySchema,
        hints: {
          sources: fc.array(
            fc.constantFrom("manual", "garmin", "apple_health", "oura", "x.y", "Bad Source"),
            {
              maxLength: 6,
            },
          ),
        },
      },
      {
        name: "manual value",
        method: "POST",
        url: API.chartValues,
        schema: ManualValueCreateSchema,
        hints: {
          metric: fc.constantFrom("weight", "water", "steps", "sleep", "height", "stress"),
          at: recent,
          value: fc.oneof(
            fc.double({ min: -10, max: 300, noNaN: true }),
            fc.integer({ min: 0, max: 200_000 }),
          ),
          unit: fc.constantFrom("kg", "lb", "l", "ml", "steps", "h", "cm", "in", "ft", "furlong"),
        },
        // Most bodies get a unit that fits their metric, so the range and time rules are reached.
        adjust: (body, pick) => {
          const metric = String(body.metric);
          if (pick % 5 === 0 || !isMetricKey(metric)) return body;
          const units = entryUnitsOf(metric);
          return { ...body, unit: units[pick % units.length] };
        },
      },
    ];

    it.each(bodyRoutes)(
      "answers $name with no 5xx, the error shape and no partial write",
      async ({ method, url, schema, hints, adjust }) => {
        const { statuses } = await fuzzRoute({
          app,
          client,
          userId: customer.userId,
          tables: TABLES,
          method,
          url: fc.constant(url),
          body: fuzzBodies(schema, hints, adjust),
        });
        // Bodies from the schema reach the real work: some are stored, some refused by its rules.
        expect(
          [...statuses.keys()].some((s) => s < 300),
          JSON.stringify([...statuses]),
        ).toBe(true);
        expect(
          [...statuses.keys()].some((s) => s >= 400),
          JSON.stringify([...statuses]),
        ).toBe(true);
      },
      FUZZ_TIMEOUT_MS,
    );

    it(
      "answers chart moves with fuzzed ids and bodies with no 5xx and no partial write",
      async () => {
        await fuzzRoute({
          app,
          client,
          userId: customer.userId,
          tables: TABLES,
          method: "POST",
          url: idUrl(API.chartLayoutMove, () => own.charts),
          body: fuzzBodies(MoveChartSchema),
        });
      },
      FUZZ_TIMEOUT_MS,
    );

    it(
      "answers chart and value deletions with fuzzed ids with no 5xx and no partial write",
      async () => {
        for (const [template, ids] of [
          [API.chartLayoutChart, () => own.charts],
          [API.chartValue, () => own.values],
        ] as const)
          await fuzzRoute({
            app,
            client,
            userId: customer.userId,
            tables: TABLES,
            method: "DELETE",
            url: idUrl(template, ids),
            body: fc.constantFrom("", "{}", "null", '{"__proto__":{}}'),
          });
        // Whatever was deleted, what is left is still a well-formed dashboard.
        const layout = (await client.get(API.chartLayout)).json() as DashboardLayout;
        expect(layout.table_parameters.every(isMetricKey)).toBe(true);
      },
      FUZZ_TIMEOUT_MS,
    );
  },
);
