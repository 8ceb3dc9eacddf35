import { API } from "@tonus/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TestClient } from "../../test/harness.ts";

const PASSWORD = "correct horse battery staple";

async function countRows(app: App, table: string): Promise<number> {
  const { rows } = await app.ctx.database.query<{ n: number }>(`select count(*)::int as n from ${table}`);
  return rows[0]?.n ?? -1;
}

describe.each(BACKENDS)("accounts and sessions on %s", (backend) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend), { RATE_LIMIT_SIGNIN_PER_HOUR: "3" });
  });
  afterAll(() => app.close());
  beforeEach(async () => resetDatabase(app.ctx.database));

  async function registered(email = "ann@example.com"): Promise<TestClient> {
    const client = new TestClient(app);
    await client.prime();
    const res = await client.post(API.register, { email, password: PASSWORD, timezone: "Europe/Moscow" });
    expect(res.statusCode).toBe(200);
    return client;
  }

  it("registers, signs the new user in with a fresh session id and derives the username", async () => {
    const client = new TestClient(app);
    await client.prime();
    const anonymousId = client.cookies.get("tonussessionid");
    const res = await client.post(API.register, { email: "Ann@Example.com", password: PASSWORD });
    expect(res.statusCode).toBe(200);
    expect(client.cookies.get("tonussessionid")).not.toBe(anonymousId);
    expect((await client.get(API.session)).json()).toEqual({ authenticated: true, user_type: "full" });
    const { rows } = await app.ctx.database.query<{ username: string; email: string }>(
      "select username, email from users",
    );
    expect(rows).toEqual([{ username: "ann", email: "ann@example.com" }]);
    const again = await (await registered("ann2@example.com")).post(API.register, {
      email: "ann@example.com",
      password: PASSWORD,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe("email_taken");
  });

  it("refuses a bad e-mail with the spec's text and a common password", async () => {
    const client = new TestClient(app);
    await client.prime();
    const bad = await client.post(API.register, { email: "not-an-email", password: PASSWORD });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain("Enter a valid email address");
    const weak = await client.post(API.register, { email: "b@example.com", password: "Password123" });
    expect(weak.json().code).toBe("weak_password");
    expect(await countRows(app, "users")).toBe(0);
  });

  it("answers unknown user and wrong password alike (L5), then rate limits with Retry-After (L3)", async () => {
    await registered();
    const client = new TestClient(app);
    await client.prime();
    const unknown = await client.post(API.signin, { email: "nobody@example.com", password: PASSWORD });
    const wrong = await client.post(API.signin, { email: "ann@example.com", password: "wrong password" });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toBe("Incorrect login or password");
    expect(wrong.json().error).toBe(unknown.json().error);
    expect(wrong.json().code).toBe("invalid_credentials");
    for (let i = 0; i < 2; i++)
      await client.post(API.signin, { email: "ann@example.com", password: "wrong password" });
    const limited = await client.post(API.signin, { email: "ann@example.com", password: PASSWORD });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe("rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    // A second instance on the same store (or a restarted one) sees the same window.
    const other = await buildTestApp(app.ctx.database, { RATE_LIMIT_SIGNIN_PER_HOUR: "3" });
    try {
      const elsewhere = new TestClient(other);
      await elsewhere.prime();
      const res = await elsewhere.post(API.signin, { email: "ann@example.com", password: PASSWORD });
      expect(res.statusCode).toBe(429);
    } finally {
      await other.close();
    }
    // The window lives in the database: moving it an hour back lets the owner in (no permanent lockout).
    await app.ctx.database.query(
      "update rate_limits set window_start = window_start - interval '61 minutes'",
    );
    const ok = await client.post(API.signin, { email: "ann@example.com", password: PASSWORD });
    expect(ok.statusCode).toBe(200);
    const { rows } = await app.ctx.database.query<{ action: string; n: number }>(
      "select action, count(*)::int as n from audit_log group by action order by action",
    );
    expect(rows).toEqual([
      { action: "auth.register", n: 1 },
      { action: "auth.signin", n: 1 },
      { action: "auth.signin_failed", n: 4 },
    ]);
    const audit = await app.ctx.database.query("select * from audit_log");
    expect(JSON.stringify(audit.rows)).not.toContain("wrong password");
  });

  it("rotates a planted session id and CSRF token at sign-in (S4)", async () => {
    await registered();
    const client = new TestClient(app);
    await client.prime();
    const planted = { session: client.cookies.get("tonussessionid"), csrf: client.cookies.get("csrftoken") };
    expect((await client.post(API.signin, { email: "ann@example.com", password: PASSWORD })).statusCode).toBe(
      200,
    );
    expect(client.cookies.get("tonussessionid")).not.toBe(planted.session);
    expect(client.cookies.get("csrftoken")).not.toBe(planted.csrf);
    const replay = await app.inject({
      method: "POST",
      url: API.apiTokens,
      headers: {
        cookie: `tonussessionid=${planted.session}; csrftoken=${planted.csrf}`,
        "x-csrftoken": planted.csrf ?? "",
        origin: "http://tonus.test",
      },
      payload: { name: "x" },
    });
    expect(replay.statusCode).toBe(403);
  });

  it("logs out only with the CSRF token or a same-origin fetch, and the old cookies die (S3, S5)", async () => {
    const client = await registered();
    const cookie = client.cookieHeader();
    const forged = await app.inject({ method: "GET", url: API.logout, headers: { cookie } });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().code).toBe("csrf_failed");
    const res = await client.get(API.logout, { "x-csrftoken": client.cookies.get("csrftoken") ?? "" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["clear-site-data"]).toBe('"cache", "storage"');
    const replay = await app.inject({ method: "GET", url: API.session, headers: { cookie } });
    expect(replay.json()).toEqual({ authenticated: false, user_type: "anonymous" });
    expect(await countRows(app, "sessions")).toBe(0);
  });

  it("answers Russian-preferring browsers in Russian", async () => {
    const client = new TestClient(app);
    await client.prime();
    const res = await client.post(
      API.signin,
      { email: "nobody@example.com", password: PASSWORD },
      { "accept-language": "ru-RU,ru;q=0.9,en;q=0.8" },
    );
    expect(res.json()).toMatchObject({ code: "invalid_credentials", error: "Неверный логин или пароль" });
  });
});
