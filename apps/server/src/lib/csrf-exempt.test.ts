import cookie from "@fastify/cookie";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../app.ts";
import { users } from "../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../test/databases.ts";
import { buildTestApp } from "../test/harness.ts";
import { registerAuth, SESSION_COOKIE } from "./auth.ts";
import { CSRF_EXEMPT_ROUTES } from "./csrf-exempt.ts";
import { createSession } from "./sessions.ts";

const key = (r: { method: string; url: string }) => `${r.method} ${r.url}`;

describe.each(BACKENDS)("CSRF exemptions on %s", (backend) => {
  let app: App;
  let probe: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
    probe = Fastify();
    await probe.register(cookie);
    registerAuth(probe, { config: app.ctx.config, db: app.ctx.database.db, query: app.ctx.database.query });
    probe.post("/exempt", { config: { csrfExempt: true } }, async (request) => request.auth);
    probe.get("/normal", async (request) => request.auth);
    await probe.ready();
  });
  afterAll(async () => {
    await probe.close();
    await app.close();
  });
  beforeEach(async () => resetDatabase(app.ctx.database));

  it("lists exactly the routes that declare csrfExempt", () => {
    const declared = app.routeTable.filter((r) => r.config.csrfExempt === true).map(key);
    expect(new Set(declared)).toEqual(new Set(CSRF_EXEMPT_ROUTES.map(key)));
  });

  it("treats a CSRF-exempt request with a valid session cookie as anonymous", async () => {
    const [user] = await app.ctx.database.db
      .insert(users)
      .values({ email: "exempt@example.com", username: "exempt@example.com" })
      .returning({ id: users.id });
    if (!user) throw new Error("user not inserted");
    const sessionId = await createSession(app.ctx.database.db, user.id, { idleDays: 30, maxDays: 90 }, {});
    const headers = { cookie: `${SESSION_COOKIE}=${sessionId}` };

    const normal = await probe.inject({ method: "GET", url: "/normal", headers });
    expect(normal.json()).toMatchObject({ kind: "user", userId: user.id });

    const exempt = await probe.inject({ method: "POST", url: "/exempt", headers });
    expect(exempt.statusCode).toBe(200);
    expect(exempt.json()).toEqual({ kind: "anonymous" });
  });
});
