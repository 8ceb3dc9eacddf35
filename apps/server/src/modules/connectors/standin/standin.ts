import { createHash, createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ConnectorProvider } from "@tonus/contract";
import { type DataRoute, dataRoutes, type Fixture, fixtureDays } from "./fixtures.ts";

/**
 * A local stand-in for one provider's OAuth2 server and data API, for tests (server, e2e). It is NOT the
 * provider: it answers with responses written by hand from the provider's published documentation (the
 * formats cited in ../providers/*.ts), so Tonus is tested against those formats without leaving the
 * machine. It checks what a real provider checks — client credentials, the exact redirect URI, single-use
 * codes, PKCE S256, single-use refresh tokens, bearer tokens — and can misbehave on request: answer 429
 * or use up a rate-limit window the way each provider documents it, expire access tokens, refuse
 * refreshes, hold a request (a test kills the server then).
 *
 * Rate limits as documented: Oura answers 429 with `Retry-After`; Fitbit sends `Fitbit-Rate-Limit-Limit`
 * / `-Remaining` / `-Reset` (seconds) on every answer and 429 with `Retry-After` beyond; WHOOP sends
 * `X-RateLimit-Limit` / `-Remaining` / `-Reset` (seconds) and 429 beyond; Polar AccessLink sends
 * `RateLimit-Usage` / `-Limit` / `-Reset` (short and long window) and 429 beyond; Withings answers HTTP
 * 200 with `status` 601; Google answers 429 with its JSON error (`RESOURCE_EXHAUSTED`) and no wait.
 */

export type StandinOptions = {
  provider: ConnectorProvider;
  clientId: string;
  clientSecret: string;
  /** The one redirect URI registered for the client. */
  redirectUri: string;
  /** Days of fixture data, ending yesterday (UTC). */
  days?: number;
  /** Records per page where the provider pages (small, so tests cross pages). */
  pageSize?: number;
  accessTtlS?: number;
  /** Listen on this port (e2e); a free one when absent. */
  port?: number;
};

export type StandinRequest = { method: string; path: string; grantType?: string };

export type Standin = {
  url: string;
  fixture: Fixture;
  requests: StandinRequest[];
  /** Tokens the provider was asked to revoke (access or refresh), and by which route. */
  revocations: string[];
  faults: {
    /**
     * The next data request is refused as the provider refuses a request over its limit, once, with this
     * wait (seconds) where the provider says one: 429 with `Retry-After` (Oura, Fitbit), with its reset
     * header (WHOOP, Polar) or with nothing (Google); Withings' status 601.
     */
    rateLimitNext: number | null;
    /**
     * The answer to the `requests`-th data request from now says the rate-limit window is used up (Fitbit,
     * WHOOP, Polar headers) and resets in `resetS`; until `reopenWindow()`, every data request is
     * refused with a 429 and counted in `refusedWhileExhausted` (a client that ignored the headers).
     */
    exhaustWindowAfter: { requests: number; resetS: number } | null;
    reopenWindow: () => void;
    refusedWhileExhausted: number;
    /** Every access token issued so far answers 401 from now on. */
    expireAccessTokens: () => void;
    /** Refresh tokens are refused (`invalid_grant`): the person revoked access at the provider. */
    refuseRefresh: boolean;
    /** Revocation requests fail with 500. */
    failRevocation: boolean;
    /** The next authorization is denied by the person (`error=access_denied`). */
    denyNext: boolean;
    /** Awaited before a data request is answered (a test may kill the server meanwhile). */
    beforeData: ((path: string) => Promise<void>) | null;
    /** The next data request fails with this HTTP status (a 5xx), once. */
    failNext: number | null;
    /** Data paths answered 403 (a scope the person did not grant). */
    forbid: Set<string>;
  };
  dataRequests: () => number;
  close: () => Promise<void>;
};

type Grant = { codeChallenge: string | null; redirectUri: string; scope: string };

const b64url = (buf: Buffer) => buf.toString("base64url");
const token = (prefix: string) => `${prefix}_${b64url(randomBytes(24))}`;

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startStandin(options: StandinOptions): Promise<Standin> {
  const fixture: Fixture = {
    provider: options.provider,
    days: fixtureDays(options.days ?? 3),
    pageSize: options.pageSize ?? 2,
  };
  const codes = new Map<string, Grant>();
  const accessTokens = new Map<string, { expired: boolean }>();
  const refreshTokens = new Set<string>();
  const requests: StandinRequest[] = [];
  const revocations: string[] = [];
  const nonces = new Set<string>();
  let dataCount = 0;
  let port = 0;
  let exhausted = false;
  const faults: Standin["faults"] = {
    rateLimitNext: null,
    expireAccessTokens: () => {
      for (const t of accessTokens.values()) t.expired = true;
    },
    refuseRefresh: false,
    failRevocation: false,
    denyNext: false,
    beforeData: null,
    failNext: null,
    forbid: new Set(),
    exhaustWindowAfter: null,
    reopenWindow: () => {
      exhausted = false;
    },
    refusedWhileExhausted: 0,
  };
  const base = () => `http://127.0.0.1:${port}`;
  const routes: DataRoute[] = dataRoutes(fixture, base);
  const p = options.provider;

  function issue(scope: string) {
    const access = token("at");
    const refresh = p === "polar" ? null : token("rt");
    accessTokens.set(access, { expired: false });
    if (refresh) refreshTokens.add(refresh);
    const ttl = p === "polar" ? 315_359_999 : (options.accessTtlS ?? 3600);
    const body: Record<string, unknown> = {
      access_token: access,
      token_type: "Bearer",
      expires_in: ttl,
      scope,
    };
    if (refresh) body.refresh_token = refresh;
    if (p === "polar") body.x_user_id = 4711;
    if (p === "fitbit") body.user_id = "GGNJL9";
    return body;
  }

  function clientAuthOk(req: http.IncomingMessage, form: URLSearchParams): boolean {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
    if (p === "polar" || p === "fitbit") {
      if (!basic?.[1]) return false;
      return Buffer.from(basic[1], "base64").toString() === `${options.clientId}:${options.clientSecret}`;
    }
    return form.get("client_id") === options.clientId && form.get("client_secret") === options.clientSecret;
  }

  /** The token endpoint's answer in the provider's shape (Withings wraps everything in `{status, body}`). */
  function tokenAnswer(res: http.ServerResponse, status: number, body: Record<string, unknown>) {
    if (p === "withings") {
      if (status !== 200) return json(res, 200, { status: 503, error: String(body.error ?? "invalid") });
      return json(res, 200, { status: 0, body: { userid: 363, ...body } });
    }
    return json(res, status, body);
  }

  function handleToken(req: http.IncomingMessage, res: http.ServerResponse, form: URLSearchParams) {
    const grantType = form.get("grant_type") ?? "";
    requests[requests.length - 1] = {
      method: "POST",
      path: new URL(req.url ?? "/", base()).pathname,
      grantType,
    };
    if (p === "withings" && form.get("action") !== "requesttoken")
      return tokenAnswer(res, 400, { error: "invalid_request" });
    if (!clientAuthOk(req, form)) return tokenAnswer(res, 401, { error: "invalid_client" });
    if (grantType === "authorization_code") {
      const grant = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      if (!grant || grant.redirectUri !== form.get("redirect_uri"))
        return tokenAnswer(res, 400, { error: "invalid_grant" });
      if (grant.codeChallenge) {
        const verifier = form.get("code_verifier") ?? "";
        if (b64url(createHash("sha256").update(verifier).digest()) !== grant.codeChallenge)
          return tokenAnswer(res, 400, {
            error: "invalid_grant",
            error_description: "PKCE verification failed",
          });
      }
      return tokenAnswer(res, 200, issue(grant.scope));
    }
    if (grantType === "refresh_token") {
      const refresh = form.get("refresh_token") ?? "";
      if (faults.refuseRefresh || !refreshTokens.has(refresh))
        return tokenAnswer(res, 400, { error: "invalid_grant" });
      if (p === "whoop" && form.get("scope") !== "offline")
        return tokenAnswer(res, 400, { error: "invalid_scope" });
      // Single-use refresh tokens, as Oura and Fitbit document; Google keeps its refresh token.
      const body = issue("refreshed");
      if (p === "google_health") {
        delete body.refresh_token;
      } else {
        refreshTokens.delete(refresh);
      }
      return tokenAnswer(res, 200, body);
    }
    return tokenAnswer(res, 400, { error: "unsupported_grant_type" });
  }

  function handleAuthorize(res: http.ServerResponse, url: URL) {
    const q = url.searchParams;
    const redirect = q.get("redirect_uri");
    if (
      q.get("client_id") !== options.clientId ||
      redirect !== options.redirectUri ||
      q.get("response_type") !== "code"
    )
      return text(res, 400, "invalid authorization request");
    if (p === "whoop" && (q.get("state") ?? "").length < 8) return text(res, 400, "state too short");
    const back = new URL(redirect);
    back.searchParams.set("state", q.get("state") ?? "");
    if (faults.denyNext) {
      faults.denyNext = false;
      back.searchParams.set("error", "access_denied");
    } else {
      const code = token("code");
      const challenge = q.get("code_challenge");
      if (challenge && q.get("code_challenge_method") !== "S256") return text(res, 400, "S256 only");
      codes.set(code, { codeChallenge: challenge, redirectUri: redirect, scope: q.get("scope") ?? "" });
      back.searchParams.set("code", code);
    }
    // The person approves at once: the stand-in has no login page of its own.
    res.writeHead(302, { location: back.href });
    res.end();
  }

  function bearer(req: http.IncomingMessage): string | null {
    return /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? null;
  }

  async function handleRevoke(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    body: string,
  ): Promise<boolean> {
    const path = url.pathname;
    const form = new URLSearchParams(body);
    const revokeAll = (t: string | null) => {
      if (!t) return;
      revocations.push(t);
      accessTokens.delete(t);
      refreshTokens.delete(t);
    };
    const fail = () => {
      if (faults.failRevocation) {
        json(res, 500, { error: "unavailable" });
        return true;
      }
      return false;
    };
    if (p === "oura" && path === "/oauth/revoke") {
      if (fail()) return true;
      revokeAll(url.searchParams.get("access_token"));
      json(res, 200, {});
      return true;
    }
    if ((p === "fitbit" && path === "/oauth2/revoke") || (p === "google_health" && path === "/revoke")) {
      if (fail()) return true;
      if (p === "fitbit" && !clientAuthOk(req, form)) {
        json(res, 401, { error: "invalid_client" });
        return true;
      }
      revokeAll(form.get("token"));
      for (const t of accessTokens.keys()) revokeAll(t);
      json(res, 200, {});
      return true;
    }
    if (p === "whoop" && path === "/developer/v2/user/access" && req.method === "DELETE") {
      if (fail()) return true;
      revokeAll(bearer(req));
      res.writeHead(204).end();
      return true;
    }
    if (p === "polar" && /^\/v3\/users\/\d+$/.test(path) && req.method === "DELETE") {
      if (fail()) return true;
      if (!accessTokens.has(bearer(req) ?? "")) {
        json(res, 401, {});
        return true;
      }
      revokeAll(bearer(req));
      res.writeHead(204).end();
      return true;
    }
    if (p === "withings" && path === "/v2/signature") {
      const ts = form.get("timestamp") ?? "";
      const expected = createHmac("sha256", options.clientSecret)
        .update(`getnonce,${options.clientId},${ts}`)
        .digest("hex");
      if (form.get("action") !== "getnonce" || form.get("signature") !== expected) {
        json(res, 200, { status: 2554 });
        return true;
      }
      const nonce = token("nonce");
      nonces.add(nonce);
      json(res, 200, { status: 0, body: { nonce } });
      return true;
    }
    if (p === "withings" && path === "/v2/oauth2" && form.get("action") === "revoke") {
      if (fail()) return true;
      const nonce = form.get("nonce") ?? "";
      const expected = createHmac("sha256", options.clientSecret)
        .update(`revoke,${options.clientId},${nonce}`)
        .digest("hex");
      if (!nonces.delete(nonce) || form.get("signature") !== expected || form.get("userid") !== "363") {
        json(res, 200, { status: 2554 });
        return true;
      }
      for (const t of [...accessTokens.keys(), ...refreshTokens]) revokeAll(t);
      json(res, 200, { status: 0, body: {} });
      return true;
    }
    return false;
  }

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", base());
      const body = req.method === "GET" ? "" : await readBody(req);
      requests.push({ method: req.method ?? "GET", path: url.pathname });
      if (isAuthorizePath(p, url.pathname)) return handleAuthorize(res, url);
      if (await handleRevoke(req, res, url, body)) return;
      if (isTokenPath(p, url.pathname) && req.method === "POST")
        return handleToken(req, res, new URLSearchParams(body));
      const route = routes.find((r) => r.method === req.method && r.match(url.pathname, body));
      if (!route) return json(res, 404, { error: "not found" });
      const auth = bearer(req);
      const tokenState = auth ? accessTokens.get(auth) : undefined;
      if (!tokenState || tokenState.expired) {
        // Withings reports an invalid token inside an HTTP 200, as all its errors.
        if (p === "withings") return json(res, 200, { status: 401, error: "invalid_token" });
        return json(res, 401, { error: "invalid_token" });
      }
      dataCount++;
      if (faults.beforeData) await faults.beforeData(url.pathname);
      if (faults.forbid.has(url.pathname)) return json(res, 403, { error: "insufficient_scope" });
      if (faults.failNext !== null) {
        const status = faults.failNext;
        faults.failNext = null;
        return json(res, status, { error: "server error" });
      }
      if (exhausted) {
        faults.refusedWhileExhausted++;
        return tooManyRequests(p, res, 60);
      }
      if (faults.rateLimitNext !== null) {
        const waitS = faults.rateLimitNext;
        faults.rateLimitNext = null;
        return tooManyRequests(p, res, waitS);
      }
      const answer = route.answer(url, new URLSearchParams(body), body);
      let headers = rateLimitHeaders(p, { remaining: 90, resetS: 30 });
      const exhaust = faults.exhaustWindowAfter;
      if (exhaust && --exhaust.requests <= 0) {
        faults.exhaustWindowAfter = null;
        exhausted = true;
        headers = rateLimitHeaders(p, { remaining: 0, resetS: exhaust.resetS });
      }
      if (answer.status === 204) return res.writeHead(204, headers).end();
      json(res, answer.status, answer.body, headers);
    } catch (error) {
      json(res, 500, { error: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: base(),
    fixture,
    requests,
    revocations,
    faults,
    dataRequests: () => dataCount,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function isAuthorizePath(p: ConnectorProvider, path: string): boolean {
  const paths: Record<ConnectorProvider, string> = {
    oura: "/oauth/authorize",
    withings: "/oauth2_user/authorize2",
    polar: "/oauth2/authorization",
    fitbit: "/oauth2/authorize",
    google_health: "/o/oauth2/v2/auth",
    whoop: "/oauth/oauth2/auth",
  };
  return paths[p] === path;
}

function isTokenPath(p: ConnectorProvider, path: string): boolean {
  const paths: Record<ConnectorProvider, string> = {
    oura: "/oauth/token",
    withings: "/v2/oauth2",
    polar: "/v2/oauth2/token",
    fitbit: "/oauth2/token",
    google_health: "/token",
    whoop: "/oauth/oauth2/token",
  };
  return paths[p] === path;
}

/** The rate-limit headers a provider sends on every answer (none for Oura, Google and Withings). */
function rateLimitHeaders(
  p: ConnectorProvider,
  w: { remaining: number; resetS: number },
): Record<string, string> {
  if (p === "fitbit")
    return {
      "fitbit-rate-limit-limit": "150",
      "fitbit-rate-limit-remaining": String(w.remaining),
      "fitbit-rate-limit-reset": String(w.resetS),
    };
  if (p === "whoop")
    return {
      "x-ratelimit-limit": "100, 100;window=60, 10000;window=86400",
      "x-ratelimit-remaining": String(w.remaining),
      "x-ratelimit-reset": String(w.resetS),
    };
  // AccessLink: requests used and allowed in the short (15 min) and long (24 h) windows, and their resets.
  if (p === "polar")
    return {
      "ratelimit-usage": `${520 - w.remaining}, 700`,
      "ratelimit-limit": "520, 5100",
      "ratelimit-reset": `${w.resetS}, 86400`,
    };
  return {};
}

/** A request over the limit, refused as the provider documents it. */
function tooManyRequests(p: ConnectorProvider, res: http.ServerResponse, waitS: number) {
  if (p === "withings") return json(res, 200, { status: 601, error: "Too Many Requests" });
  if (p === "google_health")
    return json(res, 429, {
      error: {
        code: 429,
        message: "Quota exceeded for quota metric 'Requests per user'",
        status: "RESOURCE_EXHAUSTED",
      },
    });
  const limits = rateLimitHeaders(p, { remaining: 0, resetS: waitS });
  if (p === "fitbit")
    return json(
      res,
      429,
      { errors: [{ errorType: "system", fieldName: "n/a", message: "Too Many Requests" }], success: false },
      { ...limits, "retry-after": String(waitS) },
    );
  if (p === "whoop" || p === "polar") return json(res, 429, { message: "Too Many Requests" }, limits);
  return json(res, 429, { message: "Too Many Requests" }, { "retry-after": String(waitS) });
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function text(res: http.ServerResponse, status: number, body: string) {
  res.writeHead(status, { "content-type": "text/plain" });
  res.end(body);
}
