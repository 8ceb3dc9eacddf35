import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  AcademyCourseResponseSchema,
  AcademyCoursesResponseSchema,
  AcademyLanguageQuerySchema,
  AcademyMaterialResponseSchema,
  AcademyParameterIndexSchema,
  AcademyProgressResponseSchema,
  AcademyProgressUpdateSchema,
  AcademySlugSchema,
  API,
  type Locale,
} from "@tonus/contract";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../lib/app-error.ts";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { academyDataSection } from "./academy.data.ts";
import {
  ACADEMY_MEDIA_URL,
  getCourse,
  getMaterial,
  listCourses,
  listParameterMaterials,
  updateProgress,
} from "./academy.service.ts";
import { academyMediaUrl, reloadAcademy } from "./academy.sync.ts";
import { DEFAULT_ACADEMY_DIR } from "./content.ts";

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};
const MediaParamsSchema = z.object({ courseId: z.string().max(200), "*": z.string().max(500) });

// A malformed id can never name a course or material: answer 404 like any unknown id.
const IdSchema = z.string().max(200);
const CourseParamsSchema = z.object({ courseId: IdSchema });
const MaterialParamsSchema = z.object({ materialId: IdSchema });

function languageOf(query: { language?: Locale }): Locale {
  return query.language ?? "en";
}

function viewerId(request: FastifyRequest): string | null {
  return request.auth.kind === "user" ? request.auth.userId : null;
}

function knownSlug(id: string): string {
  // Unknown-looking ids still reach the service, which answers 404 (not 400) for anything it lacks.
  return AcademySlugSchema.safeParse(id).success ? id : "";
}

export async function registerAcademyRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  ctx.services.registry.register(academyDataSection);
  // Content is loaded at every start; progress is keyed by the stable slugs and is never touched.
  const result = await reloadAcademy(ctx.database.db, ctx.config.academyContentDir);
  for (const problem of result.problems) ctx.log.warn({ problem }, "academy content problem (left out)");

  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    API.academyCourses,
    {
      config: { access: "user" },
      schema: { querystring: AcademyLanguageQuerySchema, response: { 200: AcademyCoursesResponseSchema } },
    },
    async (request) => listCourses(ctx, requireUserId(request), languageOf(request.query)),
  );

  r.get(
    API.academyCourse,
    {
      config: { access: "public" },
      schema: {
        params: CourseParamsSchema,
        querystring: AcademyLanguageQuerySchema,
        response: { 200: AcademyCourseResponseSchema },
      },
    },
    async (request) =>
      getCourse(ctx, viewerId(request), knownSlug(request.params.courseId), languageOf(request.query)),
  );

  r.get(
    API.academyMaterial,
    {
      config: { access: "public" },
      schema: {
        params: MaterialParamsSchema,
        querystring: AcademyLanguageQuerySchema,
        response: { 200: AcademyMaterialResponseSchema },
      },
    },
    async (request) =>
      getMaterial(ctx, viewerId(request), knownSlug(request.params.materialId), languageOf(request.query)),
  );

  r.get(
    API.academyParameters,
    {
      config: { access: "public" },
      schema: { querystring: AcademyLanguageQuerySchema, response: { 200: AcademyParameterIndexSchema } },
    },
    async (request) => listParameterMaterials(ctx, languageOf(request.query)),
  );

  r.post(
    API.academyProgress,
    {
      config: { access: "user" },
      schema: {
        params: MaterialParamsSchema,
        body: AcademyProgressUpdateSchema,
        response: { 200: AcademyProgressResponseSchema },
      },
    },
    async (request) =>
      updateProgress(ctx, requireUserId(request), knownSlug(request.params.materialId), request.body),
  );

  // Images beside the content (rewritten to these addresses at load time); nothing else is served.
  const contentDir = path.resolve(ctx.config.academyContentDir ?? DEFAULT_ACADEMY_DIR);
  r.get(
    API.academyMedia,
    { config: { access: "public" }, schema: { params: MediaParamsSchema } },
    async (request, reply) => {
      const { courseId, "*": rest } = request.params;
      const url = academyMediaUrl(courseId, rest);
      const file = path.resolve(contentDir, courseId, rest);
      const type = IMAGE_TYPES[path.extname(file).toLowerCase()];
      if (!ACADEMY_MEDIA_URL.test(url) || !file.startsWith(contentDir + path.sep) || !type) {
        throw new AppError("not_found", "Not found");
      }
      const data = await readFile(file).catch(() => null);
      if (!data) throw new AppError("not_found", "Not found");
      return reply
        .type(type)
        .header("x-content-type-options", "nosniff")
        .header("cache-control", "public, max-age=3600")
        .send(data);
    },
  );
}
