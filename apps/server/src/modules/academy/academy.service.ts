import {
  type AcademyCourseResponse,
  type AcademyCourseSummary,
  type AcademyMaterialItem,
  type AcademyMaterialResponse,
  type AcademyParameterIndex,
  AcademyParameterSchema,
  type AcademyProgressUpdate,
  type Locale,
  LocaleSchema,
  MATERIAL_STATE_FINISHED,
  MaterialKindSchema,
  type MaterialState,
  type QuizAnswers,
  QuizSchema,
} from "@tonus/contract";
import { z } from "zod";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { getEntitlements } from "../entitlements/entitlements.service.ts";
import {
  type CourseRow,
  countFinished,
  findActiveCourse,
  findActiveMaterial,
  listActiveCourses,
  listActiveMaterials,
  listProgress,
  type MaterialRow,
  type ProgressRow,
  type StoredVersion,
  saveProgress,
} from "./academy.repo.ts";
import { LOCALES } from "./content.ts";
import { isSafeExternalUrl, renderMarkdown, splitIntroduction } from "./markdown.ts";

type Ctx = Pick<AppContext, "config" | "database">;

const SITE_MATERIAL_LINK = /^\/lms\/materials\/[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** A content image as rewritten at load time: a course id, then safe path segments, an image extension. */
export const ACADEMY_MEDIA_URL =
  /^\/media\/academy\/[a-z0-9]+(?:-[a-z0-9]+)*\/(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*\.(?:png|jpe?g|gif|webp)$/;

/** Link targets survive only as http(s) URLs or links to other materials (rewritten at load time). */
function renderSafely(markdown: string): string {
  return renderMarkdown(markdown, {
    resolveLink: (target) => (isSafeExternalUrl(target) || SITE_MATERIAL_LINK.test(target) ? target : null),
    // Only files beside the content, rewritten to media addresses at load time; anything else shows its alt text.
    resolveImage: (source) => (ACADEMY_MEDIA_URL.test(source) ? source : null),
  });
}

// The jsonb columns are written only by the loader, but they are read back through a schema rather than
// trusted as a type, so a hand-edited row fails loudly instead of reaching the renderer malformed.
const StoredVersionsSchema = z.partialRecord(
  LocaleSchema,
  z.object({ title: z.string(), markdown: z.string(), quiz: QuizSchema.nullable() }),
);
const ParametersSchema = z.array(AcademyParameterSchema);

function versionsOf(material: MaterialRow): Partial<Record<Locale, StoredVersion>> {
  return StoredVersionsSchema.parse(material.content);
}

function availableLanguages(material: MaterialRow): Locale[] {
  const versions = versionsOf(material);
  return LOCALES.filter((locale) => versions[locale] !== undefined);
}

/** The requested language, else the other one, for titles in lists. */
function pickVersion(material: MaterialRow, language: Locale): StoredVersion | undefined {
  const versions = versionsOf(material);
  return versions[language] ?? LOCALES.map((locale) => versions[locale]).find(Boolean);
}

function toState(progress: ProgressRow | undefined): MaterialState {
  const state = progress?.state ?? 0;
  return state === 4 ? 4 : state === 1 ? 1 : 0;
}

function toItem(
  material: MaterialRow,
  language: Locale,
  progress: ProgressRow | undefined,
): AcademyMaterialItem {
  return {
    id: material.id,
    course: material.courseId,
    state: toState(progress),
    title: pickVersion(material, language)?.title ?? material.id,
    slug: material.id,
    order: material.position,
    kind: MaterialKindSchema.parse(material.kind),
    duration_min: material.durationMin,
    pro: material.pro,
    available_languages: availableLanguages(material),
  };
}

function toSummary(
  course: CourseRow,
  language: Locale,
  materials: MaterialRow[],
  finished: number,
): AcademyCourseSummary {
  return {
    id: course.id,
    title: course.title[language] ?? course.id,
    description: course.description[language] ?? "",
    order: course.position,
    cover: course.cover,
    materials_total: materials.length,
    materials_finished: finished,
  };
}

function finishedCount(progress: ProgressRow[]): number {
  return progress.filter((row) => row.state === MATERIAL_STATE_FINISHED).length;
}

/** Signed in: every course keyed by its id, with "N of M" counts (spec §3). */
export async function listCourses(
  ctx: Ctx,
  userId: string,
  language: Locale,
): Promise<Record<string, AcademyCourseSummary>> {
  const { db } = ctx.database;
  const courses = await listActiveCourses(db);
  const materials = await listActiveMaterials(db);
  const progress = await listProgress(
    db,
    userId,
    materials.map((material) => material.id),
  );
  const result: Record<string, AcademyCourseSummary> = {};
  for (const course of courses) {
    const own = materials.filter((material) => material.courseId === course.id);
    const ownIds = new Set(own.map((material) => material.id));
    result[course.id] = toSummary(
      course,
      language,
      own,
      finishedCount(progress.filter((row) => ownIds.has(row.materialId))),
    );
  }
  return result;
}

/** Free access: a visitor gets state 0 everywhere. */
/** Parameter key → the active materials whose front matter lists it, in course then material order. */
export async function listParameterMaterials(ctx: Ctx, language: Locale): Promise<AcademyParameterIndex> {
  const courses = await listActiveCourses(ctx.database.db);
  const courseOrder = new Map(courses.map((course, index) => [course.id, index]));
  const materials = (await listActiveMaterials(ctx.database.db))
    .filter((material) => courseOrder.has(material.courseId))
    .sort(
      (a, b) =>
        (courseOrder.get(a.courseId) ?? 0) - (courseOrder.get(b.courseId) ?? 0) || a.position - b.position,
    );
  const index: AcademyParameterIndex = {};
  for (const material of materials) {
    const title = pickVersion(material, language)?.title ?? material.id;
    for (const parameter of ParametersSchema.parse(material.parameters)) {
      const links = index[parameter] ?? [];
      links.push({ id: material.id, course: material.courseId, title });
      index[parameter] = links;
    }
  }
  return index;
}

export async function getCourse(
  ctx: Ctx,
  userId: string | null,
  courseId: string,
  language: Locale,
): Promise<AcademyCourseResponse> {
  const { db } = ctx.database;
  const course = await findActiveCourse(db, courseId);
  if (!course) throw new AppError("not_found", "Course not found");
  const materials = await listActiveMaterials(db, [course.id]);
  const progress = userId
    ? await listProgress(
        db,
        userId,
        materials.map((material) => material.id),
      )
    : [];
  const byMaterial = new Map(progress.map((row) => [row.materialId, row]));
  return {
    ...toSummary(course, language, materials, finishedCount(progress)),
    materials: materials.map((material) => toItem(material, language, byMaterial.get(material.id))),
  };
}

/**
 * Whether the caller may read PRO content. Signed-in people are asked through `getEntitlements`; a
 * visitor only when billing is off (a self-hosted install where everyone is a customer).
 */
async function canReadPro(ctx: Ctx, userId: string | null): Promise<boolean> {
  if (!userId) return ctx.config.BILLING_MODE === "off";
  return (await getEntitlements(ctx, userId)).is_customer;
}

/**
 * Free access. A PRO material for a non-customer answers 200 with its introduction and `locked: true`;
 * a material missing in `language` answers 200 with `available: false` and its other languages.
 */
export async function getMaterial(
  ctx: Ctx,
  userId: string | null,
  materialId: string,
  language: Locale,
): Promise<AcademyMaterialResponse> {
  const { db } = ctx.database;
  const material = await findActiveMaterial(db, materialId);
  if (!material) throw new AppError("not_found", "Material not found");
  const [progress] = userId ? await listProgress(db, userId, [material.id]) : [];
  const item = toItem(material, language, progress);
  const version = versionsOf(material)[language];
  const base = {
    ...item,
    language,
    parameters: ParametersSchema.parse(material.parameters),
    pacer: material.pacer ?? null,
    answers: progress?.answers ?? null,
  };
  if (!version) return { ...base, available: false, locked: false, html: "", quiz: null };
  const locked = material.pro && !(await canReadPro(ctx, userId));
  return {
    ...base,
    title: version.title,
    available: true,
    locked,
    html: renderSafely(locked ? splitIntroduction(version.markdown) : version.markdown),
    quiz: locked ? null : version.quiz,
  };
}

function checkAnswers(material: MaterialRow, answers: QuizAnswers): void {
  const versions = Object.values(versionsOf(material));
  const quiz = versions.find((version) => version?.quiz)?.quiz;
  if (!quiz) throw new AppError("validation_failed", "This material has no quiz to answer");
  for (const [questionId, option] of Object.entries(answers)) {
    const question = quiz.find((item) => item.id === questionId);
    if (!question || option >= question.options.length) {
      throw new AppError("validation_failed", `Unknown question or option: ${questionId}`);
    }
  }
}

/** Signed in. Finishing (state 4) raises the course's `materials_finished` once, however often it is sent. */
export async function updateProgress(
  ctx: Ctx,
  userId: string,
  materialId: string,
  update: AcademyProgressUpdate,
): Promise<{
  material: string;
  course: string;
  state: MaterialState;
  answers: QuizAnswers | null;
  materials_finished: number;
}> {
  const { db } = ctx.database;
  const material = await findActiveMaterial(db, materialId);
  if (!material) throw new AppError("not_found", "Material not found");
  if (update.answers !== undefined) checkAnswers(material, update.answers);
  const row = await saveProgress(db, userId, material.id, update.state, update.answers);
  return {
    material: material.id,
    course: material.courseId,
    state: toState(row),
    answers: row.answers ?? null,
    materials_finished: await countFinished(db, userId, material.courseId),
  };
}
