import {
  AcademyCourseResponseSchema,
  AcademyCoursesResponseSchema,
  AcademyLanguageQuerySchema,
  AcademyMaterialResponseSchema,
  AcademyProgressResponseSchema,
  AcademyProgressUpdateSchema,
  AcademySlugSchema,
  API,
  type Locale,
} from "@tonus/contract";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { academyDataSection } from "./academy.data.ts";
import { getCourse, getMaterial, listCourses, updateProgress } from "./academy.service.ts";
import { reloadAcademy } from "./academy.sync.ts";

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
}
