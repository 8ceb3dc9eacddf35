import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Db, RawQuery } from "../db/client.ts";
import { AppError } from "./app-error.ts";
import { writeAudit } from "./audit.ts";
import type { Config } from "./config.ts";
import { randomToken } from "./crypto.ts";
import { checkRequestOrigin, isCsrfTokenValid, mintCsrfToken } from "./csrf.ts";
import { hitRateLimit } from "./rate-limit.ts";
import { findApiTokenUser, findSessionUser, findShareLink } from "./sessions.ts";

export const SESSION_COOKIE = "tonussessionid";
export const CSRF_COOKIE = "csrftoken";
export const WEB_USER_COOKIE = "web_user";
export const API_TOKEN_PREFIX = "tok_";
export const SHARE_TOKEN_PREFIX = "tsh_";

/**
 * Who is calling. A share viewer holds one live link: the owner, the kind and the one target it may read,
 * and only on a route that declares that kind in `shareKinds`.
 */
export type Auth =
  | { kind: "anonymous" }
  | { kind: "user"; userId: string; role: string; via: "session" | "token" }
  | { kind: "share"; linkId: string; ownerId: string; shareKind: string; targetId: string };

/** Share-token look-ups per IP and minute (RELIABILITY A8: no enumeration). */
export const SHARE_LOOKUPS_PER_MINUTE = 60;

/** Per-route access declaration: one place to read who may call a route. */
export type RouteAccess = "public" | "user" | "operator";

declare module "fastify" {
  interface FastifyRequest {
    auth: Auth;
    /** The browser's session-cookie value (anonymous visitors have one too, for CSRF binding). */
    sessionId: string | undefined;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
    /**
     * The route never authenticates by cookie (signed webhooks, OAuth token endpoint, IFTTT, Token
     * ingest, analytics, signed unsubscribe links): cookies are ignored and no CSRF check applies.
     * Every such route is listed in CSRF_EXEMPT_ROUTES and a test keeps the two equal.
     */
    csrfExempt?: boolean;
    /** Share-link kinds whose `Authorization: Token tsh_…` this route accepts. */
    shareKinds?: readonly string[];
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);

export function isHttps(request: FastifyRequest, config: Config): boolean {
  return request.protocol === "https" || config.PUBLIC_URL?.startsWith("https:") === true;
}

/** The origins allowed to send unsafe requests and to be redirected to. */
export function allowedOrigins(config: Config, request?: FastifyRequest): Set<string> {
  const set = new Set<string>();
  if (config.PUBLIC_URL) set.add(new URL(config.PUBLIC_URL).origin);
  for (const o of config.TRUSTED_ORIGINS.split(",")) {
    const v = o.trim();
    if (!v) continue;
    try {
      set.add(new URL(v).origin);
    } catch {
      // Ignored: the config schema documents the format; a typo must not open anything up.
    }
  }
  if (request && !config.PUBLIC_URL) set.add(`${request.protocol}://${request.host}`);
  return set;
}

function cookieOptions(config: Config, request: FastifyRequest, httpOnly: boolean, maxAgeS: number) {
  return {
    path: "/",
    httpOnly,
    sameSite: "lax" as const,
    secure: isHttps(request, config),
    maxAge: maxAgeS,
    ...(config.COOKIE_DOMAIN ? { domain: config.COOKIE_DOMAIN } : {}),
  };
}

/** Writes the session, CSRF and `web_user` cookies for a (new) session id. */
export function setSessionCookies(
  reply: FastifyReply,
  config: Config,
  sessionId: string,
  signedIn: boolean,
): void {
  const req = reply.request;
  const maxAge = config.SESSION_MAX_DAYS * 86_400;
  reply.setCookie(SESSION_COOKIE, sessionId, cookieOptions(config, req, true, maxAge));
  reply.setCookie(CSRF_COOKIE, mintCsrfToken(config.secretKey, sessionId), {
    ...cookieOptions(config, req, false, 365 * 86_400),
  });
  if (signedIn) reply.setCookie(WEB_USER_COOKIE, "1", cookieOptions(config, req, false, maxAge));
  else reply.clearCookie(WEB_USER_COOKIE, cookieOptions(config, req, false, 0));
  req.sessionId = sessionId;
}

/** Replaces the browser's session with a fresh anonymous one (logout, failed session). */
export function resetSessionCookies(reply: FastifyReply, config: Config): void {
  setSessionCookies(reply, config, randomToken(32), false);
}

function readAuthorization(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const m = /^Token\s+(\S+)$/i.exec(header);
  return m?.[1];
}

function verifyCsrf(request: FastifyRequest, config: Config): void {
  const origin = checkRequestOrigin({
    origin: request.headers.origin,
    referer: request.headers.referer,
    secFetchSite: request.headers["sec-fetch-site"] as string | undefined,
    isHttps: isHttps(request, config),
    allowedOrigins: allowedOrigins(config, request),
  });
  if (!origin.ok) throw new AppError("csrf_failed", `CSRF check failed: ${origin.reason}`);
  const cookie = request.cookies[CSRF_COOKIE];
  const header = request.headers["x-csrftoken"];
  const sessionId = request.cookies[SESSION_COOKIE];
  if (!cookie || !sessionId) throw new AppError("csrf_failed", "CSRF check failed: no CSRF cookie");
  if (typeof header !== "string" || header !== cookie)
    throw new AppError("csrf_failed", "CSRF check failed: token missing or incorrect");
  if (!isCsrfTokenValid(config.secretKey, sessionId, cookie))
    throw new AppError("csrf_failed", "CSRF check failed: token not valid for this session");
}

/**
 * Resolves `request.auth` and enforces CSRF and the route's access rule. Order matters: a forged
 * request is refused before anything reads its body or touches the database.
 */
export function registerAuth(app: FastifyInstance, ctx: { config: Config; db: Db; query: RawQuery }): void {
  const { config, db } = ctx;
  const policy = { idleDays: config.SESSION_IDLE_DAYS, maxDays: config.SESSION_MAX_DAYS };
  app.decorateRequest("auth", null as never);
  app.decorateRequest("sessionId", undefined);

  app.addHook("onRequest", async (request, reply) => {
    request.auth = { kind: "anonymous" };
    const rc = request.routeOptions.config;
    // Share-viewer answers must not leak the capability onwards or be kept (RELIABILITY A8, H3).
    if (rc.shareKinds?.length) {
      reply.header("referrer-policy", "no-referrer");
      reply.header("x-robots-tag", "noindex, nofollow");
      reply.header("cache-control", "no-store");
    }
    const key = readAuthorization(request);
    const exempt = rc.csrfExempt === true;
    if (!exempt) request.sessionId = request.cookies[SESSION_COOKIE];

    if (key?.startsWith(API_TOKEN_PREFIX)) {
      const user = await findApiTokenUser(db, key);
      if (!user) throw new AppError("not_authenticated", "Invalid token");
      request.auth = { kind: "user", userId: user.userId, role: user.role, via: "token" };
    } else if (key?.startsWith(SHARE_TOKEN_PREFIX)) {
      // A share link is a read-only capability for one object: refused everywhere else, cookies ignored.
      request.sessionId = undefined;
      const kinds = rc.shareKinds ?? [];
      if (kinds.length === 0 || !SAFE_METHODS.has(request.method))
        throw new AppError("not_authenticated", "A share link opens only the page it shares");
      const limit = await hitRateLimit(ctx.query, { key: `share:ip:${request.ip}`, windowMs: 60_000 });
      if (limit.count > SHARE_LOOKUPS_PER_MINUTE)
        throw new AppError("rate_limited", "Too many requests, try again later", {
          retryAfterS: limit.retryAfterS,
        });
      const link = await findShareLink(db, key);
      // Unknown and revoked links get the same answer (RELIABILITY §0.7).
      if (!link) throw new AppError("not_found", "Not found");
      if (!kinds.includes(link.kind))
        throw new AppError("not_authenticated", "A share link opens only the page it shares");
      request.auth = {
        kind: "share",
        linkId: link.linkId,
        ownerId: link.ownerId,
        shareKind: link.kind,
        targetId: link.targetId,
      };
      await writeAudit(db, {
        action: "share.opened",
        userId: link.ownerId,
        objectId: link.linkId,
        request,
        meta: { kind: link.kind },
      });
      return;
    } else if (!exempt) {
      // Cookie-authenticated (or anonymous browser) request: unsafe methods must prove their origin.
      if (!SAFE_METHODS.has(request.method)) verifyCsrf(request, config);
      if (request.sessionId) {
        const user = await findSessionUser(db, request.sessionId, policy);
        if (user) request.auth = { kind: "user", userId: user.userId, role: user.role, via: "session" };
      }
    }

    const access = rc.access ?? "public";
    if (access === "public") return;
    if (request.auth.kind !== "user") throw new AppError("not_authenticated", "Authentication required");
    if (access === "operator" && request.auth.role !== "operator")
      throw new AppError("forbidden", "Operators only");
  });

  // Every browser gets a session id and a CSRF token bound to it before its first unsafe request.
  app.addHook("onSend", async (request, reply, payload) => {
    if (request.routeOptions.config.csrfExempt) return payload;
    const hasCookies = request.cookies[SESSION_COOKIE] && request.cookies[CSRF_COOKIE];
    const alreadySet = reply.hasHeader("set-cookie") && request.sessionId !== request.cookies[SESSION_COOKIE];
    if (!hasCookies && !alreadySet && !readAuthorization(request)) resetSessionCookies(reply, config);
    return payload;
  });
}

/**
 * The share grant of a share viewer on a route that accepts `kind`, or null for any other caller.
 * Share-viewer routes read exactly `targetId` of `ownerId` with it, and nothing else.
 */
export function shareGrant(request: FastifyRequest, kind: string) {
  const auth = request.auth;
  return auth.kind === "share" && auth.shareKind === kind ? auth : null;
}

/** The signed-in user's id; services call this instead of reading `request.auth` themselves. */
export function requireUserId(request: FastifyRequest): string {
  if (request.auth.kind !== "user") throw new AppError("not_authenticated", "Authentication required");
  return request.auth.userId;
}
