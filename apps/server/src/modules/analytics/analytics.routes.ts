import {
  AnalyticsSendRequestSchema,
  AnalyticsSendResultSchema,
  AnalyticsSummarySchema,
  OAUTH_API,
} from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { safeEqual } from "../../lib/crypto.ts";
import type { UserDataSection } from "../../lib/registry.ts";
import { deleteEventsOf, deleteExpiredEvents, ingestEvents, summarize } from "./analytics.service.ts";

/** Global Privacy Control or Do Not Track: the browser asked not to be tracked. */
const optedOut = (headers: Record<string, unknown>) => headers["sec-gpc"] === "1" || headers.dnt === "1";

/**
 * First-party analytics: `POST /api/v1/send` with the public analytics token in `X-Analytics-Token`.
 * No cookies are read (CSRF-exempt); the body says who, pseudonymised on arrival.
 */
export function registerAnalyticsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { db } = ctx.database;
  const section: UserDataSection = {
    name: "analytics",
    // Rows carry only a keyed pseudonym of the user id, so they are found (and deleted) by recomputing it.
    tables: {},
    deleteExtra: (rc) => deleteEventsOf(rc.tx, ctx.config.secretKey, rc.userId),
  };
  ctx.services.registry.register(section);
  ctx.services.jobs.defineJob(
    "analytics.retention",
    async () => {
      await deleteExpiredEvents(db, ctx.config.ANALYTICS_RETENTION_DAYS);
    },
    { cron: "17 3 * * *" },
  );

  app.withTypeProvider<ZodTypeProvider>().post(
    OAUTH_API.analyticsSend,
    {
      config: { csrfExempt: true },
      schema: { body: AnalyticsSendRequestSchema, response: { 200: AnalyticsSendResultSchema } },
      // The token is checked before the body is validated: a stranger learns nothing about the schema.
      preValidation: async (request) => {
        const token = ctx.config.ANALYTICS_TOKEN;
        if (!ctx.config.ANALYTICS_ENABLED || !token) throw new AppError("forbidden", "Analytics is off");
        const sent = request.headers["x-analytics-token"];
        if (typeof sent !== "string" || !safeEqual(sent, token))
          throw new AppError("not_authenticated", "Invalid analytics token");
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      const events = "events" in request.body ? request.body.events : [request.body];
      if (optedOut(request.headers)) return { stored: 0, duplicates: 0, dropped: events.length };
      return ingestEvents(db, ctx.config.secretKey, events);
    },
  );

  app.withTypeProvider<ZodTypeProvider>().get(
    OAUTH_API.analyticsSummary,
    {
      config: { access: "operator" },
      schema: {
        querystring: z.object({ days: z.coerce.number().int().min(1).max(366).default(30) }),
        response: { 200: AnalyticsSummarySchema },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return summarize(db, request.query.days);
    },
  );
}
