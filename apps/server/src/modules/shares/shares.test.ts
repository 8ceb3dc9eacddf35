import { API, type ShareLinkCreated } from "@tonus/contract";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import type { Database } from "../../db/client.ts";
import { auditLog, shareLinks } from "../../db/schema.ts";
import { shareGrant } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { sha256 } from "../../lib/crypto.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TestClient } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";

const VIEWER = "/dashboard_api/v1/test-share/measurement/:id/";
const BP_VIEWER = "/dashboard_api/v1/test-share/bp/";
const linkUrl = (id: string) => API.shareLink.replace(":id", id);

/** Objects the stand-in "measurement" kind knows: `${ownerId}:${targetId}`. */
const owned = new Set<string>();

/** A stand-in share-viewer module: the real ones come with the BP and measurement issues. */
function testShareViewer(app: FastifyInstance, ctx: AppContext): void {
  ctx.services.shareKinds.set("measurement", {
    isOwnedBy: async (_db, userId, targetId) => owned.has(`${userId}:${targetId}`),
  });
  app.get(VIEWER, { config: { access: "user", shareKinds: ["measurement"] } }, async (request) => {
    const grant = shareGrant(request, "measurement");
    const { id } = request.params as { id: string };
    if (grant) {
      if (grant.targetId !== id) return { visible: false };
      return { visible: true, owner: grant.ownerId, via: "share", session: request.sessionId ?? null };
    }
    return { visible: true, via: request.auth.kind };
  });
  app.get(BP_VIEWER, { config: { access: "user", shareKinds: ["bp_log"] } }, async () => ({ ok: true }));
  app.post(VIEWER, { config: { access: "user", shareKinds: ["measurement"] } }, async () => ({ ok: true }));
}

/** Every row of every public table as text: a secret must not appear anywhere in it. */
async function databaseText(database: Database): Promise<string> {
  const { rows } = await database.query<{ tablename: string }>(
    "select tablename from pg_tables where schemaname = 'public'",
  );
  let out = "";
  for (const { tablename } of rows) {
    const r = await database.query<{ t: string | null }>(
      `select string_agg(t::text, '|') as t from "public"."${tablename}" t`,
    );
    out += r.rows[0]?.t ?? "";
  }
  return out;
}

describe.each(BACKENDS)("share links on %s", (backend) => {
  let app: App;
  let owner: TestUser;
  let other: TestUser;
  let client: TestClient;

  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend), {}, { modules: [testShareViewer] });
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    owner = await createTestUser(app.ctx.database);
    other = await createTestUser(app.ctx.database);
    owned.clear();
    owned.add(`${owner.userId}:m-1`);
    owned.add(`${owner.userId}:m-2`);
    owned.add(`${other.userId}:m-9`);
    client = owner.client(app);
  });

  async function create(targetId = "m-1", as: TestClient = client): Promise<ShareLinkCreated> {
    const res = await as.post(API.shareLinks, { kind: "measurement", target_id: targetId });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as ShareLinkCreated;
  }

  const view = (token: string, id = "m-1", extra: Record<string, string> = {}) =>
    app.inject({
      method: "GET",
      url: VIEWER.replace(":id", id),
      headers: { authorization: `Token ${token}`, ...extra },
    });

  it("creates a link with a ≥128-bit tsh_ token shown once and stored only as its SHA-256", async () => {
    const link = await create();
    expect(link).toMatchObject({ kind: "measurement", target_id: "m-1", revoked: null, last_opened: null });
    expect(link.token).toMatch(/^tsh_[A-Za-z0-9_-]{43}$/);
    const second = await create();
    expect(second.token).not.toBe(link.token);
    const [row] = await app.ctx.database.db.select().from(shareLinks).where(eq(shareLinks.id, link.id));
    expect(row?.tokenHash).toBe(sha256(link.token));
    const text = await databaseText(app.ctx.database);
    expect(text).not.toContain(link.token);
    expect(text).not.toContain(link.token.slice(4));
    const list = await client.get(API.shareLinks);
    expect(list.headers["cache-control"]).toBe("no-store");
    expect(JSON.stringify(list.json())).not.toContain(link.token);
    expect((list.json() as { results: unknown[] }).results).toHaveLength(2);
  });

  it("refuses kinds no module handles and targets that are not the owner's with the same 404", async () => {
    const unknownKind = await client.post(API.shareLinks, { kind: "bp_log", target_id: owner.userId });
    const foreign = await client.post(API.shareLinks, { kind: "measurement", target_id: "m-9" });
    const missing = await client.post(API.shareLinks, { kind: "measurement", target_id: "m-404" });
    for (const res of [unknownKind, foreign, missing]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: "not_found", error: "Not found" });
    }
    const bad = await client.post(API.shareLinks, { kind: "passwords", target_id: "x" });
    expect(bad.statusCode).toBe(400);
    const anonymous = await new TestClient(app).post(API.shareLinks, {
      kind: "measurement",
      target_id: "m-1",
    });
    expect(anonymous.statusCode).toBe(403);
    expect(await app.ctx.database.db.select().from(shareLinks)).toEqual([]);
  });

  it("lets a token read exactly its one target on a route of its kind, ignoring cookies (A2)", async () => {
    const link = await create("m-1");
    const ok = await view(link.token, "m-1");
    expect(ok.statusCode, ok.body).toBe(200);
    for (const res of [ok, await view(`tsh_${"B".repeat(43)}`)]) {
      expect(res.headers).toMatchObject({
        "referrer-policy": "no-referrer",
        "x-robots-tag": "noindex, nofollow",
        "cache-control": "no-store",
      });
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
    expect(ok.json()).toEqual({ visible: true, owner: owner.userId, via: "share", session: null });
    expect((await view(link.token, "m-2")).json()).toEqual({ visible: false });
    // A session cookie of another user next to the token changes nothing: the token is the identity.
    const mixed = await view(link.token, "m-1", { cookie: other.client(app).cookieHeader() });
    expect(mixed.json()).toMatchObject({ owner: owner.userId, via: "share", session: null });
    // A route of another kind, and any write, refuse it.
    const bp = await app.inject({
      method: "GET",
      url: BP_VIEWER,
      headers: { authorization: `Token ${link.token}` },
    });
    expect(bp.statusCode).toBe(403);
    expect(bp.json()).toMatchObject({ code: "not_authenticated" });
    const write = await app.inject({
      method: "POST",
      url: VIEWER.replace(":id", "m-1"),
      headers: { authorization: `Token ${link.token}` },
      payload: {},
    });
    expect(write.statusCode).toBe(403);
    // The owner still reads the page with a session.
    expect((await client.get(VIEWER.replace(":id", "m-1"))).json()).toEqual({ visible: true, via: "user" });
    const [row] = await app.ctx.database.db.select().from(shareLinks).where(eq(shareLinks.id, link.id));
    expect(row?.lastOpenedAt).toBeInstanceOf(Date);
  });

  it("refuses a share token on every route that does not declare its kind", async () => {
    const link = await create();
    const routes = app.routeTable.filter(
      (r) => !r.url.includes("*") && r.method !== "HEAD" && r.method !== "OPTIONS" && !r.config.shareKinds,
    );
    expect(routes.length).toBeGreaterThan(20);
    for (const route of routes) {
      const url = route.url.replace(/:(\w+)/g, (_, p: string) =>
        p === "provider" ? "google" : "00000000-0000-4000-8000-000000000000",
      );
      const res = await app.inject({
        method: route.method as "GET",
        url,
        headers: { authorization: `Token ${link.token}`, cookie: client.cookieHeader() },
        ...(route.method === "GET" || route.method === "DELETE" ? {} : { payload: {} }),
      });
      // 403 not_authenticated in the API's shape; IFTTT's endpoints answer their protocol's 401.
      expect([401, 403], `${route.method} ${url}`).toContain(res.statusCode);
      if (res.statusCode === 403)
        expect((res.json() as { code: string }).code, `${route.method} ${url}`).toBe("not_authenticated");
    }
  });

  it("answers unknown and revoked tokens with the same 404, and revokes only the owner's links", async () => {
    const link = await create();
    const unknown = await view(`tsh_${"A".repeat(43)}`);
    expect(unknown.statusCode).toBe(404);
    // Someone else neither sees nor revokes it, and an unknown or malformed id is the same 404 (A1).
    expect((await other.client(app).get(API.shareLinks)).json()).toEqual({ results: [] });
    for (const id of [link.id, "00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const res = await other.client(app).delete(linkUrl(id));
      expect(res.statusCode, id).toBe(404);
    }
    expect((await view(link.token)).statusCode).toBe(200);
    const revoked = await client.delete(linkUrl(link.id));
    expect(revoked.statusCode, revoked.body).toBe(200);
    const after = await view(link.token);
    expect(after.statusCode).toBe(404);
    const strip = (body: string) => {
      const { requestId: _id, ...rest } = JSON.parse(body) as Record<string, unknown>;
      return rest;
    };
    expect(strip(after.body)).toEqual(strip(unknown.body));
    expect((await client.delete(linkUrl(link.id))).statusCode).toBe(404);
    const [listed] = (await client.get(API.shareLinks)).json().results as { revoked: string | null }[];
    expect(listed?.revoked).not.toBeNull();
  });

  it("audits creation, revocation and each view without the token", async () => {
    const link = await create();
    await view(link.token);
    await client.delete(linkUrl(link.id));
    const rows = await app.ctx.database.db.select().from(auditLog).where(eq(auditLog.objectId, link.id));
    expect(rows.map((r) => r.action).sort()).toEqual(["share.created", "share.opened", "share.revoked"]);
    for (const row of rows) expect(row.userId).toBe(owner.userId);
    expect(JSON.stringify(rows)).not.toContain(link.token.slice(4));
  });

  it("limits share-token look-ups per address", async () => {
    let last = 0;
    for (let i = 0; i < 61; i++) last = (await view(`tsh_unknown${i}`)).statusCode;
    expect(last).toBe(429);
  });
});
