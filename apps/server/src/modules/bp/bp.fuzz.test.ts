import { API, type BpReading, BpReadingCreateSchema, BpReadingUpdateSchema } from "@tonus/contract";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { type FieldHints, fuzzBodies } from "../../test/fuzz.ts";
import { FUZZ_TIMEOUT_MS, fuzzRoute } from "../../test/fuzz-routes.ts";
import { buildTestApp, type TestClient } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";

const TABLES = ["bp_readings", "dashboard_values", "dashboard_daily", "outbox_events"] as const;

const HINTS: FieldHints = {
  time_zone: fc.constantFrom(
    "UTC",
    "Europe/Moscow",
    "America/New_York",
    "Asia/Kathmandu",
    "Nowhere/City",
    "",
  ),
  measured_at: fc
    .integer({ min: Date.UTC(2000, 0, 1), max: Date.now() })
    .map((ms) => new Date(ms).toISOString()),
};

// RELIABILITY Z1 for the log's write routes as a person with readings (the route walker in
// routes.test.ts sends its bodies without any object to reach).
describe.each(BACKENDS)("hostile bodies on the blood-pressure write routes on %s (Z1)", (backend) => {
  let app: App;
  let owner: TestUser;
  let client: TestClient;
  let ids: string[];

  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
    await resetDatabase(app.ctx.database);
    owner = await createTestUser(app.ctx.database);
    client = owner.client(app);
    ids = [];
    for (const systolic of [118, 135, 152]) {
      const res = await client.post(API.bpReadings, {
        systolic,
        diastolic: 80,
        pulse: 66,
        measured_at: "2026-03-02T08:00:00Z",
        time_zone: "UTC",
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push((res.json() as BpReading).id);
    }
  });
  afterAll(() => app.close());

  const readingUrl = fc
    .oneof(
      fc.constantFrom(...[0, 1, 2].map((i) => () => ids[i] as string)).map((f) => f()),
      fc.uuid(),
      fc.string({ maxLength: 120 }),
    )
    .map((id) => API.bpReading.replace(":id", encodeURIComponent(id) || "x"));

  it(
    "answers new readings with no 5xx, the error shape and no partial write",
    async () => {
      const { statuses } = await fuzzRoute({
        app,
        client,
        userId: owner.userId,
        tables: TABLES,
        method: "POST",
        url: fc.constant(API.bpReadings),
        body: fuzzBodies(BpReadingCreateSchema, HINTS),
      });
      expect(
        [...statuses.keys()].some((s) => s === 201),
        JSON.stringify([...statuses]),
      ).toBe(true);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "answers edits of own and other ids with no 5xx and no partial write",
    async () => {
      const { statuses } = await fuzzRoute({
        app,
        client,
        userId: owner.userId,
        tables: TABLES,
        method: "PATCH",
        url: readingUrl,
        body: fuzzBodies(BpReadingUpdateSchema, HINTS),
      });
      expect(
        [...statuses.keys()].some((s) => s === 200),
        JSON.stringify([...statuses]),
      ).toBe(true);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "answers deletions with fuzzed ids with no 5xx and no partial write",
    async () => {
      await fuzzRoute({
        app,
        client,
        userId: owner.userId,
        tables: TABLES,
        method: "DELETE",
        url: readingUrl,
        body: fc.constantFrom("", "{}", "null", "[]"),
      });
    },
    FUZZ_TIMEOUT_MS,
  );
});
