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
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import { requireUserId, shareGrant } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import {
  readIdempotencyKey,
  requestFingerprint,
  runIdempotent,
  sendIdempotent,
} from "../../lib/idempotency.ts";
import { IdParamsSchema, idOrNone, noStore } from "../../lib/route-params.ts";
import { measurementsDataSection } from "./measurements.data.ts";
import { bpSubscriber, recomputeStale } from "./measurements.recompute.ts";
import { findMeasurementOf } from "./measurements.repo.ts";
import {
  createMeasurement,
  deleteMeasurement,
  getMeasurement,
  getSharedMeasurement,
  listMeasurements,
  updateMeasurement,
} from "./measurements.service.ts";

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
      noStore(reply);
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
      const userId = requireUserId(request);
      const key = readIdempotencyKey(request);
      const upload = async (db?: Db) => {
        const { measurement, created } = await createMeasurement(ctx, userId, request.body, new Date(), db);
        return { status: created ? 201 : 200, body: measurement, replayed: false };
      };
      // client_id alone makes a retry safe; an Idempotency-Key adds the replay of the first answer.
      const outcome = key
        ? await runIdempotent(
            { db: ctx.database.db, userId, key, fingerprint: requestFingerprint(request) },
            upload,
          )
        : await upload();
      return sendIdempotent(reply, outcome);
    },
  );

  r.get(
    API.measurement,
    {
      config: { access: "user" },
      schema: { params: IdParamsSchema, response: { 200: MeasurementDetailSchema } },
    },
    async (request, reply) => {
      noStore(reply);
      return getMeasurement(ctx, requireUserId(request), request.params.id);
    },
  );

  r.patch(
    API.measurement,
    {
      config: { access: "user" },
      schema: {
        params: IdParamsSchema,
        body: MeasurementUpdateSchema,
        response: { 200: MeasurementDetailSchema },
      },
    },
    async (request) => updateMeasurement(ctx, requireUserId(request), request.params.id, request.body),
  );

  r.delete(
    API.measurement,
    { config: { access: "user" }, schema: { params: IdParamsSchema, response: { 200: OkSchema } } },
    async (request) => {
      await deleteMeasurement(ctx, requireUserId(request), request.params.id, request);
      return { ok: true as const };
    },
  );

  // The share viewer: `Authorization: Token tsh_…` of a "measurement" link opens exactly its one
  // measurement, read-only; anyone else (signed in or not) gets the same 404 as an unknown link. The
  // auth hook sets the viewer's no-store, noindex and no-referrer headers on every share-kind route.
  r.get(
    API.sharedMeasurement,
    {
      config: { access: "public", shareKinds: ["measurement"] },
      schema: { response: { 200: MeasurementDetailSchema } },
    },
    async (request) => {
      const grant = shareGrant(request, "measurement");
      if (!grant) throw new AppError("not_found", "Not found");
      return getSharedMeasurement(ctx, grant.ownerId, grant.targetId);
    },
  );
}
