import { parseOptions } from "@node-rs/argon2";
import { API } from "@tonus/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { hashPassword, verifyPassword } from "../../lib/passwords.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TEST_ORIGIN, TestClient } from "../../test/harness.ts";
import { startTestSmtp } from "../../test/smtp.ts";

const PASSWORD = "correct horse battery staple";
type Smtp = Awaited<ReturnType<typeof startTestSmtp>>;

/** The text part of a raw message, with quoted-printable soft breaks and escapes undone. */
function decodeBody(raw: string): string {
  const body = raw.slice(raw.indexOf("\r\n\r\n") + 4);
  if (/content-transfer-encoding:\s*base64/i.test(raw)) return Buffer.from(body, "base64").toString("utf8");
  const bytes = body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

describe.each(BACKENDS)("passwords, recovery, direct login and tokens on %s", (backend) => {
  let app: App;
  let smtp: Smtp;
  beforeAll(async () => {
    smtp = await startTestSmtp();
    app = await buildTestApp(await getTestDatabase(backend), { SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await app.close();
    await smtp.close();
  });
  beforeEach(async () => {
    smtp.messages.length = 0;
    await resetDatabase(app.ctx.database);
  });

  async function registered(email = "ann@example.com", password = PASSWORD): Promise<TestClient> {
    const client = new TestClient(app);
    await client.prime();
    const res = await client.post(API.register, { email, password });
    expect(res.statusCode).toBe(200);
    return client;
  }
  async function signedIn(email = "ann@example.com", password = PASSWORD): Promise<TestClient> {
    const client = new TestClient(app);
    await client.prime();
    const res = await client.post(API.signin, { email, password });
    expect(res.statusCode).toBe(200);
    return client;
  }
  async function isSignedIn(client: TestClient): Promise<boolean> {
    return (await client.get(API.session)).json().authenticated;
  }

  it("stores argon2id with m ≥ 19456, t ≥ 2, p = 1 and upgrades a weaker hash at sign-in (L1)", async () => {
    await registered();
    const read = async () =>
      (await app.ctx.database.query<{ h: string }>("select password_hash as h from users")).rows[0]?.h ?? "";
    const options = parseOptions(await read());
    expect(options).toMatchObject({ algorithm: 2, parallelism: 1 });
    expect(options.memoryCost).toBeGreaterThanOrEqual(19_456);
    expect(options.timeCost).toBeGreaterThanOrEqual(2);
    const { hash } = await import("@node-rs/argon2");
    const weak = await hash(PASSWORD, { memoryCost: 4096, timeCost: 1, parallelism: 1 });
    await app.ctx.database.query("update users set password_hash = $1", [weak]);
    await signedIn();
    expect(parseOptions(await read()).memoryCost).toBe(19_456);
  });

  it("keeps every character of long passwords and treats composed and decomposed й alike (L2)", async () => {
    const long = `${"x".repeat(99)}a${"y".repeat(28)}`;
    const stored = await hashPassword(long);
    expect(await verifyPassword(stored, long)).toBe(true);
    expect(await verifyPassword(stored, `${long.slice(0, 99)}b${long.slice(100)}`)).toBe(false);
    await registered("long@example.com", "z".repeat(64));
    await signedIn("long@example.com", "z".repeat(64));
    const composed = "пароль-й-надёжный";
    const decomposed = composed.normalize("NFD");
    expect(decomposed).not.toBe(composed);
    await registered("yot@example.com", composed);
    await signedIn("yot@example.com", decomposed);
  });

  it("resets a password through the e-mailed link once, ends sessions, never mails the password (L6)", async () => {
    const ann = await registered();
    const client = new TestClient(app);
    await client.prime();
    const unknown = await client.post(API.passwordRecover, { email: "nobody@example.com" });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({
      code: "user_not_found",
      error: "No user with this email (check the address)",
    });
    const res = await client.post(API.passwordRecover, { email: "ann@example.com" });
    expect(res.statusCode).toBe(200);
    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0];
    expect(mail?.to).toEqual(["ann@example.com"]);
    const text = decodeBody(mail?.raw ?? "");
    expect(text).not.toContain(PASSWORD);
    const link = new URL(/https?:\/\/\S+/.exec(text)?.[0] ?? "");
    expect(link.origin + link.pathname).toBe(`${TEST_ORIGIN}/auth/password-reset`);
    const token = link.searchParams.get("token") ?? "";
    expect(Buffer.from(token, "base64url").length).toBe(32);
    const reset = await client.post(API.passwordReset, { token, password: "a brand new secret" });
    expect(reset.statusCode).toBe(200);
    expect(await isSignedIn(ann)).toBe(false);
    const again = await client.post(API.passwordReset, { token, password: "another new secret" });
    expect(again.json().code).toBe("invalid_code");
    await signedIn("ann@example.com", "a brand new secret");
  });

  it("writes the recovery e-mail in Russian when the browser prefers it, and expires codes after an hour", async () => {
    await registered();
    const client = new TestClient(app);
    await client.prime();
    await client.post(
      API.passwordRecover,
      { email: "ann@example.com" },
      { "accept-language": "ru,en;q=0.5" },
    );
    const raw = smtp.messages[0]?.raw ?? "";
    expect(decodeBody(raw)).toContain("Чтобы задать новый пароль");
    const token = new URL(/https?:\/\/\S+/.exec(decodeBody(raw))?.[0] ?? "").searchParams.get("token") ?? "";
    await app.ctx.database.query("update one_time_codes set expires_at = now() - interval '1 second'");
    const res = await client.post(API.passwordReset, { token, password: "a brand new secret" });
    expect(res.json().code).toBe("invalid_code");
  });

  it("ends the other sessions at a password change and keeps this one (S5)", async () => {
    const here = await registered();
    const there = await signedIn();
    const wrong = await here.post(API.passwordChange, {
      current_password: "nope nope",
      new_password: "fresh secret 1",
    });
    expect(wrong.json().code).toBe("wrong_password");
    const res = await here.post(API.passwordChange, {
      current_password: PASSWORD,
      new_password: "fresh secret 1",
    });
    expect(res.statusCode).toBe(200);
    expect(await isSignedIn(here)).toBe(true);
    expect(await isSignedIn(there)).toBe(false);
  });

  it("exchanges a direct-login code once, for a new session, within 60 s, asking before switching (S8)", async () => {
    const ann = await registered();
    const created = await ann.post(API.apiTokens, { name: "phone" });
    const key = created.json().key as string;
    expect(key.startsWith("tok_")).toBe(true);
    const mint = () =>
      app.inject({ method: "POST", url: API.directLoginCode, headers: { authorization: `Token ${key}` } });
    expect((await ann.post(API.directLoginCode)).statusCode).toBe(403);
    const code = (await mint()).json();
    expect(code.expires_in_s).toBe(60);

    const browser = new TestClient(app);
    await browser.prime();
    const anonymousId = browser.cookies.get("tonussessionid");
    const ok = await browser.post(API.directLogin, { token: code.token, session_id: code.session_id });
    expect(ok.json()).toEqual({ ok: true, needs_confirmation: false });
    expect(ok.headers["referrer-policy"]).toBe("no-referrer");
    expect(ok.headers["cache-control"]).toBe("no-store");
    expect(browser.cookies.get("tonussessionid")).not.toBe(anonymousId);
    expect(browser.cookies.get("tonussessionid")).not.toBe(code.session_id);
    expect(await isSignedIn(browser)).toBe(true);
    const reuse = await new TestClient(app).post(API.directLogin, code);
    expect(reuse.statusCode).toBe(403);
    const reuseBrowser = await browser.post(API.directLogin, {
      token: code.token,
      session_id: code.session_id,
    });
    expect(reuseBrowser.json().code).toBe("invalid_code");

    const late = (await mint()).json();
    await app.ctx.database.query(
      "update one_time_codes set expires_at = now() - interval '1 second' where used_at is null",
    );
    const fresh = new TestClient(app);
    await fresh.prime();
    expect(
      (await fresh.post(API.directLogin, { token: late.token, session_id: late.session_id })).json().code,
    ).toBe("invalid_code");

    const bob = await registered("bob@example.com");
    const forAnn = (await mint()).json();
    const ask = await bob.post(API.directLogin, { token: forAnn.token, session_id: forAnn.session_id });
    expect(ask.json()).toEqual({ ok: true, needs_confirmation: true, current_email: "bob@example.com" });
    const confirmed = await bob.post(API.directLogin, {
      token: forAnn.token,
      session_id: forAnn.session_id,
      confirm_switch: true,
    });
    expect(confirmed.json().needs_confirmation).toBe(false);
    const ids = await app.ctx.database.query<{ email: string }>(
      "select u.email from sessions s join users u on u.id = s.user_id order by s.created_at desc limit 1",
    );
    expect(ids.rows[0]?.email).toBe("ann@example.com");
  });

  it("lists and revokes API tokens; a revoked key and the static app token grant nothing (S11)", async () => {
    const ann = await registered();
    const { key, id } = (await ann.post(API.apiTokens, { name: "phone" })).json();
    const list = (await ann.get(API.apiTokens)).json();
    expect(list.results.map((t: { id: string }) => t.id)).toEqual([id]);
    expect(JSON.stringify(list)).not.toContain(key);
    const asToken = await app.inject({
      method: "GET",
      url: API.session,
      headers: { authorization: `Token ${key}` },
    });
    expect(asToken.json().authenticated).toBe(true);
    expect((await ann.delete(API.apiToken.replace(":id", id))).statusCode).toBe(200);
    const revoked = await app.inject({
      method: "GET",
      url: API.session,
      headers: { authorization: `Token ${key}` },
    });
    expect(revoked.statusCode).toBe(403);

    const appToken = { authorization: `Token ${app.ctx.config.APP_TOKEN}` };
    for (const url of [API.session, API.apiTokens, API.profile]) {
      const anon = await app.inject({ method: "GET", url });
      const withToken = await app.inject({ method: "GET", url, headers: appToken });
      expect(withToken.statusCode).toBe(anon.statusCode);
      const { requestId: _a, ...anonBody } = anon.json();
      const { requestId: _b, ...tokenBody } = withToken.json();
      expect(tokenBody).toEqual(anonBody);
    }
  });
});
