import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TestClient } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { changeOperatorRole } from "./operators.service.ts";

const OPERATOR_ROUTE = "/dashboard_api/v1/test-operator/";

function operatorModule(app: FastifyInstance): void {
  app.get(OPERATOR_ROUTE, { config: { access: "operator" } }, async () => ({ ok: true }));
}

describe.each(BACKENDS)("operator routes on %s", (backend) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend), {}, { modules: [operatorModule] });
  });
  afterAll(() => app.close());
  beforeEach(() => resetDatabase(app.ctx.database));

  it('lets only operators through `access: "operator"`, from the next request after a grant', async () => {
    const anonymous = await new TestClient(app).get(OPERATOR_ROUTE);
    expect(anonymous.statusCode).toBe(403);
    expect(anonymous.json()).toMatchObject({ code: "not_authenticated" });

    const user = await createTestUser(app.ctx.database);
    const client = user.client(app);
    const refused = await client.get(OPERATOR_ROUTE);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: "forbidden" });

    expect(await changeOperatorRole(app.ctx.database.db, user.email, true)).toMatchObject({ ok: true });
    const allowed = await client.get(OPERATOR_ROUTE);
    expect(allowed.statusCode, allowed.body).toBe(200);

    await changeOperatorRole(app.ctx.database.db, user.email, false);
    expect((await client.get(OPERATOR_ROUTE)).statusCode).toBe(403);
  });
});
