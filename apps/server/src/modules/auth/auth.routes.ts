import {
  API,
  DirectLoginCodeSchema,
  DirectLoginExchangeRequestSchema,
  DirectLoginExchangeResponseSchema,
  OkSchema,
  PasswordChangeRequestSchema,
  PasswordRecoveryRequestSchema,
  PasswordResetRequestSchema,
  RegisterRequestSchema,
  SessionStateSchema,
  SigninRequestSchema,
} from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { AppError } from "../../lib/app-error.ts";
import { writeAudit } from "../../lib/audit.ts";
import {
  CSRF_COOKIE,
  requireUserId,
  resetSessionCookies,
  SESSION_COOKIE,
  setSessionCookies,
} from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { isCsrfTokenValid } from "../../lib/csrf.ts";
import { pickLocale } from "../../lib/i18n.ts";
import { deleteSession, deleteUserSessions } from "../../lib/sessions.ts";
import { publicOrigin, startUserSession } from "./auth.cookies.ts";
import { accountDataSection } from "./auth.data.ts";
import { createDirectLoginCode, exchangeDirectLoginCode } from "./auth.direct-login.ts";
import { requestPasswordReset, resetPassword } from "./auth.recovery.ts";
import { changePassword, registerUser, signIn } from "./auth.service.ts";
import { registerApiTokenRoutes } from "./auth.tokens.routes.ts";

export function registerAuthRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(accountDataSection);
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = ctx.database;
  const ok = { ok: true } as const;

  r.get(API.csrf, { schema: { response: { 200: OkSchema } } }, async (request, reply) => {
    const current = request.cookies[SESSION_COOKIE];
    if (current) setSessionCookies(reply, ctx.config, current, request.auth.kind === "user");
    else resetSessionCookies(reply, ctx.config);
    return ok;
  });

  r.get(API.session, { schema: { response: { 200: SessionStateSchema } } }, async (request) => {
    const authenticated = request.auth.kind === "user";
    return { authenticated, user_type: authenticated ? ("full" as const) : ("anonymous" as const) };
  });

  r.post(
    API.register,
    { schema: { body: RegisterRequestSchema, response: { 200: OkSchema } } },
    async (request, reply) => {
      const language = pickLocale(request.headers["accept-language"]);
      const userId = await registerUser(ctx, request.body, { language });
      await startUserSession(ctx, request, reply, userId);
      await writeAudit(db, { action: "auth.register", userId, request });
      return ok;
    },
  );

  r.post(
    API.signin,
    { schema: { body: SigninRequestSchema, response: { 200: OkSchema } } },
    async (request, reply) => {
      const result = await signIn(ctx, request.body, { ip: request.ip });
      if (!("userId" in result)) {
        await writeAudit(db, { action: "auth.signin_failed", userId: result.failedUserId, request });
        throw new AppError("invalid_credentials", "Incorrect login or password");
      }
      await startUserSession(ctx, request, reply, result.userId);
      await writeAudit(db, { action: "auth.signin", userId: result.userId, request });
      return ok;
    },
  );

  // The spec makes logout a GET; it still has to prove it came from the app (RELIABILITY S3), so an
  // <img> or a link on another site cannot sign people out.
  r.get(API.logout, { schema: { response: { 200: OkSchema } } }, async (request, reply) => {
    const sessionId = request.cookies[SESSION_COOKIE];
    const header = request.headers["x-csrftoken"];
    const cookie = request.cookies[CSRF_COOKIE];
    const tokenOk =
      typeof header === "string" &&
      header === cookie &&
      sessionId !== undefined &&
      isCsrfTokenValid(ctx.config.secretKey, sessionId, header);
    if (!tokenOk && request.headers["sec-fetch-site"] !== "same-origin")
      throw new AppError("csrf_failed", "CSRF check failed: logout needs the CSRF token");
    if (sessionId) await deleteSession(db, sessionId);
    if (request.auth.kind === "user")
      await writeAudit(db, { action: "auth.signout", userId: request.auth.userId, request });
    resetSessionCookies(reply, ctx.config);
    reply.header("clear-site-data", '"cache", "storage"');
    return ok;
  });

  r.post(
    API.passwordRecover,
    { schema: { body: PasswordRecoveryRequestSchema, response: { 200: OkSchema } } },
    async (request) => {
      const { userId } = await requestPasswordReset(ctx, {
        email: request.body.email,
        ip: request.ip,
        locale: pickLocale(request.headers["accept-language"]),
        origin: publicOrigin(ctx, request),
      });
      await writeAudit(db, { action: "auth.password_reset_requested", userId, request });
      return ok;
    },
  );

  r.post(
    API.passwordReset,
    { schema: { body: PasswordResetRequestSchema, response: { 200: OkSchema } } },
    async (request) => {
      const { userId } = await resetPassword(ctx, request.body);
      await writeAudit(db, { action: "auth.password_reset", userId, request });
      return ok;
    },
  );

  // Django's behaviour: a password change ends every other session of the account, keeps this one.
  r.post(
    API.passwordChange,
    {
      config: { access: "user" },
      schema: { body: PasswordChangeRequestSchema, response: { 200: OkSchema } },
    },
    async (request) => {
      const userId = requireUserId(request);
      await changePassword(ctx, userId, {
        currentPassword: request.body.current_password,
        newPassword: request.body.new_password,
      });
      await deleteUserSessions(
        db,
        userId,
        request.auth.kind === "user" && request.auth.via === "session" ? request.sessionId : undefined,
      );
      await writeAudit(db, { action: "auth.password_changed", userId, request });
      return ok;
    },
  );

  r.post(
    API.directLoginCode,
    { config: { access: "user" }, schema: { response: { 200: DirectLoginCodeSchema } } },
    async (request, reply) => {
      if (request.auth.kind !== "user" || request.auth.via !== "token")
        throw new AppError("forbidden", "Direct-login codes are minted with an API token only");
      reply.header("cache-control", "no-store");
      return createDirectLoginCode(ctx, request.auth.userId);
    },
  );

  r.post(
    API.directLogin,
    {
      schema: {
        body: DirectLoginExchangeRequestSchema,
        response: { 200: DirectLoginExchangeResponseSchema },
      },
    },
    async (request, reply) => {
      reply.header("referrer-policy", "no-referrer").header("cache-control", "no-store");
      const outcome = await exchangeDirectLoginCode(ctx, {
        token: request.body.token,
        sessionId: request.body.session_id,
        confirmSwitch: request.body.confirm_switch === true,
        currentUserId: request.auth.kind === "user" ? request.auth.userId : null,
      });
      if (outcome.kind === "needs_confirmation")
        return { ok: true as const, needs_confirmation: true, current_email: outcome.currentEmail };
      await startUserSession(ctx, request, reply, outcome.userId);
      await writeAudit(db, { action: "auth.direct_login", userId: outcome.userId, request });
      return { ok: true as const, needs_confirmation: false };
    },
  );

  registerApiTokenRoutes(app, ctx);
}
