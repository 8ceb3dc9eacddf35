import { API } from "@tonus/contract";
import type { LightMyRequestResponse } from "fastify";
import { parse as parseSetCookie } from "set-cookie-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { findSessionUser } from "../../lib/sessions.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";

const ORIGIN = "https://tonus.test";
const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
const DAY_MS = 86_400_000;

type Pair = { session: string; csrf: string };
type Case = { name: string; headers: (own: Pair, other: Pair) => Record<string, string> };

const cookie = (p: Partial<Pair>) =>
  [p.session && `tonussessionid=${p.session}`, p.csrf && `csrftoken=${p.csrf}`].filter(Boolean).join("; ");

/** RELIABILITY S1: Django's rejection table, with the session-binding (cookie tossing) case added. */
const CASES: Case[] = [
  {
    name: "no csrftoken cookie",
    headers: (o) => ({ cookie: cookie({ session: o.session }), "x-csrftoken": o.csrf, origin: ORIGIN }),
  },
  { name: "cookie but no header", headers: (o) => ({ cookie: cookie(o), origin: ORIGIN }) },
  {
    name: "header differs from cookie",
    headers: (o, x) => ({ cookie: cookie(o), "x-csrftoken": x.csrf, origin: ORIGIN }),
  },
  {
    name: "16-char token",
    headers: (o) => ({
      cookie: cookie({ session: o.session, csrf: "a".repeat(16) }),
      "x-csrftoken": "a".repeat(16),
      origin: ORIGIN,
    }),
  },
  {
    name: "64 × *",
    headers: (o) => ({
      cookie: cookie({ session: o.session, csrf: "*".repeat(64) }),
      "x-csrftoken": "*".repeat(64),
      origin: ORIGIN,
    }),
  },
  {
    name: "pair minted for another session",
    headers: (o, x) => ({
      cookie: cookie({ session: o.session, csrf: x.csrf }),
      "x-csrftoken": x.csrf,
      origin: ORIGIN,
    }),
  },
  {
    name: "evil origin",
    headers: (o) => ({ cookie: cookie(o), "x-csrftoken": o.csrf, origin: "https://evil.example" }),
  },
  { name: "null origin", headers: (o) => ({ cookie: cookie(o), "x-csrftoken": o.csrf, origin: "null" }) },
  {
    name: "unparsable origin",
    headers: (o) => ({ cookie: cookie(o), "x-csrftoken": o.csrf, origin: "https://[" }),
  },
  {
    name: "http origin on https",
    headers: (o) => ({ cookie: cookie(o), "x-csrftoken": o.csrf, origin: "http://tonus.test" }),
  },
  {
    name: "Sec-Fetch-Site cross-site",
    headers: (o) => ({
      cookie: cookie(o),
      "x-csrftoken": o.csrf,
      origin: ORIGIN,
      "sec-fetch-site": "cross-site",
    }),
  },
  {
    name: "no origin, malformed referer",
    headers: (o) => ({ cookie: cookie(o), "x-csrftoken": o.csrf, referer: "https://" }),
  },
  {
    name: "no origin, insecure referer",
    headers: (o) => ({ cookie: cookie(o), "x-csrftoken": o.csrf, referer: "http://tonus.test/x" }),
  },
];

function concreteUrl(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, "00000000-0000-4000-8000-000000000000").replace(/\*/g, "x");
}

async function checksum(app: App): Promise<string> {
  const { rows: tables } = await app.ctx.database.query<{ name: string }>(
    "select table_name as name from information_schema.tables where table_schema = 'public' order by 1",
  );
  const parts: string[] = [];
  for (const { name } of tables) {
    const { rows } = await app.ctx.database.query<{ h: string | null }>(
      `select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from "${name}" t`,
    );
    parts.push(`${name}:${rows[0]?.h}`);
  }
  return parts.join("\n");
}

function setCookies(res: LightMyRequestResponse) {
  return parseSetCookie(res.headers["set-cookie"] as string[] | string, { map: true });
}

describe.each(BACKENDS)("CSRF matrix, cookies and timeouts on %s", (backend) => {
  let app: App;
  let own: Pair;
  let other: Pair;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend), { PUBLIC_URL: ORIGIN });
    await resetDatabase(app.ctx.database);
    own = await signUp("own@example.com");
    other = await signUp("other@example.com");
  });
  afterAll(() => app.close());

  async function signUp(email: string): Promise<Pair> {
    const primed = setCookies(await app.inject({ method: "GET", url: API.csrf }));
    const anon = { session: primed.tonussessionid?.value ?? "", csrf: primed.csrftoken?.value ?? "" };
    const res = await app.inject({
      method: "POST",
      url: API.register,
      headers: { cookie: cookie(anon), "x-csrftoken": anon.csrf, origin: ORIGIN },
      payload: { email, password: "correct horse battery staple" },
    });
    expect(res.statusCode).toBe(200);
    const c = setCookies(res);
    return { session: c.tonussessionid?.value ?? "", csrf: c.csrftoken?.value ?? "" };
  }

  it("refuses every forgery on every unsafe route with csrf_failed and changes no row (S1)", async () => {
    const unsafe = app.routeTable.filter((r) => !SAFE.has(r.method) && r.config.csrfExempt !== true);
    expect(unsafe.map((r) => r.url)).toEqual(
      expect.arrayContaining([API.register, API.signin, API.directLogin]),
    );
    const before = await checksum(app);
    let sent = 0;
    for (const route of unsafe) {
      for (const c of CASES) {
        for (const body of [
          { "content-type": "application/json", payload: "{}" },
          { "content-type": "application/x-www-form-urlencoded", payload: "csrfmiddlewaretoken=x" },
        ]) {
          const res = await app.inject({
            method: route.method as "POST",
            url: concreteUrl(route.url),
            headers: { ...c.headers(own, other), "content-type": body["content-type"] },
            payload: body.payload,
          });
          sent++;
          expect({
            route: `${route.method} ${route.url}`,
            case: c.name,
            status: res.statusCode,
            code: res.json().code,
          }).toEqual({
            route: `${route.method} ${route.url}`,
            case: c.name,
            status: 403,
            code: "csrf_failed",
          });
        }
      }
    }
    expect(sent).toBe(unsafe.length * CASES.length * 2);
    expect(await checksum(app)).toBe(before);
  });

  it("accepts the correct pair from the app origin", async () => {
    const res = await app.inject({
      method: "POST",
      url: API.apiTokens,
      headers: { cookie: cookie(own), "x-csrftoken": own.csrf, origin: ORIGIN },
      payload: { name: "phone" },
    });
    expect(res.statusCode).toBe(200);
  });

  it("ignores cookies on CSRF-exempt routes (S2)", async () => {
    for (const route of app.routeTable.filter((r) => r.config.csrfExempt === true)) {
      const res = await app.inject({
        method: route.method as "POST",
        url: concreteUrl(route.url),
        headers: { cookie: cookie(own), origin: "https://evil.example" },
        payload: {},
      });
      expect(res.statusCode === 403 && res.json().code === "csrf_failed").toBe(false);
      expect(res.statusCode === 200 && String(res.body).includes("own@example.com")).toBe(false);
    }
  });

  it("sets the documented cookie attributes (S6)", async () => {
    const c = setCookies(await app.inject({ method: "GET", url: API.csrf }));
    const session = c.tonussessionid;
    const csrf = c.csrftoken;
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: "Lax", path: "/" });
    expect(session?.domain).toBeUndefined();
    expect(csrf).toMatchObject({ secure: true, sameSite: "Lax", path: "/" });
    expect(csrf?.httpOnly).toBeFalsy();
    for (const v of Object.values(c)) expect(v.name.length + v.value.length).toBeLessThanOrEqual(4096);
    const signedIn = setCookies(
      await app.inject({
        method: "POST",
        url: API.signin,
        headers: { cookie: cookie(own), "x-csrftoken": own.csrf, origin: ORIGIN },
        payload: { email: "own@example.com", password: "correct horse battery staple" },
      }),
    );
    expect(signedIn.web_user?.value).toBe("1");
    own = { session: signedIn.tonussessionid?.value ?? "", csrf: signedIn.csrftoken?.value ?? "" };

    const shared = await buildTestApp(app.ctx.database, {
      PUBLIC_URL: "http://tonus.test",
      COOKIE_DOMAIN: "tonus.test",
    });
    try {
      const d = setCookies(await shared.inject({ method: "GET", url: API.csrf }));
      expect(d.tonussessionid).toMatchObject({ domain: "tonus.test" });
      expect(d.tonussessionid?.secure).toBeFalsy();
    } finally {
      await shared.close();
    }
  });

  it("ends sessions at the idle and absolute limits, ±1 minute (S7)", async () => {
    const policy = { idleDays: app.ctx.config.SESSION_IDLE_DAYS, maxDays: app.ctx.config.SESSION_MAX_DAYS };
    const db = app.ctx.database.db;
    const fresh = async () => (await signUp(`t${Math.random()}@example.com`)).session;
    const at = (ms: number) => new Date(Date.now() + ms);
    const idleMs = policy.idleDays * DAY_MS;
    expect(await findSessionUser(db, await fresh(), policy, at(idleMs - 60_000))).not.toBeNull();
    expect(await findSessionUser(db, await fresh(), policy, at(idleMs + 60_000))).toBeNull();
    const kept = await fresh();
    const maxMs = policy.maxDays * DAY_MS;
    for (let t = idleMs / 2; t < maxMs - 60_000; t += idleMs / 2)
      expect(await findSessionUser(db, kept, policy, at(t))).not.toBeNull();
    expect(await findSessionUser(db, kept, policy, at(maxMs - 60_000))).not.toBeNull();
    expect(await findSessionUser(db, kept, policy, at(maxMs + 60_000))).toBeNull();
  });
});
