import { API, BP_LOG_SHARE_TARGET, type ShareLinkCreated } from "@tonus/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, type TestClient } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";

const reading = (systolic: number, diastolic: number, at: string) => ({
  systolic,
  diastolic,
  pulse: 64,
  measured_at: at,
  time_zone: "Europe/Moscow",
});

// The blood-pressure log shared by link (issue 5, RELIABILITY A2): the token reads that log only,
// read-only, not indexed, and stops working when revoked.
describe.each(BACKENDS)("shared blood-pressure log on %s", (backend) => {
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
    owner = await createTestUser(app.ctx.database);
    other = await createTestUser(app.ctx.database);
    client = owner.client(app);
    for (const [s, d, at] of [
      [128, 82, "2026-11-20T08:00:00+03:00"],
      [141, 88, "2026-11-21T08:00:00+03:00"],
    ] as const) {
      expect((await client.post(API.bpReadings, reading(s, d, at))).statusCode).toBe(201);
    }
    expect(
      (await other.client(app).post(API.bpReadings, reading(170, 100, "2026-11-21T09:00:00Z"))).statusCode,
    ).toBe(201);
  });

  async function share(as: TestClient = client): Promise<ShareLinkCreated> {
    const res = await as.post(API.shareLinks, { kind: "bp_log", target_id: BP_LOG_SHARE_TARGET });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as ShareLinkCreated;
  }

  const view = (token: string, query = "") =>
    app.inject({
      method: "GET",
      url: `${API.sharedBpLog}${query}`,
      headers: { authorization: `Token ${token}` },
    });

  it("shows the owner's readings only, newest first, with noindex and no-referrer", async () => {
    const link = await share();
    const res = await view(link.token);
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-robots-tag"]).toBe("noindex, nofollow");
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
    expect(res.headers["cache-control"]).toBe("no-store");
    const body = res.json() as { count: number; results: { systolic: number; category: string }[] };
    expect(body.count).toBe(2);
    expect(body.results.map((r) => [r.systolic, r.category])).toEqual([
      [141, "isolated_systolic_1"],
      [128, "normal"],
    ]);
    const paged = (await view(link.token, "?limit=1&offset=1")).json() as { results: { systolic: number }[] };
    expect(paged.results.map((r) => r.systolic)).toEqual([128]);
    // Opening it is visible to the owner.
    const listed = (await client.get(API.shareLinks)).json() as { results: { last_opened: string | null }[] };
    expect(listed.results[0]?.last_opened).not.toBeNull();
  });

  it("grants nothing else: the owner's API, other share viewers and writes refuse the token", async () => {
    const link = await share();
    const auth = { authorization: `Token ${link.token}` };
    for (const url of [API.bpReadings, API.profile, API.sharedMeasurement, API.shareLinks]) {
      const res = await app.inject({ method: "GET", url, headers: auth });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
    }
    const write = await app.inject({
      method: "POST",
      url: API.bpReadings,
      headers: { ...auth, "content-type": "application/json" },
      payload: JSON.stringify(reading(120, 80, "2026-11-22T08:00:00Z")),
    });
    expect(write.statusCode).toBeGreaterThanOrEqual(400);
    expect(write.statusCode).toBeLessThan(500);
    expect(((await client.get(API.bpReadings)).json() as { count: number }).count).toBe(2);
  });

  it("answers the same 404 for no token, an unknown one and a revoked one, and to a signed-in visitor", async () => {
    const link = await share();
    expect((await client.delete(API.shareLink.replace(":id", link.id))).statusCode).toBe(200);
    const revoked = await view(link.token);
    const unknown = await view(`tsh_${"A".repeat(43)}`);
    const signedIn = await client.get(API.sharedBpLog);
    const anonymous = await app.inject({ method: "GET", url: API.sharedBpLog });
    for (const res of [revoked, unknown, signedIn, anonymous]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: "not_found" });
    }
  });

  it("shares only the whole log: another target is refused like a foreign object", async () => {
    const res = await client.post(API.shareLinks, { kind: "bp_log", target_id: other.userId });
    expect(res.statusCode).toBe(404);
  });
});
