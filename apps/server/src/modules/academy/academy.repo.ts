import type { QuizQuestion } from "@tonus/contract";
import { and, eq, inArray, notInArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { academyCourses, academyMaterials, academyProgress } from "../../db/schema.ts";

export type CourseRow = typeof academyCourses.$inferSelect;
export type MaterialRow = typeof academyMaterials.$inferSelect;
export type ProgressRow = typeof academyProgress.$inferSelect;

/** One language of a material as stored in `academy_materials.content`. */
export interface StoredVersion {
  title: string;
  markdown: string;
  quiz: QuizQuestion[] | null;
}

export async function upsertCourses(db: Db, rows: (typeof academyCourses.$inferInsert)[]): Promise<void> {
  for (const row of rows) {
    await db
      .insert(academyCourses)
      .values(row)
      .onConflictDoUpdate({
        target: academyCourses.id,
        set: { ...row, active: true, updatedAt: sql`now()` },
      });
  }
}

export async function upsertMaterials(db: Db, rows: (typeof academyMaterials.$inferInsert)[]): Promise<void> {
  for (const row of rows) {
    await db
      .insert(academyMaterials)
      .values(row)
      .onConflictDoUpdate({
        target: academyMaterials.id,
        set: { ...row, active: true, updatedAt: sql`now()` },
      });
  }
}

/** Hides what left the content folder; rows stay so progress survives a file coming back. */
export async function deactivateOthers(db: Db, courseIds: string[], materialIds: string[]): Promise<void> {
  const keep = (ids: string[]) => (ids.length > 0 ? ids : [""]);
  await db
    .update(academyCourses)
    .set({ active: false })
    .where(notInArray(academyCourses.id, keep(courseIds)));
  await db
    .update(academyMaterials)
    .set({ active: false })
    .where(notInArray(academyMaterials.id, keep(materialIds)));
}

export async function listActiveCourses(db: Db): Promise<CourseRow[]> {
  return db
    .select()
    .from(academyCourses)
    .where(eq(academyCourses.active, true))
    .orderBy(academyCourses.position, academyCourses.id);
}

export async function findActiveCourse(db: Db, courseId: string): Promise<CourseRow | undefined> {
  const [row] = await db
    .select()
    .from(academyCourses)
    .where(and(eq(academyCourses.id, courseId), eq(academyCourses.active, true)));
  return row;
}

export async function listActiveMaterials(db: Db, courseIds?: string[]): Promise<MaterialRow[]> {
  const active = eq(academyMaterials.active, true);
  return db
    .select()
    .from(academyMaterials)
    .where(courseIds ? and(active, inArray(academyMaterials.courseId, courseIds)) : active)
    .orderBy(academyMaterials.position, academyMaterials.id);
}

/** A material is readable only while it and its course are active. */
export async function findActiveMaterial(db: Db, materialId: string): Promise<MaterialRow | undefined> {
  const [row] = await db
    .select({ material: academyMaterials })
    .from(academyMaterials)
    .innerJoin(academyCourses, eq(academyCourses.id, academyMaterials.courseId))
    .where(
      and(
        eq(academyMaterials.id, materialId),
        eq(academyMaterials.active, true),
        eq(academyCourses.active, true),
      ),
    );
  return row?.material;
}

export async function listProgress(db: Db, userId: string, materialIds: string[]): Promise<ProgressRow[]> {
  if (materialIds.length === 0) return [];
  return db
    .select()
    .from(academyProgress)
    .where(and(eq(academyProgress.userId, userId), inArray(academyProgress.materialId, materialIds)));
}

/**
 * Records progress. The state never moves backwards (re-opening a finished material keeps it finished),
 * and the unique (user, material) row makes finishing twice count once.
 */
export async function saveProgress(
  db: Db,
  userId: string,
  materialId: string,
  state: number,
  answers: Record<string, number> | undefined,
): Promise<ProgressRow> {
  const [row] = await db
    .insert(academyProgress)
    .values({ userId, materialId, state, answers: answers ?? null })
    .onConflictDoUpdate({
      target: [academyProgress.userId, academyProgress.materialId],
      set: {
        state: sql`greatest(${academyProgress.state}, excluded.state)`,
        answers: answers === undefined ? sql`${academyProgress.answers}` : sql`excluded.answers`,
        updatedAt: sql`now()`,
      },
    })
    .returning();
  if (!row) throw new Error("progress upsert returned no row");
  return row;
}

/** Finished, still-active materials of one course for one user. */
export async function countFinished(db: Db, userId: string, courseId: string): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(academyProgress)
    .innerJoin(academyMaterials, eq(academyMaterials.id, academyProgress.materialId))
    .where(
      and(
        eq(academyProgress.userId, userId),
        eq(academyMaterials.courseId, courseId),
        eq(academyMaterials.active, true),
        eq(academyProgress.state, 4),
      ),
    );
  return Number(row?.count ?? 0);
}

/** Everything a user recorded in the academy, for the data-export archive. */
export async function listAllProgress(db: Db, userId: string): Promise<ProgressRow[]> {
  return db.select().from(academyProgress).where(eq(academyProgress.userId, userId));
}
