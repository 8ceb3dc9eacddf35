import {
  CsvMappingSchema,
  IMPORTS_API,
  ImportIdParamsSchema,
  ImportListQuerySchema,
  ImportListSchema,
  ImportSchema,
} from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { AppError } from "../../lib/app-error.ts";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { importsDataSection } from "./imports.data.ts";
import { IMPORT_RETRIES, runImport } from "./imports.job.ts";
import {
  allowUpload,
  cancelImport,
  checkUploadSource,
  createImport,
  getImport,
  type ImportJob,
  listImports,
  resumeImports,
  setMapping,
  sweepImports,
} from "./imports.service.ts";
import { receiveUpload } from "./imports.upload.ts";

/** File imports (issue 7): upload, progress and report, a generic CSV's mapping, cancel. */
export function registerImportRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(importsDataSection);
  const job: ImportJob = ctx.services.jobs.defineJob<{ importId: string; userId: string }>(
    "imports.run",
    async (data, run) => {
      if (typeof data.importId === "string") await runImport(ctx, data.importId, run.retryCount);
    },
    // A multi-gigabyte export takes a while; a run that dies is taken over once its lease expires.
    { retryLimit: IMPORT_RETRIES, retryDelay: 10, retryBackoff: true, expireInSeconds: 6 * 3600 },
  );
  ctx.services.jobs.defineJob("imports.sweep", async () => sweepImports(ctx, job), { cron: "17 * * * *" });
  app.addHook("onReady", async () => {
    await resumeImports(ctx, job).catch((err: unknown) => ctx.log.warn({ err }, "resuming imports failed"));
  });

  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    IMPORTS_API.imports,
    { config: { access: "user" }, schema: { response: { 201: ImportSchema } } },
    async (request, reply) => {
      const userId = requireUserId(request);
      const declared = Number(request.headers["content-length"]);
      const cap = await allowUpload(ctx, userId, Number.isFinite(declared) ? declared : undefined);
      const upload = await receiveUpload(
        request,
        ctx.config.filesDir,
        cap,
        () => new AppError("file_too_large", `The file must be at most ${Math.floor(cap / 1024 / 1024)} MB`),
        checkUploadSource,
      );
      return reply.status(201).send(await createImport(ctx, job, userId, upload));
    },
  );
  r.get(
    IMPORTS_API.imports,
    {
      config: { access: "user" },
      schema: { querystring: ImportListQuerySchema, response: { 200: ImportListSchema } },
    },
    async (request) => listImports(ctx, requireUserId(request), request.query),
  );
  r.get(
    IMPORTS_API.import,
    { config: { access: "user" }, schema: { params: ImportIdParamsSchema, response: { 200: ImportSchema } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return getImport(ctx, requireUserId(request), request.params.id);
    },
  );
  r.post(
    IMPORTS_API.mapping,
    {
      config: { access: "user" },
      schema: { params: ImportIdParamsSchema, body: CsvMappingSchema, response: { 200: ImportSchema } },
    },
    async (request) => setMapping(ctx, job, requireUserId(request), request.params.id, request.body),
  );
  r.post(
    IMPORTS_API.cancel,
    { config: { access: "user" }, schema: { params: ImportIdParamsSchema, response: { 200: ImportSchema } } },
    async (request) => cancelImport(ctx, requireUserId(request), request.params.id),
  );
}
