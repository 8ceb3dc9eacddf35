import path from "node:path";
import type { Db } from "../../db/client.ts";
import { deactivateOthers, type StoredVersion, upsertCourses, upsertMaterials } from "./academy.repo.ts";
import {
  type AcademyContent,
  LOCALES,
  loadAcademyContent,
  MARKDOWN_LINK,
  resolveMaterialLink,
} from "./content.ts";

export interface SyncResult {
  courses: number;
  materials: number;
  problems: string[];
}

/**
 * Loads content/academy into the database: upserts courses and materials by their slug ids and hides
 * what left the folder. Progress rows are never touched, so a reload keeps every user's progress. Safe
 * to call at every start and from a command (`reloadAcademy`); content with problems is left out and
 * the problems are returned for the caller to log.
 */
export async function syncAcademyContent(db: Db, content: AcademyContent): Promise<SyncResult> {
  const { courses } = content;
  // A wrong folder or an empty checkout must not hide every course from a running installation.
  if (courses.length === 0) {
    return {
      courses: 0,
      materials: 0,
      problems: [...content.problems, "no courses found; the stored content is kept"],
    };
  }
  const courseRows = courses.map((course) => ({
    id: course.id,
    position: course.order,
    title: course.title,
    description: course.description,
    cover: course.cover ? academyMediaUrl(course.id, course.cover) : null,
    active: true,
  }));
  const materialRows = courses.flatMap((course) =>
    course.materials.map((material) => {
      const stored: Record<string, StoredVersion> = {};
      for (const locale of LOCALES) {
        const version = material.versions[locale];
        if (!version) continue;
        stored[locale] = {
          title: version.title,
          markdown: rewriteMaterialLinks(version.markdown, course, content),
          quiz: version.quiz,
        };
      }
      return {
        id: material.slug,
        courseId: course.id,
        position: material.order,
        kind: material.kind,
        durationMin: material.durationMin,
        pro: material.pro,
        parameters: material.parameters,
        pacer: material.pacer,
        content: stored,
        active: true,
      };
    }),
  );
  await db.transaction(async (tx) => {
    await upsertCourses(tx, courseRows);
    await upsertMaterials(tx, materialRows);
    await deactivateOthers(
      tx,
      courseRows.map((row) => row.id),
      materialRows.map((row) => row.id),
    );
  });
  return { courses: courseRows.length, materials: materialRows.length, problems: content.problems };
}

/** Reads the folder (the repository's content/academy unless given) and loads it; the CLI entry point. */
export async function reloadAcademy(db: Db, rootDir?: string): Promise<SyncResult> {
  return syncAcademyContent(db, loadAcademyContent(rootDir));
}

/** The public address of a file inside a course folder (served by the academy media route). */
export function academyMediaUrl(courseId: string, relativePath: string): string {
  const clean = path.posix.normalize(relativePath.replaceAll("\\", "/")).replace(/^(\.\/)+/, "");
  return `/media/academy/${courseId}/${clean}`;
}

/**
 * Turns links to other material files into site paths and images beside the content into media
 * addresses at load time, so stored Markdown no longer depends on where the files were. Unresolvable
 * relative links stay as they are and render as text.
 */
function rewriteMaterialLinks(
  markdown: string,
  course: { id: string; dir: string },
  content: AcademyContent,
): string {
  return markdown.replace(MARKDOWN_LINK, (whole, bang: string, label: string, target: string) => {
    if (/^https?:\/\//i.test(target)) return whole;
    if (bang === "!") {
      const file = path.resolve(course.dir, target);
      const inside = file.startsWith(path.resolve(course.dir) + path.sep);
      return inside ? `![${label}](${academyMediaUrl(course.id, path.relative(course.dir, file))})` : whole;
    }
    const slug = resolveMaterialLink(path.resolve(course.dir), target, content.courses);
    return slug ? `[${label}](/lms/materials/${slug})` : whole;
  });
}
