import {
  API,
  MeasurementDetailSchema,
  MeasurementListQuerySchema,
  MeasurementListSchema,
  MeasurementUpdateSchema,
  MeasurementUploadSchema,
  OkSchema,
} from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import { requireUserId, shareGrant } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { measurementsDataSection } from "./measurements.data.ts";
import { bpSubscriber, recomputeStale } from "./measurements.recompute.ts";
import { findMeasurementOf } from "./measurements.repo.ts";
import {
  createMeasurement,
  deleteMeasurement,
  getMeasurement,
  getSharedMeasurement,
  idOrNone,
  listMeasurements,
  updateMeasurement,
} from "./measurements.service.ts";

// A malformed id can never name a measurement: answer 404 like any unknown id, not 400.
const ParamsSchema = z.object({ id: z.string().max(100) });

export const RECOMPUTE_JOB = "measurements.recompute";
/** How long one run of the recompute job works before it hands over to a fresh run of itself. */
const RECOMPUTE_SLICE_MS = 20_000;

/** HRV measurements: upload, list, detail, edit, delete, and the share viewer of one measurement. */
export function registerMeasurementRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(measurementsDataSection);
  ctx.services.shareKinds.set("measurement", {
    isOwnedBy: async (db: Db, userId, targetId) =>
      (await findMeasurementOf(db, userId, idOrNone(targetId))) !== null,
  });
  ctx.services.events.subscribe(bpSubscriber);
  const recompute = ctx.services.jobs.defineJob<{ after_id?: string | null }>(
    RECOMPUTE_JOB,
    async (data) => {
      const progress = await recomputeStale(ctx.database.db, {
        afterId: data.after_id ?? null,
        deadline: Date.now() + RECOMPUTE_SLICE_MS,
      });
      if (progress.lastId !== null) await recompute.send({ after_id: progress.lastId });
      if (progress.done + progress.failed > 0) ctx.log.info({ ...progress }, "measurements recomputed");
    },
    { cron: "17 * * * *", retryLimit: 3 },
  );

  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    API.measurements,
    {
      config: { access: "user" },
      schema: { querystring: MeasurementListQuerySchema, response: { 200: MeasurementListSchema } },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return listMeasurements(ctx, requireUserId(request), request.query);
    },
  );

  r.post(
    API.measurements,
    {
      config: { access: "user" },
      bodyLimit: 512 * 1024,
      schema: {
        body: MeasurementUploadSchema,
        response: { 200: MeasurementDetailSchema, 201: MeasurementDetailSchema },
      },
    },
    async (request, reply) => {
      const { measurement, created } = await createMeasurement(ctx, requireUserId(request), request.body);
      reply.header("cache-control", "no-store");
      return reply.status(created ? 201 : 200).send(measurement);
    },
  );

  r.get(
    API.measurement,
    {
      config: { access: "user" },
      schema: { params: ParamsSchema, response: { 200: MeasurementDetailSchema } },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return getMeasurement(ctx, requireUserId(request), request.params.id);
    },
  );

  r.patch(
    API.measurement,
    {
      config: { access: "user" },
      schema: {
        params: ParamsSchema,
        body: MeasurementUpdateSchema,
        response: { 200: MeasurementDetailSchema },
      },
    },
    async (request) => updateMeasurement(ctx, requireUserId(request), request.params.id, request.body),
  );

  r.delete(
    API.measurement,
    { config: { access: "user" }, schema: { params: ParamsSchema, response: { 200: OkSchema } } },
    async (request) => {
      await deleteMeasurement(ctx, requireUserId(request), request.params.id);
      return { ok: true as const };
    },
  );

  // The share viewer: `Authorization: Token tsh_…` of a "measurement" link opens exactly its one
  // measurement, read-only; anyone else (signed in or not) gets the same 404 as an unknown link.
  r.get(
    API.sharedMeasurement,
    {
      config: { access: "public", shareKinds: ["measurement"] },
      schema: { response: { 200: MeasurementDetailSchema } },
    },
    async (request, reply) => {
      const grant = shareGrant(request, "measurement");
      if (!grant) throw new AppError("not_found", "Not found");
      reply.header("cache-control", "no-store");
      reply.header("x-robots-tag", "noindex, nofollow");
      reply.header("referrer-policy", "no-referrer");
      return getSharedMeasurement(ctx, grant.ownerId, grant.targetId);
    },
  );
}
