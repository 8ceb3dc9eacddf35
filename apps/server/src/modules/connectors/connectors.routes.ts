import {
  CONNECTORS_API,
  ConnectorListSchema,
  ConnectorSchema,
  ConnectRequestSchema,
  ConnectResponseSchema,
  DisconnectResponseSchema,
} from "@tonus/contract";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { writeAudit } from "../../lib/audit.ts";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { finishConnect, startConnect } from "./connectors.connect.ts";
import { connectorsDataSection } from "./connectors.data.ts";
import { createConnectorDeps } from "./connectors.deps.ts";
import { defineConnectorJobs } from "./connectors.jobs.ts";
import { disconnect, getConnector, listConnectors, requestSync } from "./connectors.service.ts";
import type { ConnectorDeps } from "./connectors.sync.ts";

// An unknown provider is a 404 like any unknown id, not a 400.
const ParamsSchema = z.object({ provider: z.string().max(40) });

/** The exact redirect URI registered with each provider: `{PUBLIC_URL}/dashboard_api/v1/connectors/<p>/callback/`. */
function redirectUri(ctx: AppContext, request: FastifyRequest, provider: string): string {
  const origin = ctx.config.PUBLIC_URL
    ? new URL(ctx.config.PUBLIC_URL).origin
    : `${request.protocol}://${request.host}`;
  return `${origin}${CONNECTORS_API.callback.replace(":provider", encodeURIComponent(provider))}`;
}

/** Cloud connectors: the person's connections to providers, connect, callback, sync now, disconnect. */
export function registerConnectorRoutes(app: FastifyInstance, ctx: AppContext): void {
  const jobs = defineConnectorJobs(ctx, () => deps);
  const deps: ConnectorDeps = createConnectorDeps(ctx, jobs.enqueue);
  ctx.services.registry.register(connectorsDataSection(deps));
  // A sync cut short by a stop or a crash resumes as soon as the server is back.
  app.addHook("onReady", async () => {
    await jobs.scheduleNow();
  });
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    CONNECTORS_API.list,
    { config: { access: "user" }, schema: { response: { 200: ConnectorListSchema } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return listConnectors(deps, requireUserId(request));
    },
  );

  r.get(
    CONNECTORS_API.one,
    { config: { access: "user" }, schema: { params: ParamsSchema, response: { 200: ConnectorSchema } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return getConnector(deps, requireUserId(request), request.params.provider);
    },
  );

  r.post(
    CONNECTORS_API.connect,
    {
      config: { access: "user" },
      schema: { params: ParamsSchema, body: ConnectRequestSchema, response: { 200: ConnectResponseSchema } },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return startConnect(deps, {
        userId: requireUserId(request),
        sessionId:
          request.auth.kind === "user" && request.auth.via === "session" ? request.sessionId : undefined,
        provider: request.params.provider,
        returnTo: request.body.return_to,
        redirectUri: redirectUri(ctx, request, request.params.provider),
      });
    },
  );

  // The browser's return from the provider. Public (the state, bound to the session that started the
  // connect, is the proof), and it only ever redirects to a path on this site.
  r.get(
    CONNECTORS_API.callback,
    { config: { access: "public" }, schema: { params: ParamsSchema } },
    async (request, reply) => {
      const result = await finishConnect(deps, {
        provider: request.params.provider,
        query: new URL(request.url, "http://tonus.invalid").searchParams,
        sessionId: request.sessionId,
        userId: request.auth.kind === "user" ? request.auth.userId : null,
        redirectUri: redirectUri(ctx, request, request.params.provider),
      });
      if (result.connected)
        await writeAudit(ctx.database.db, {
          action: "connector.connected",
          userId: result.connected.userId,
          objectId: result.connected.connectionId,
          request,
          meta: { provider: request.params.provider },
        });
      return reply
        .header("cache-control", "no-store")
        .header("referrer-policy", "no-referrer")
        .redirect(result.location, 302);
    },
  );

  r.post(
    CONNECTORS_API.sync,
    { config: { access: "user" }, schema: { params: ParamsSchema, response: { 202: ConnectorSchema } } },
    async (request, reply) => {
      const connector = await requestSync(deps, requireUserId(request), request.params.provider);
      return reply.status(202).header("cache-control", "no-store").send(connector);
    },
  );

  r.delete(
    CONNECTORS_API.one,
    {
      config: { access: "user" },
      schema: { params: ParamsSchema, response: { 200: DisconnectResponseSchema } },
    },
    async (request) => {
      const userId = requireUserId(request);
      const result = await disconnect(deps, userId, request.params.provider);
      await writeAudit(ctx.database.db, {
        action: "connector.disconnected",
        userId,
        request,
        meta: { provider: request.params.provider, revoked: result.revoked },
      });
      return result;
    },
  );
}
