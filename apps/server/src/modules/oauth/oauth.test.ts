import { createHash } from "node:crypto";
import { OAUTH_API } from "@tonus/contract";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { oauthCodes, oauthRequests, oauthTokens } from "../../db/schema.ts";
import { sha256 } from "../../lib/crypto.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, type TestClient } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { checkRedirectUri, registerOAuthClient } from "./oauth.clients.ts";
import { CODE_TTL_MS, tokenEndpoint } from "./oauth.service.ts";

const IFTTT_URI = "https://ifttt.com/channels/tonus/authorize";
const PUBLIC_URI = "https://app.example.com:8443/cb?x=1";
const HEAVY = Boolean(process.env.TONUS_HEAVY);

const verifier = `${"v".repeat(20)}0123456789abcdefghijklmnopqrstuvwxyz`;
const challenge = createHash("sha256").update(verifier).digest("base64url");

function authorizeUrl(params: Record<string, string>): string {
  return `${OAUTH_API.authorize}?${new URLSearchParams(params).toString()}`;
}

/** O1's hand-written mutations of a registered URI; none may be redirected to. */
function mutations(uri: string): string[] {
  const u = new URL(uri);
  return [
    `${uri}/`,
    uri.replace(/\/$/, ""),
    uri.toUpperCase(),
    uri.replace(u.hostname, u.hostname.toUpperCase()),
    uri.replace("https:", "http:"),
    uri.replace(u.host, `${u.hostname}:444`),
    uri.replace(u.host, `${u.host}:443`),
    uri.replace("https://", "https://user@"),
    uri.replace("https://", "https://evil.example@"),
    `${uri}?extra=1`,
    `${uri}&extra=1`,
    `${uri}#frag`,
    `${uri}/../evil`,
    uri.replace("/channels/", "/channels/../channels/"),
    uri.replace("/channels/", "/%63hannels/"),
    uri.replace("ifttt.com", "ifttt.com."),
    uri.replace("ifttt.com", "ifttt。com"),
    uri.replace("ifttt.com", "ifttt.com.evil.example"),
    uri.replace("ifttt.com", "evil-ifttt.com"),
    ` ${uri}`,
    `${uri} `,
    `${uri}%00`,
    uri.replace("authorize", "Authorize"),
    "https://evil.example/cb",
    "//ifttt.com/channels/tonus/authorize",
    "",
  ];
}

describe.each(BACKENDS)("OAuth2 authorization server on %s", (backend) => {
  let app: App;
  let user: TestUser;
  let client: TestClient;
  let iftttSecret: string;

  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    const db = app.ctx.database.db;
    iftttSecret =
      (
        await registerOAuthClient(db, {
          id: "ifttt",
          name: "IFTTT",
          redirectUris: [IFTTT_URI],
          isPublic: false,
          tokenPolicy: "non_expiring",
        })
      ).secret ?? "";
    await registerOAuthClient(db, {
      id: "mobile",
      name: "Mobile helper",
      redirectUris: [PUBLIC_URI],
      isPublic: true,
      tokenPolicy: "expiring",
    });
    user = await createTestUser(app.ctx.database);
    client = user.client(app);
  });

  /** The whole browser part: authorize → consent page → approve; answers the redirect URL. */
  async function authorize(params: Record<string, string>, approve = true): Promise<URL> {
    const res = await app.inject({ method: "GET", url: authorizeUrl(params) });
    expect(res.statusCode, res.body).toBe(302);
    const location = String(res.headers.location);
    expect(location).toMatch(/^\/oauth2\/authorize\/ifttt\?request=[\w-]+$/);
    expect(location).not.toContain("scope");
    const id = new URLSearchParams(location.split("?")[1]).get("request") ?? "";
    const info = await client.get(OAUTH_API.request.replace(":id", id));
    expect(info.statusCode).toBe(200);
    const decision = await client.post(OAUTH_API.decision.replace(":id", id), { approve });
    expect(decision.statusCode, decision.body).toBe(200);
    return new URL((decision.json() as { redirect_to: string }).redirect_to);
  }

  const iftttParams = {
    response_type: "code",
    client_id: "ifttt",
    redirect_uri: IFTTT_URI,
    state: "s-1",
    scope: "ifttt",
  };
  const publicParams = {
    response_type: "code",
    client_id: "mobile",
    redirect_uri: PUBLIC_URI,
    state: "s-2",
    code_challenge: challenge,
    code_challenge_method: "S256",
  };

  async function token(form: Record<string, string>, headers: Record<string, string> = {}) {
    return app.inject({
      method: "POST",
      url: OAUTH_API.token,
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      payload: new URLSearchParams(form).toString(),
    });
  }

  async function iftttCode(): Promise<string> {
    const back = await authorize(iftttParams);
    expect(back.origin + back.pathname).toBe(IFTTT_URI);
    expect(back.searchParams.get("state")).toBe("s-1");
    return back.searchParams.get("code") ?? "";
  }

  it("runs the IFTTT flow: consent page info, code, token without expiry, user info, and 401 after revocation (O5)", async () => {
    const res = await app.inject({ method: "GET", url: authorizeUrl(iftttParams) });
    const id = new URLSearchParams(String(res.headers.location).split("?")[1]).get("request") ?? "";
    const info = await client.get(OAUTH_API.request.replace(":id", id));
    expect(info.json()).toEqual({
      id,
      client: { id: "ifttt", name: "IFTTT" },
      scopes: ["ifttt"],
      redirect_origin: "https://ifttt.com",
    });
    // Signed out, the consent API refuses (the page sends the person to sign-in first).
    expect((await app.inject({ method: "GET", url: OAUTH_API.request.replace(":id", id) })).statusCode).toBe(
      403,
    );
    const decision = await client.post(OAUTH_API.decision.replace(":id", id), { approve: true });
    const code = new URL(decision.json().redirect_to).searchParams.get("code") ?? "";

    const basic = Buffer.from(`ifttt:${iftttSecret}`).toString("base64");
    const tok = await token(
      { grant_type: "authorization_code", code, redirect_uri: IFTTT_URI },
      { authorization: `Basic ${basic}` },
    );
    expect(tok.statusCode, tok.body).toBe(200);
    expect(tok.headers["cache-control"]).toBe("no-store");
    const body = tok.json();
    expect(body).toMatchObject({ token_type: "Bearer", scope: "ifttt" });
    expect(body.expires_in).toBeUndefined();
    expect(body.refresh_token).toBeUndefined();

    const bearer = { authorization: `Bearer ${body.access_token}` };
    const me = await app.inject({ method: "GET", url: "/ifttt/v1/user/info", headers: bearer });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ data: { id: user.userId } });

    const list = await client.get(OAUTH_API.connectedServices);
    expect(list.json().results).toHaveLength(1);
    expect(list.json().results[0]).toMatchObject({ client_id: "ifttt", name: "IFTTT", scopes: ["ifttt"] });
    const grantId = list.json().results[0].id as string;

    // Someone else cannot revoke it (404, as for an unknown id).
    const other = await createTestUser(app.ctx.database);
    expect(
      (await other.client(app).delete(OAUTH_API.connectedService.replace(":id", grantId))).statusCode,
    ).toBe(404);
    expect(
      (await app.inject({ method: "GET", url: "/ifttt/v1/user/info", headers: bearer })).statusCode,
    ).toBe(200);

    const revoke = await client.delete(OAUTH_API.connectedService.replace(":id", grantId));
    expect(revoke.statusCode).toBe(200);
    const after = await app.inject({ method: "GET", url: "/ifttt/v1/user/info", headers: bearer });
    expect(after.statusCode).toBe(401);
    expect(after.json().errors[0].message).toEqual(expect.any(String));
    expect((await client.get(OAUTH_API.connectedServices)).json().results).toEqual([]);
  });

  it("sends a declined consent back with error=access_denied and the state", async () => {
    const back = await authorize(iftttParams, false);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("s-1");
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("answers 404 for a pending-authorization id the database could not hold", async () => {
    for (const id of ["%00", "a%00b"]) {
      expect((await client.get(OAUTH_API.request.replace(":id", id))).statusCode).toBe(404);
      const decision = await client.post(OAUTH_API.decision.replace(":id", id), { approve: true });
      expect(decision.statusCode).toBe(404);
      expect(decision.json().code).toBe("not_found");
    }
  });

  it("uses a pending authorization once", async () => {
    const res = await app.inject({ method: "GET", url: authorizeUrl(iftttParams) });
    const id = new URLSearchParams(String(res.headers.location).split("?")[1]).get("request") ?? "";
    expect((await client.post(OAUTH_API.decision.replace(":id", id), { approve: true })).statusCode).toBe(
      200,
    );
    expect((await client.post(OAUTH_API.decision.replace(":id", id), { approve: true })).statusCode).toBe(
      404,
    );
  });

  it("never redirects to a mutated redirect URI: an error page instead (O1)", async () => {
    const before = await app.ctx.database.db.select().from(oauthRequests);
    let checked = 0;
    const check = async (uri: string) => {
      if (uri === IFTTT_URI) return;
      const res = await app.inject({
        method: "GET",
        url: authorizeUrl({ ...iftttParams, redirect_uri: uri }),
        headers: { accept: "text/html" },
      });
      checked++;
      expect(res.statusCode, uri).toBe(400);
      expect(res.headers.location, uri).toBeUndefined();
      expect(res.body).not.toContain("<script");
    };
    for (const uri of mutations(IFTTT_URI)) await check(uri);
    for (const uri of mutations(PUBLIC_URI)) await check(uri);
    // Edits that give the registered URI back (nothing inserted or removed, or the same characters)
    // are not mutations: they are filtered out, so every run checks one.
    const mutated = fc
      .tuple(fc.nat(IFTTT_URI.length), fc.string({ minLength: 0, maxLength: 3 }), fc.nat(3))
      .map(([at, insert, removeCount]) => IFTTT_URI.slice(0, at) + insert + IFTTT_URI.slice(at + removeCount))
      .filter((uri) => uri !== IFTTT_URI);
    await fc.assert(fc.asyncProperty(mutated, check), { numRuns: HEAVY ? 1000 : 150 });
    // RELIABILITY O1: 1,000 mutations in the heavy tier, 0 redirects.
    expect(checked).toBeGreaterThanOrEqual(HEAVY ? 1000 : 150);
    // JSON callers get the error shape; unknown clients are refused the same way.
    const json = await app.inject({
      method: "GET",
      url: authorizeUrl({ ...iftttParams, client_id: "nobody" }),
    });
    expect(json.statusCode).toBe(400);
    expect(json.json().code).toBe("validation_failed");
    expect(await app.ctx.database.db.select().from(oauthRequests)).toEqual(before);
  });

  it("refuses repeated client_id or redirect_uri without redirecting", async () => {
    const url = `${authorizeUrl(iftttParams)}&redirect_uri=${encodeURIComponent("https://evil.example/")}`;
    const res = await app.inject({ method: "GET", url });
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
  });

  it("returns request errors to the registered URI once it is trusted", async () => {
    const res = await app.inject({
      method: "GET",
      url: authorizeUrl({ ...iftttParams, response_type: "token" }),
    });
    expect(res.statusCode).toBe(302);
    const back = new URL(String(res.headers.location));
    expect(back.origin + back.pathname).toBe(IFTTT_URI);
    expect(back.searchParams.get("error")).toBe("unsupported_response_type");
    expect(back.searchParams.get("state")).toBe("s-1");
    const scope = await app.inject({ method: "GET", url: authorizeUrl({ ...iftttParams, scope: "admin" }) });
    expect(new URL(String(scope.headers.location)).searchParams.get("error")).toBe("invalid_scope");
  });

  it("makes codes single-use: a replay is invalid_grant and revokes the first exchange's token (O2)", async () => {
    const code = await iftttCode();
    const form = {
      grant_type: "authorization_code",
      code,
      redirect_uri: IFTTT_URI,
      client_id: "ifttt",
      client_secret: iftttSecret,
    };
    const first = await token(form);
    expect(first.statusCode, first.body).toBe(200);
    const bearer = { authorization: `Bearer ${first.json().access_token}` };
    expect(
      (await app.inject({ method: "GET", url: "/ifttt/v1/user/info", headers: bearer })).statusCode,
    ).toBe(200);
    const second = await token(form);
    expect(second.statusCode).toBe(400);
    expect(second.json()).toMatchObject({ error: "invalid_grant" });
    expect(
      (await app.inject({ method: "GET", url: "/ifttt/v1/user/info", headers: bearer })).statusCode,
    ).toBe(401);
  });

  it("lets exactly one of two concurrent exchanges of a code win", async () => {
    const code = await iftttCode();
    const form = {
      grant_type: "authorization_code",
      code,
      redirect_uri: IFTTT_URI,
      client_id: "ifttt",
      client_secret: iftttSecret,
    };
    const answers = await Promise.all([token(form), token(form)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 400]);
  });

  it("expires codes after 10 minutes and binds them to client and redirect URI (O2)", async () => {
    const db = app.ctx.database.db;
    const code = await iftttCode();
    const form = { grant_type: "authorization_code", code, redirect_uri: IFTTT_URI };
    const req = (fields: Record<string, string>) => ({
      fields: new Map(Object.entries(fields)),
      authorization: undefined,
    });
    const [row] = await db
      .select()
      .from(oauthCodes)
      .where(eq(oauthCodes.codeHash, sha256(code)));
    expect(row?.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + CODE_TTL_MS);
    const at = (ms: number) => new Date((row?.createdAt.getTime() ?? 0) + ms);
    // 10:01 after issue: expired.
    await expect(
      tokenEndpoint(
        db,
        req({ ...form, client_id: "ifttt", client_secret: iftttSecret }),
        at(CODE_TTL_MS + 1000),
      ),
    ).rejects.toMatchObject({ error: "invalid_grant" });
    // Another client (the public one) cannot use it.
    const wrongClient = await token({ ...form, client_id: "mobile", code_verifier: verifier });
    expect(wrongClient.json()).toMatchObject({ error: "invalid_grant" });
    // A different redirect URI cannot use it.
    const wrongUri = await token({
      ...form,
      redirect_uri: `${IFTTT_URI}/`,
      client_id: "ifttt",
      client_secret: iftttSecret,
    });
    expect(wrongUri.json()).toMatchObject({ error: "invalid_grant" });
    // 9:59 after issue it still works.
    const ok = await tokenEndpoint(
      db,
      req({ ...form, client_id: "ifttt", client_secret: iftttSecret }),
      at(CODE_TTL_MS - 1000),
    );
    expect(ok.token_type).toBe("Bearer");
  });

  it("authenticates the confidential client's secret, in the body or Basic (O3)", async () => {
    const code = await iftttCode();
    const form = { grant_type: "authorization_code", code, redirect_uri: IFTTT_URI };
    const bads: Record<string, string>[] = [
      { client_id: "ifttt" },
      { client_id: "ifttt", client_secret: "" },
      { client_id: "ifttt", client_secret: `${iftttSecret}x` },
      { client_id: "ifttt", client_secret: iftttSecret.slice(0, -1) },
      { client_id: "nobody", client_secret: iftttSecret },
    ];
    for (const bad of bads) {
      const res = await token({ ...form, ...bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(401);
      expect(res.json()).toMatchObject({ error: "invalid_client", code: "invalid_client" });
    }
    const wrongBasic = await token(form, {
      authorization: `Basic ${Buffer.from("ifttt:nope").toString("base64")}`,
    });
    expect(wrongBasic.statusCode).toBe(401);
    expect(wrongBasic.headers["www-authenticate"]).toContain("Basic");
    // Both ways at once is refused.
    const both = await token(
      { ...form, client_secret: iftttSecret },
      { authorization: `Basic ${Buffer.from(`ifttt:${iftttSecret}`).toString("base64")}` },
    );
    expect(both.json()).toMatchObject({ error: "invalid_request" });
    // The code survived the failed attempts.
    expect((await token({ ...form, client_id: "ifttt", client_secret: iftttSecret })).statusCode).toBe(200);
  });

  it("refuses a NUL character in a client id as a bad request, wherever it comes (Z1)", async () => {
    const code = await iftttCode();
    const form = { grant_type: "authorization_code", code, redirect_uri: IFTTT_URI };
    const inForm = await token({ ...form, client_id: "\u0000", client_secret: iftttSecret });
    expect(inForm.statusCode).toBe(400);
    expect(inForm.json()).toMatchObject({ error: "invalid_request", code: "invalid_request" });
    const inBasic = await token(form, {
      authorization: `Basic ${Buffer.from(`\u0000:${iftttSecret}`).toString("base64")}`,
    });
    expect(inBasic.statusCode).toBe(401);
    expect(inBasic.json()).toMatchObject({ error: "invalid_client", code: "invalid_client" });
    const inQuery = await app.inject({
      method: "GET",
      url: authorizeUrl({ ...iftttParams, client_id: "ifttt\u0000" }),
    });
    expect(inQuery.statusCode).toBe(400);
    expect(inQuery.json().code).toBe("validation_failed");
    // The code survived the refused attempts.
    expect((await token({ ...form, client_id: "ifttt", client_secret: iftttSecret })).statusCode).toBe(200);
  });

  it("requires PKCE S256 of public clients and checks the verifier (O3)", async () => {
    const noPkce = await app.inject({
      method: "GET",
      url: authorizeUrl({ response_type: "code", client_id: "mobile", redirect_uri: PUBLIC_URI, state: "x" }),
    });
    expect(new URL(String(noPkce.headers.location)).searchParams.get("error")).toBe("invalid_request");
    const plain = await app.inject({
      method: "GET",
      url: authorizeUrl({ ...publicParams, code_challenge: verifier, code_challenge_method: "plain" }),
    });
    expect(new URL(String(plain.headers.location)).searchParams.get("error")).toBe("invalid_request");

    const back = await authorize(publicParams);
    expect(back.searchParams.get("x")).toBe("1");
    const code = back.searchParams.get("code") ?? "";
    const form = { grant_type: "authorization_code", code, redirect_uri: PUBLIC_URI, client_id: "mobile" };
    expect((await token(form)).json()).toMatchObject({ error: "invalid_grant" });
    expect((await token({ ...form, code_verifier: `${verifier.slice(0, -1)}x` })).json()).toMatchObject({
      error: "invalid_grant",
    });
    const ok = await token({ ...form, code_verifier: verifier });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    expect(ok.json().refresh_token).toMatch(/^tor_/);
  });

  it("rotates refresh tokens with an absolute lifetime, and a reused one ends the grant's tokens (O4)", async () => {
    const back = await authorize(publicParams);
    const first = (
      await token({
        grant_type: "authorization_code",
        code: back.searchParams.get("code") ?? "",
        redirect_uri: PUBLIC_URI,
        client_id: "mobile",
        code_verifier: verifier,
      })
    ).json();
    const r1 = await token({
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: "mobile",
    });
    expect(r1.statusCode, r1.body).toBe(200);
    const second = r1.json();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const rows = await app.ctx.database.db.select().from(oauthTokens);
    const absolute = new Set(rows.map((r) => r.refreshExpiresAt?.getTime()));
    expect(absolute.size).toBe(1);
    // The old refresh token again: refused, and the live tokens of the grant are revoked.
    const replay = await token({
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: "mobile",
    });
    expect(replay.json()).toMatchObject({ error: "invalid_grant" });
    const r2 = await token({
      grant_type: "refresh_token",
      refresh_token: second.refresh_token,
      client_id: "mobile",
    });
    expect(r2.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses implicit, password and client-credentials grants (O4)", async () => {
    for (const grant of [
      "password",
      "implicit",
      "client_credentials",
      "urn:ietf:params:oauth:grant-type:device_code",
    ]) {
      const res = await token({
        grant_type: grant,
        client_id: "ifttt",
        client_secret: iftttSecret,
        username: "a",
        password: "b",
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: "unsupported_grant_type" });
    }
    const none = await token({ client_id: "ifttt", client_secret: iftttSecret });
    expect(none.json()).toMatchObject({ error: "invalid_request" });
    const refresh = await token({
      grant_type: "refresh_token",
      refresh_token: "tor_x",
      client_id: "ifttt",
      client_secret: iftttSecret,
    });
    expect(refresh.json()).toMatchObject({ error: "unauthorized_client" });
  });

  it("answers hostile token requests with 4xx in the RFC shape", async () => {
    for (const payload of ["a=1&a=2&grant_type=authorization_code", "%", "grant_type=x".repeat(5000), ""]) {
      const res = await app.inject({
        method: "POST",
        url: OAUTH_API.token,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload,
      });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(typeof res.json().error).toBe("string");
    }
    for (const payload of ["[1,2]", '{"grant_type":5}', "null", "{"]) {
      const res = await app.inject({
        method: "POST",
        url: OAUTH_API.token,
        headers: { "content-type": "application/json" },
        payload,
      });
      expect(res.statusCode, payload).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, payload).toBeLessThan(500);
    }
  });

  it("stores tokens and codes only as hashes (O8)", async () => {
    const code = await iftttCode();
    const tok = (
      await token({
        grant_type: "authorization_code",
        code,
        redirect_uri: IFTTT_URI,
        client_id: "ifttt",
        client_secret: iftttSecret,
      })
    ).json();
    const { rows } = await app.ctx.database.query<{ t: string }>(
      "select string_agg(t::text, '|') as t from (select * from oauth_tokens) t union all select string_agg(c::text, '|') from oauth_codes c union all select string_agg(k::text, '|') from oauth_clients k",
    );
    const dump = rows.map((r) => r.t).join("|");
    expect(dump).not.toContain(tok.access_token);
    expect(dump).not.toContain(code);
    expect(dump).not.toContain(iftttSecret);
  });
});

describe("redirect URI registration", () => {
  it("accepts https (http on loopback only), canonical, without fragment or userinfo", () => {
    expect(checkRedirectUri(IFTTT_URI)).toBeNull();
    expect(checkRedirectUri("http://localhost:3000/cb")).toBeNull();
    expect(checkRedirectUri("http://example.com/cb")).not.toBeNull();
    expect(checkRedirectUri("https://example.com/cb#x")).not.toBeNull();
    expect(checkRedirectUri("https://u:p@example.com/cb")).not.toBeNull();
    expect(checkRedirectUri("https://EXAMPLE.com/cb")).not.toBeNull();
    expect(checkRedirectUri("javascript:alert(1)")).not.toBeNull();
    expect(checkRedirectUri("/relative")).not.toBeNull();
  });
});
