import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_COOKIE, setSessionCookies } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { createSession, deleteSession } from "../../lib/sessions.ts";

/**
 * Signs `userId` in with a brand-new session id and CSRF token (ASVS 7.2.4). The browser's previous
 * session, anonymous or another person's, is deleted: a planted id never becomes a signed-in one.
 */
export async function startUserSession(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
): Promise<void> {
  const previous = request.cookies[SESSION_COOKIE];
  if (previous) await deleteSession(ctx.database.db, previous);
  const policy = { idleDays: ctx.config.SESSION_IDLE_DAYS, maxDays: ctx.config.SESSION_MAX_DAYS };
  const sessionId = await createSession(ctx.database.db, userId, policy, {
    ip: request.ip,
    userAgent: request.headers["user-agent"],
  });
  setSessionCookies(reply, ctx.config, sessionId, true);
}

/** Where links in e-mails point: the configured public URL, else the origin the request came to. */
export function publicOrigin(ctx: AppContext, request: FastifyRequest): string {
  return ctx.config.PUBLIC_URL
    ? new URL(ctx.config.PUBLIC_URL).origin
    : `${request.protocol}://${request.host}`;
}
