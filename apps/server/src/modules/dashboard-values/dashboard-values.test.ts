import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import type { Db } from "../../db/client.ts";
import { dashboardValues } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { recordValues, removeValues } from "./dashboard-values.service.ts";

describe.each(BACKENDS)("dashboard value write path on %s", (backend) => {
  let app: App;
  let db: Db;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
    db = app.ctx.database.db;
  });
  afterAll(() => app.close());
  beforeEach(async () => resetDatabase(app.ctx.database));

  it("is idempotent by (user, source, client id), skips non-finite values and removes by client id", async () => {
    const a = await createTestUser(app.ctx.database);
    const b = await createTestUser(app.ctx.database);
    const at = new Date("2026-11-20T07:00:00Z");
    const value = (v: number, clientId = "w1") => ({
      metric: "weight",
      at,
      value: v,
      source: "manual",
      clientId,
    });
    expect(await recordValues(db, a.userId, [value(80), value(Number.NaN, "w2")])).toBe(1);
    await recordValues(db, a.userId, [value(79.5)]);
    await recordValues(db, b.userId, [value(60)]);
    await recordValues(db, a.userId, [{ ...value(80), source: "apple_health" }]);
    const rows = await db.select().from(dashboardValues);
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.userId === a.userId && r.source === "manual")?.value).toBe(79.5);
    await removeValues(db, a.userId, "manual", ["w1"]);
    const left = await db.select().from(dashboardValues);
    expect(left.map((r) => `${r.userId === a.userId ? "a" : "b"}:${r.source}`).sort()).toEqual([
      "a:apple_health",
      "b:manual",
    ]);
    await expect(recordValues(db, a.userId, [{ ...value(1), metric: "Weight; drop" }])).rejects.toThrow();
  });
});
