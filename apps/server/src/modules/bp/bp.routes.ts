import {
  API,
  BP_LOG_SHARE_TARGET,
  BpAveragesQuerySchema,
  BpAveragesSchema,
  BpReadingCreateSchema,
  BpReadingListQuerySchema,
  BpReadingListSchema,
  BpReadingSchema,
  BpReadingUpdateSchema,
  OkSchema,
  SharedBpLogSchema,
} from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { AppError } from "../../lib/app-error.ts";
import { requireUserId, shareGrant } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { IdParamsSchema, idOrNone, noStore } from "../../lib/route-params.ts";
import { getAverages } from "./bp.averages.ts";
import { bpDataSection } from "./bp.data.ts";
import { createReading, deleteReading, getReading, listReadings, updateReading } from "./bp.service.ts";

/** The signed-in user's blood-pressure readings (issue 5's log pages build on these). */
export function registerBpRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(bpDataSection);
  // A bp_log link shows the owner's whole log: its one target is the log itself.
  ctx.services.shareKinds.set("bp_log", {
    isOwnedBy: async (_db, _userId, targetId) => targetId === BP_LOG_SHARE_TARGET,
  });
  const r = app.withTypeProvider<ZodTypeProvider>();

  // The share viewer: a bp_log link's token reads that person's readings, read-only; anyone else
  // (signed in or not) gets the same 404 as an unknown or revoked link. The auth hook sets the viewer's
  // no-store, noindex and no-referrer headers on every share-kind route.
  r.get(
    API.sharedBpLog,
    {
      config: { access: "public", shareKinds: ["bp_log"] },
      schema: { querystring: BpReadingListQuerySchema, response: { 200: SharedBpLogSchema } },
    },
    async (request) => {
      const grant = shareGrant(request, "bp_log");
      if (!grant) throw new AppError("not_found", "Not found");
      return listReadings(ctx, grant.ownerId, request.query);
    },
  );

  r.get(
    API.sharedBpLogAverages,
    {
      config: { access: "public", shareKinds: ["bp_log"] },
      schema: { querystring: BpAveragesQuerySchema, response: { 200: BpAveragesSchema } },
    },
    async (request) => {
      const grant = shareGrant(request, "bp_log");
      if (!grant) throw new AppError("not_found", "Not found");
      return getAverages(ctx, grant.ownerId, request.query);
    },
  );

  r.get(
    API.bpAverages,
    {
      config: { access: "user" },
      schema: { querystring: BpAveragesQuerySchema, response: { 200: BpAveragesSchema } },
    },
    async (request, reply) => {
      noStore(reply);
      return getAverages(ctx, requireUserId(request), request.query);
    },
  );

  r.get(
    API.bpReadings,
    {
      config: { access: "user" },
      schema: { querystring: BpReadingListQuerySchema, response: { 200: BpReadingListSchema } },
    },
    async (request, reply) => {
      noStore(reply);
      return listReadings(ctx, requireUserId(request), request.query);
    },
  );

  r.post(
    API.bpReadings,
    {
      config: { access: "user" },
      schema: { body: BpReadingCreateSchema, response: { 200: BpReadingSchema, 201: BpReadingSchema } },
    },
    async (request, reply) => {
      const { reading, created } = await createReading(ctx, requireUserId(request), request.body);
      return reply.status(created ? 201 : 200).send(reading);
    },
  );

  r.get(
    API.bpReading,
    { config: { access: "user" }, schema: { params: IdParamsSchema, response: { 200: BpReadingSchema } } },
    async (request, reply) => {
      noStore(reply);
      return getReading(ctx, requireUserId(request), idOrNone(request.params.id));
    },
  );

  r.patch(
    API.bpReading,
    {
      config: { access: "user" },
      schema: { params: IdParamsSchema, body: BpReadingUpdateSchema, response: { 200: BpReadingSchema } },
    },
    async (request) => updateReading(ctx, requireUserId(request), idOrNone(request.params.id), request.body),
  );

  r.delete(
    API.bpReading,
    { config: { access: "user" }, schema: { params: IdParamsSchema, response: { 200: OkSchema } } },
    async (request) => {
      await deleteReading(ctx, requireUserId(request), idOrNone(request.params.id));
      return { ok: true as const };
    },
  );
}
