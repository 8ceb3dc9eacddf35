import { API, SocialProvidersSchema } from "@tonus/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../lib/app-error.ts";
import { writeAudit } from "../../lib/audit.ts";
import { allowedOrigins, isHttps, SESSION_COOKIE, setSessionCookies } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { createSession, deleteSession } from "../../lib/sessions.ts";
import { socialDataSection } from "./social.data.ts";
import { findSocialProvider, listSocialProviders, type SocialProviderConfig } from "./social.providers.ts";
import { type DiscoveryCache, finishSocialSignIn, startSocialSignIn } from "./social.service.ts";
import {
  openPendingSignIn,
  SOCIAL_STATE_COOKIE,
  SOCIAL_STATE_TTL_MS,
  safeDestination,
  sealPendingSignIn,
} from "./social.state.ts";

/** Where a failed social sign-in lands: the sign-in page, which shows a generic error for this flag. */
export const SOCIAL_FAILURE_REDIRECT = "/auth/signin?social_error=1";
const COOKIE_PATH = "/dashboard_api/v1/auth/social/";

const ProviderParamsSchema = z.object({ provider: z.string().max(40) });
const StartQuerySchema = z.object({ destination: z.string().max(2000).optional() });

function callbackUrl(ctx: AppContext, request: FastifyRequest, provider: SocialProviderConfig): string {
  const origin = ctx.config.PUBLIC_URL
    ? new URL(ctx.config.PUBLIC_URL).origin
    : `${request.protocol}://${request.host}`;
  return `${origin}${API.socialCallback.replace(":provider", provider.id)}`;
}

function requireProvider(ctx: AppContext, id: string): SocialProviderConfig {
  const provider = findSocialProvider(ctx.config, id);
  if (!provider) throw new AppError("not_found", "Not found");
  return provider;
}

function clearStateCookie(reply: FastifyReply): void {
  reply.clearCookie(SOCIAL_STATE_COOKIE, { path: COOKIE_PATH });
}

export async function registerSocialRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  ctx.services.registry.register(socialDataSection);
  const r = app.withTypeProvider<ZodTypeProvider>();
  const discoveries: DiscoveryCache = new Map();

  r.get(API.socialProviders, { schema: { response: { 200: SocialProvidersSchema } } }, async () => ({
    results: listSocialProviders(ctx.config).map((p) => ({ id: p.id, name: p.name })),
  }));

  r.get(
    API.socialStart,
    { schema: { params: ProviderParamsSchema, querystring: StartQuerySchema } },
    async (request, reply) => {
      const provider = requireProvider(ctx, request.params.provider);
      const destination = safeDestination(request.query.destination, allowedOrigins(ctx.config, request));
      let started: Awaited<ReturnType<typeof startSocialSignIn>>;
      try {
        started = await startSocialSignIn(
          discoveries,
          provider,
          callbackUrl(ctx, request, provider),
          destination,
        );
      } catch (error) {
        // The provider is unreachable or misconfigured: the person lands back on sign-in, the log says why.
        request.log.warn({ err: error, provider: provider.id }, "social sign-in could not start");
        return reply.header("cache-control", "no-store").redirect(SOCIAL_FAILURE_REDIRECT, 302);
      }
      const { url, pending } = started;
      // State, nonce and the PKCE verifier live only in this signed, HttpOnly, short-lived cookie.
      reply.setCookie(SOCIAL_STATE_COOKIE, sealPendingSignIn(ctx.config.secretKey, pending), {
        path: COOKIE_PATH,
        httpOnly: true,
        // A form_post answer is a cross-site POST: only a SameSite=None (hence Secure) cookie comes with it.
        ...(provider.responseMode === "form_post"
          ? { sameSite: "none" as const, secure: true }
          : { sameSite: "lax" as const, secure: isHttps(request, ctx.config) }),
        maxAge: SOCIAL_STATE_TTL_MS / 1000,
      });
      return reply.header("cache-control", "no-store").redirect(url, 302);
    },
  );

  /** Finishes a sign-in with the provider's answer parameters (from the query or a form_post body). */
  async function finishCallback(
    request: FastifyRequest,
    reply: FastifyReply,
    provider: SocialProviderConfig,
    answer: URLSearchParams,
  ) {
    const pending = openPendingSignIn(
      ctx.config.secretKey,
      request.cookies[SOCIAL_STATE_COOKIE],
      provider.id,
    );
    clearStateCookie(reply);
    reply.header("cache-control", "no-store");
    if (!pending) return reply.redirect(SOCIAL_FAILURE_REDIRECT, 302);
    const current = new URL(callbackUrl(ctx, request, provider));
    for (const [key, value] of answer) current.searchParams.append(key, value);
    let result: Awaited<ReturnType<typeof finishSocialSignIn>>;
    try {
      result = await finishSocialSignIn(ctx, discoveries, provider, current, pending);
    } catch (error) {
      request.log.warn({ err: error, provider: provider.id }, "social sign-in failed");
      return reply.redirect(SOCIAL_FAILURE_REDIRECT, 302);
    }
    if (!result) return reply.redirect(SOCIAL_FAILURE_REDIRECT, 302);
    // The browser's previous session (anonymous or someone else's) ends here: a fixed id never survives.
    const previousSessionId = request.cookies[SESSION_COOKIE];
    if (previousSessionId) await deleteSession(ctx.database.db, previousSessionId);
    const policy = { idleDays: ctx.config.SESSION_IDLE_DAYS, maxDays: ctx.config.SESSION_MAX_DAYS };
    const sessionId = await createSession(ctx.database.db, result.userId, policy, {
      ip: request.ip,
      userAgent: request.headers["user-agent"],
    });
    setSessionCookies(reply, ctx.config, sessionId, true);
    await writeAudit(ctx.database.db, {
      action: "auth.social_signin",
      userId: result.userId,
      request,
      meta: { provider: provider.id, created: result.created },
    });
    return reply.redirect(safeDestination(pending.destination, allowedOrigins(ctx.config, request)), 302);
  }

  r.get(API.socialCallback, { schema: { params: ProviderParamsSchema } }, async (request, reply) => {
    const provider = requireProvider(ctx, request.params.provider);
    if (provider.responseMode !== "query") throw new AppError("not_found", "Not found");
    return finishCallback(
      request,
      reply,
      provider,
      new URL(request.url, "http://tonus.invalid").searchParams,
    );
  });

  // The form_post answer. It cannot carry our CSRF token (the provider's page sends it), so the route is
  // CSRF-exempt; the state, bound to the signed HttpOnly cookie, is what proves the flow started here.
  await app.register(async (scope) => {
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: 64 * 1024 },
      (_request, body, done) => done(null, new URLSearchParams(String(body))),
    );
    scope
      .withTypeProvider<ZodTypeProvider>()
      .post(
        API.socialCallback,
        { config: { csrfExempt: true }, schema: { params: ProviderParamsSchema } },
        async (request, reply) => {
          const provider = requireProvider(ctx, request.params.provider);
          if (provider.responseMode !== "form_post") throw new AppError("not_found", "Not found");
          const answer = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
          return finishCallback(request, reply, provider, answer);
        },
      );
  });
}
