import {
  ConnectedServiceListSchema,
  OAUTH_API,
  OAuthDecisionRequestSchema,
  OAuthDecisionSchema,
  OAuthRequestInfoSchema,
  OAuthTokenRequestSchema,
  OkSchema,
} from "@tonus/contract";
import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../lib/app-error.ts";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { pickLocale } from "../../lib/i18n.ts";
import { UUID_RE } from "../../lib/uuid.ts";
import { oauthDataSection } from "./oauth.data.ts";
import {
  decide,
  getRequestInfo,
  listConnectedServices,
  OAuthError,
  revokeConnectedService,
  startAuthorization,
  type TokenRequest,
} from "./oauth.service.ts";
import { tokenEndpointLimited } from "./oauth.token-limits.ts";

// A malformed id can never name anything: the same 404 as an unknown one.
const IdParamsSchema = z.object({ id: z.string().max(200) });
const NIL_UUID = "00000000-0000-0000-0000-000000000000";

/** An id holding text the database cannot store (NUL) names no pending authorization: 404 like any unknown. */
function pendingId(id: string): string {
  if (id.includes("\0")) throw new AppError("not_found", "Not found");
  return id;
}

const REFUSAL = {
  en: { title: "This authorization request cannot be accepted", back: "Back to Tonus" },
  ru: { title: "Этот запрос на доступ нельзя принять", back: "Вернуться в Tonus" },
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page shown when the client or redirect URI is wrong: no redirect anywhere (ASVS 10.4.1). */
function refuse(reply: FastifyReply, message: string) {
  reply.header("cache-control", "no-store");
  const accept = reply.request.headers.accept ?? "";
  if (!accept.includes("text/html")) throw new AppError("validation_failed", message);
  const locale = pickLocale(reply.request.headers["accept-language"]);
  const t = REFUSAL[locale === "ru" ? "ru" : "en"];
  return reply
    .status(400)
    .type("text/html; charset=utf-8")
    .send(
      `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${t.title}</title></head><body><main><h1>${t.title}</h1><p>${escapeHtml(message)}</p><p><a href="/">${t.back}</a></p></main></body></html>`,
    );
}

/**
 * Form fields of the token request, checked against the contract's `OAuthTokenRequestSchema` (lengths;
 * unknown parameters are ignored, as RFC 6749 §3.2 asks); a repeated parameter is refused.
 */
function tokenFields(body: unknown): Map<string, string> {
  const out = readTokenFields(body);
  const parsed = OAuthTokenRequestSchema.safeParse(Object.fromEntries(out));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OAuthError(
      "invalid_request",
      `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`,
    );
  }
  return out;
}

function readTokenFields(body: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (body instanceof URLSearchParams) {
    for (const [k, v] of body) {
      if (out.has(k)) throw new OAuthError("invalid_request", `${k} is repeated`);
      out.set(k, v);
    }
    return out;
  }
  if (body && typeof body === "object" && !Array.isArray(body)) {
    for (const [k, v] of Object.entries(body)) {
      if (typeof v === "string") out.set(k, v);
      else throw new OAuthError("invalid_request", `${k} must be a string`);
    }
    return out;
  }
  if (body === undefined || body === null) return out;
  throw new OAuthError("invalid_request", "The body must be a form");
}

/**
 * The authorization server: the browser's entry, the consent page's API, the token endpoint and the
 * person's connected services.
 */
export async function registerOAuthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  ctx.services.registry.register(oauthDataSection);
  const { db } = ctx.database;
  const r = app.withTypeProvider<ZodTypeProvider>();

  // A GET the browser follows from the client (or from any page with scope=ifttt, spec §2).
  r.get(OAUTH_API.authorize, async (request, reply) => {
    const outcome = await startAuthorization(db, request.query as Record<string, unknown>);
    reply.header("cache-control", "no-store");
    reply.header("referrer-policy", "no-referrer");
    if (outcome.kind === "refuse") return refuse(reply, outcome.message);
    return reply.redirect(outcome.location, 302);
  });

  r.get(
    OAUTH_API.request,
    {
      config: { access: "user" },
      schema: { params: IdParamsSchema, response: { 200: OAuthRequestInfoSchema } },
    },
    async (request, reply) => {
      requireUserId(request);
      reply.header("cache-control", "no-store");
      return getRequestInfo(db, pendingId(request.params.id));
    },
  );

  r.post(
    OAUTH_API.decision,
    {
      config: { access: "user" },
      schema: {
        params: IdParamsSchema,
        body: OAuthDecisionRequestSchema,
        response: { 200: OAuthDecisionSchema },
      },
    },
    async (request, reply) => {
      const userId = requireUserId(request);
      reply.header("cache-control", "no-store");
      return {
        redirect_to: await decide(db, userId, pendingId(request.params.id), request.body.approve, request),
      };
    },
  );

  r.get(
    OAUTH_API.connectedServices,
    { config: { access: "user" }, schema: { response: { 200: ConnectedServiceListSchema } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return { results: await listConnectedServices(db, requireUserId(request)) };
    },
  );

  r.delete(
    OAUTH_API.connectedService,
    { config: { access: "user" }, schema: { params: IdParamsSchema, response: { 200: OkSchema } } },
    async (request) => {
      const userId = requireUserId(request);
      const id = UUID_RE.test(request.params.id) ? request.params.id : NIL_UUID;
      await revokeConnectedService(db, userId, id, request);
      return { ok: true as const };
    },
  );

  // The token endpoint: called server to server by the client, never with cookies, so CSRF-exempt; the
  // client authenticates itself (secret, or PKCE for a public client). Errors in RFC 6749 §5.2 form.
  await app.register(async (scope) => {
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: 16 * 1024 },
      (_request, body, done) => done(null, new URLSearchParams(String(body))),
    );
    scope.setErrorHandler((err: FastifyError, request, reply) => {
      reply.header("cache-control", "no-store");
      reply.header("pragma", "no-cache");
      if (err instanceof OAuthError) {
        if (err.status === 401 && /^Basic\s/i.test(request.headers.authorization ?? ""))
          reply.header("www-authenticate", 'Basic realm="tonus"');
        return reply
          .status(err.status)
          .send({ error: err.error, error_description: err.message, code: err.error });
      }
      if (err instanceof AppError) {
        const retryAfterS = err.details?.retryAfterS;
        if (typeof retryAfterS === "number") reply.header("retry-after", String(retryAfterS));
        // RFC 6749 has no code for this; the body keeps its shape (an error code and a description).
        if (err.code === "rate_limited")
          return reply
            .status(429)
            .send({ error: "rate_limited", error_description: err.message, code: "rate_limited" });
        return reply.status(err.status).send({ error: err.message, code: err.code, requestId: request.id });
      }
      const status = err.statusCode ?? 500;
      if (status >= 400 && status < 500)
        return reply.status(status === 413 ? 413 : 400).send({
          error: "invalid_request",
          error_description: "The request could not be read",
          code: "invalid_request",
        });
      request.log.error({ err }, "token endpoint failed");
      return reply
        .status(500)
        .send({ error: "Internal Server Error", code: "internal", requestId: request.id });
    });
    scope.post(OAUTH_API.token, { config: { csrfExempt: true } }, async (request, reply) => {
      const req: TokenRequest = {
        fields: tokenFields(request.body),
        authorization: request.headers.authorization,
      };
      const answer = await tokenEndpointLimited({ db, query: ctx.database.query }, req, request.ip);
      reply.header("cache-control", "no-store");
      reply.header("pragma", "no-cache");
      return answer;
    });
  });
}
