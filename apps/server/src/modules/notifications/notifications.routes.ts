import {
  NOTIFICATIONS_API,
  NotificationSettingsSchema,
  NotificationSettingsUpdateSchema,
  UnsubscribeQuerySchema,
  UnsubscribeResultSchema,
} from "@tonus/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { AppError } from "../../lib/app-error.ts";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { pickLocale } from "../../lib/i18n.ts";
import { notificationsDataSection } from "./notifications.data.ts";
import { defineNotificationJobs } from "./notifications.jobs.ts";
import {
  getNotificationSettings,
  readUnsubscribeToken,
  unsubscribe,
  updateNotificationSettings,
} from "./notifications.service.ts";
import { confirmPage, donePage, invalidPage } from "./unsubscribe-page.ts";

/** The token from the query; anything malformed is simply no token (the same "link does not work"). */
function tokenOf(request: FastifyRequest): string | undefined {
  const parsed = UnsubscribeQuerySchema.safeParse(request.query);
  return parsed.success ? parsed.data.token : undefined;
}

const wantsHtml = (request: FastifyRequest) => (request.headers.accept ?? "").includes("text/html");

/** The token is in the address: it must not travel on in a Referer, be cached or be indexed. */
function capabilityHeaders(reply: FastifyReply): void {
  reply.header("cache-control", "no-store");
  reply.header("referrer-policy", "no-referrer");
  reply.header("x-robots-tag", "noindex, nofollow");
}

/** A multipart one-click body is read to its end and ignored: the token alone decides. */
async function drainMultipart(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) return;
  for await (const part of request.parts()) if (part.type === "file") part.file.resume();
}

/**
 * Notification settings of the signed-in person, the unsubscribe link of every notification mail, and
 * the notification jobs.
 */
export async function registerNotificationRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  ctx.services.registry.register(notificationsDataSection);
  defineNotificationJobs(ctx);
  const { db } = ctx.database;
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    NOTIFICATIONS_API.settings,
    { config: { access: "user" }, schema: { response: { 200: NotificationSettingsSchema } } },
    async (request) => getNotificationSettings(db, requireUserId(request)),
  );

  r.put(
    NOTIFICATIONS_API.settings,
    {
      config: { access: "user" },
      schema: { body: NotificationSettingsUpdateSchema, response: { 200: NotificationSettingsSchema } },
    },
    async (request) => updateNotificationSettings(db, requireUserId(request), request.body),
  );

  // GET never changes anything (mail scanners and link previews follow links): it asks to confirm.
  r.get(NOTIFICATIONS_API.unsubscribe, async (request, reply) => {
    capabilityHeaders(reply);
    const token = tokenOf(request);
    const target = await readUnsubscribeToken(db, ctx.config, token);
    reply.type("text/html; charset=utf-8");
    if (!target || !token)
      return reply.status(404).send(invalidPage(pickLocale(request.headers["accept-language"])));
    return confirmPage(target, token);
  });

  // The one-click POST (RFC 8058) and the confirmation page's button. CSRF-exempt, so no session is read
  // or created: the signed token is the only credential, and it can do nothing but this.
  await app.register(async (scope) => {
    // RFC 8058 bodies are form-encoded (or multipart); the token alone decides, so any small body is read
    // and ignored rather than refused for its type.
    scope.addContentTypeParser("*", { parseAs: "string", bodyLimit: 4 * 1024 }, (_request, _body, done) =>
      done(null, undefined),
    );
    scope.post(NOTIFICATIONS_API.unsubscribe, { config: { csrfExempt: true } }, async (request, reply) => {
      capabilityHeaders(reply);
      await drainMultipart(request);
      const target = await unsubscribe(db, ctx.config, tokenOf(request), request);
      if (wantsHtml(request)) {
        reply.type("text/html; charset=utf-8");
        if (!target)
          return reply.status(404).send(invalidPage(pickLocale(request.headers["accept-language"])));
        return donePage(target);
      }
      if (!target) throw new AppError("not_found", "This unsubscribe link is not valid");
      return UnsubscribeResultSchema.parse({ ok: true, list: target.list });
    });
  });
}
