import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { getEntitlements } from "./entitlements.service.ts";

describe.each(BACKENDS)("getEntitlements on %s", (backend) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend), { BILLING_MODE: "stripe" });
  });
  afterAll(() => app.close());
  beforeEach(async () => resetDatabase(app.ctx.database));

  it("treats everyone as a personal-plan customer when billing is off, without reading the user", async () => {
    const ctx = { ...app.ctx, config: { ...app.ctx.config, BILLING_MODE: "off" as const } };
    const expected = { is_customer: true, plan: "personal", upgradable: false };
    expect(await getEntitlements(ctx, "00000000-0000-4000-8000-000000000000")).toEqual(expected);
  });

  it("makes a user a customer with billing on only when an operator marked them", async () => {
    const free = await createTestUser(app.ctx.database);
    const marked = await createTestUser(app.ctx.database, { isCustomerOverride: true });
    expect(await getEntitlements(app.ctx, free.userId)).toEqual({
      is_customer: false,
      plan: null,
      upgradable: true,
    });
    expect(await getEntitlements(app.ctx, marked.userId)).toEqual({
      is_customer: true,
      plan: null,
      upgradable: false,
    });
  });

  it("answers not-a-customer, not upgradable, for an unknown user", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await getEntitlements(app.ctx, unknown)).toEqual({
      is_customer: false,
      plan: null,
      upgradable: false,
    });
  });
});
