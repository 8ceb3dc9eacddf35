import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  AcademyParameterSchema,
  AcademySlugSchema,
  type Locale,
  LocaleSchema,
  MaterialKindSchema,
  PacerSchema,
  type QuizQuestion,
  QuizSchema,
} from "@tonus/contract";
import { z } from "zod";
import { FrontMatterError, parseYamlSubset, splitFrontMatter } from "./front-matter.ts";

/** The repository's content folder; the server reads it in place (no build step copies it). */
export const DEFAULT_ACADEMY_DIR = fileURLToPath(new URL("../../../../../content/academy/", import.meta.url));

export const LOCALES: readonly Locale[] = LocaleSchema.options;
const SOURCES_HEADING: Record<Locale, string> = { en: "Sources", ru: "Источники" };

const LocalizedTextSchema = z.strictObject({ en: z.string().min(1), ru: z.string().min(1) });

export const CourseFileSchema = z.strictObject({
  id: AcademySlugSchema,
  order: z.number().int().nonnegative(),
  title: LocalizedTextSchema,
  description: LocalizedTextSchema,
  cover: z.string().min(1).optional(),
  /** Materials deliberately absent in one language: slug → the missing language. */
  missing: z.record(AcademySlugSchema, LocaleSchema).optional(),
});
export type CourseFile = z.infer<typeof CourseFileSchema>;

export const MaterialFrontMatterSchema = z.strictObject({
  title: z.string().min(1).max(200),
  slug: AcademySlugSchema,
  order: z.number().int().nonnegative(),
  kind: MaterialKindSchema,
  duration_min: z.number().int().positive().max(240),
  pro: z.boolean(),
  parameters: z.array(AcademyParameterSchema),
  pacer: PacerSchema.optional(),
});
export type MaterialFrontMatter = z.infer<typeof MaterialFrontMatterSchema>;

export interface MaterialVersion {
  title: string;
  /** Markdown without the front matter and without the quiz block. */
  markdown: string;
  quiz: QuizQuestion[] | null;
  file: string;
}

export interface LoadedMaterial {
  slug: string;
  course: string;
  order: number;
  kind: MaterialFrontMatter["kind"];
  durationMin: number;
  pro: boolean;
  parameters: MaterialFrontMatter["parameters"];
  pacer: MaterialFrontMatter["pacer"] | null;
  versions: Partial<Record<Locale, MaterialVersion>>;
}

export interface LoadedCourse {
  id: string;
  order: number;
  title: Record<Locale, string>;
  description: Record<Locale, string>;
  cover: string | null;
  dir: string;
  materials: LoadedMaterial[];
}

export interface AcademyContent {
  courses: LoadedCourse[];
  /** Every problem found; a course or material with a problem is left out of `courses`. */
  problems: string[];
}

const MATERIAL_FILE = /^(\d+)-([a-z0-9]+(?:-[a-z0-9]+)*)\.(en|ru)\.md$/;
const QUIZ_BLOCK = /^```quiz\n([\s\S]*?)\n```\s*$/m;

/** Reads and checks the whole content folder. Never throws for bad content: problems are listed. */
export function loadAcademyContent(rootDirInput: string = DEFAULT_ACADEMY_DIR): AcademyContent {
  const rootDir = path.resolve(rootDirInput);
  const problems: string[] = [];
  const courses: LoadedCourse[] = [];
  if (!existsSync(rootDir)) return { courses, problems: [`content folder ${rootDir} does not exist`] };
  const seenSlugs = new Map<string, string>();
  for (const entry of readdirSync(rootDir, { withFileTypes: true }).sort(byName)) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const course = loadCourse(path.join(rootDir, entry.name), problems);
    if (!course) continue;
    for (const material of course.materials) {
      const owner = seenSlugs.get(material.slug);
      if (owner) problems.push(`${course.id}: material slug "${material.slug}" is also used in ${owner}`);
      seenSlugs.set(material.slug, course.id);
    }
    courses.push(course);
  }
  for (const course of courses) checkLinks(course, courses, problems);
  courses.sort((a, b) => a.order - b.order || a.id.localeCompare(b.id));
  return { courses, problems };
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name.localeCompare(b.name);
}

function loadCourse(dir: string, problems: string[]): LoadedCourse | null {
  const folder = path.basename(dir);
  const courseFile = path.join(dir, "course.yaml");
  if (!existsSync(courseFile)) {
    problems.push(`${folder}: course.yaml is missing`);
    return null;
  }
  let meta: CourseFile;
  try {
    const parsed = CourseFileSchema.safeParse(parseYamlSubset(readFileSync(courseFile, "utf8")));
    if (!parsed.success) {
      problems.push(`${folder}/course.yaml: ${z.prettifyError(parsed.error)}`);
      return null;
    }
    meta = parsed.data;
  } catch (error) {
    problems.push(`${folder}/course.yaml: ${describe(error)}`);
    return null;
  }
  if (meta.id !== folder) problems.push(`${folder}/course.yaml: id "${meta.id}" must equal the folder name`);
  if (meta.cover && !isInside(dir, meta.cover))
    problems.push(`${folder}: cover ${meta.cover} does not exist`);

  const bySlug = new Map<string, { front: MaterialFrontMatter; versions: LoadedMaterial["versions"] }>();
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith(".md")) continue;
    const match = MATERIAL_FILE.exec(name);
    if (!match) {
      problems.push(`${folder}/${name}: name must be <order>-<slug>.<en|ru>.md`);
      continue;
    }
    const locale = LocaleSchema.parse(match[3]);
    const loaded = loadMaterialFile(path.join(dir, name), locale, problems);
    if (!loaded) continue;
    const { front, version } = loaded;
    if (String(front.order) !== String(Number(match[1])) || front.slug !== match[2]) {
      problems.push(`${folder}/${name}: order and slug in the front matter must match the file name`);
      continue;
    }
    const existing = bySlug.get(front.slug);
    if (!existing) {
      bySlug.set(front.slug, { front, versions: { [locale]: version } });
      continue;
    }
    if (!sameShape(existing.front, front)) {
      problems.push(
        `${folder}/${name}: kind, order, duration, pro, parameters and pacer must match the other language`,
      );
    }
    existing.versions[locale] = version;
  }

  const missing = meta.missing ?? {};
  const materials: LoadedMaterial[] = [];
  for (const [slug, { front, versions }] of bySlug) {
    for (const locale of LOCALES) {
      const declaredMissing = missing[slug] === locale;
      if (!versions[locale] && !declaredMissing) {
        problems.push(`${folder}: material "${slug}" has no ${locale} version and is not listed in missing`);
      }
      if (versions[locale] && declaredMissing) {
        problems.push(`${folder}: material "${slug}" is listed as missing in ${locale} but the file exists`);
      }
    }
    materials.push({
      slug,
      course: meta.id,
      order: front.order,
      kind: front.kind,
      durationMin: front.duration_min,
      pro: front.pro,
      parameters: front.parameters,
      pacer: front.pacer ?? null,
      versions,
    });
  }
  for (const slug of Object.keys(missing)) {
    if (!bySlug.has(slug)) problems.push(`${folder}/course.yaml: missing lists unknown material "${slug}"`);
  }
  materials.sort((a, b) => a.order - b.order || a.slug.localeCompare(b.slug));
  return {
    id: meta.id,
    order: meta.order,
    title: meta.title,
    description: meta.description,
    cover: meta.cover ?? null,
    dir,
    materials,
  };
}

function loadMaterialFile(
  file: string,
  locale: Locale,
  problems: string[],
): { front: MaterialFrontMatter; version: MaterialVersion } | null {
  const label = path.join(path.basename(path.dirname(file)), path.basename(file));
  let data: unknown;
  let body: string;
  try {
    ({ data, body } = splitFrontMatter(readFileSync(file, "utf8")));
  } catch (error) {
    problems.push(`${label}: ${describe(error)}`);
    return null;
  }
  const parsed = MaterialFrontMatterSchema.safeParse(data);
  if (!parsed.success) {
    problems.push(`${label}: ${z.prettifyError(parsed.error)}`);
    return null;
  }
  const front = parsed.data;
  if (front.pacer && front.kind !== "exercise") problems.push(`${label}: only an exercise may have a pacer`);

  let quiz: QuizQuestion[] | null = null;
  const quizMatch = QUIZ_BLOCK.exec(body);
  if (front.kind === "quiz") {
    if (!quizMatch) {
      problems.push(`${label}: a quiz needs a \`\`\`quiz block`);
      return null;
    }
    const questions = parseQuiz(quizMatch[1] ?? "");
    if (typeof questions === "string") {
      problems.push(`${label}: quiz block: ${questions}`);
      return null;
    }
    quiz = questions;
    body = body.replace(QUIZ_BLOCK, "");
  } else if (quizMatch) {
    problems.push(`${label}: only a material of kind quiz may contain a quiz block`);
  }

  const heading = SOURCES_HEADING[locale];
  const sources = new RegExp(`^## ${heading}[ \\t]*\\n+(?:- .+\\n?)+\\s*$`, "m");
  if (!sources.test(body)) {
    problems.push(`${label}: must end with a "## ${heading}" section listing at least one reference`);
  }
  return { front, version: { title: front.title, markdown: body.trim(), quiz, file } };
}

function parseQuiz(raw: string): QuizQuestion[] | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return describe(error);
  }
  const parsed = QuizSchema.safeParse(value);
  return parsed.success ? parsed.data : z.prettifyError(parsed.error);
}

function sameShape(a: MaterialFrontMatter, b: MaterialFrontMatter): boolean {
  return (
    a.kind === b.kind &&
    a.order === b.order &&
    a.duration_min === b.duration_min &&
    a.pro === b.pro &&
    JSON.stringify(a.parameters) === JSON.stringify(b.parameters) &&
    JSON.stringify(a.pacer ?? null) === JSON.stringify(b.pacer ?? null)
  );
}

/** Links and images written as `[text](target)` or `![alt](target)`. */
export const MARKDOWN_LINK = /(!?)\[([^\]]*)\]\(([^)\s]+)\)/g;

function checkLinks(course: LoadedCourse, all: LoadedCourse[], problems: string[]): void {
  for (const material of course.materials) {
    for (const version of Object.values(material.versions)) {
      if (!version) continue;
      const label = path.join(course.id, path.basename(version.file));
      for (const match of version.markdown.matchAll(MARKDOWN_LINK)) {
        const isImage = match[1] === "!";
        const target = match[3] ?? "";
        if (/^https?:\/\//i.test(target)) {
          if (isImage) problems.push(`${label}: images must be files beside the content, not ${target}`);
          continue;
        }
        if (isImage) {
          if (!isInside(course.dir, target)) problems.push(`${label}: image ${target} does not exist`);
          continue;
        }
        if (!resolveMaterialLink(course.dir, target, all)) {
          problems.push(`${label}: link ${target} does not point to a material file`);
        }
      }
    }
  }
}

/**
 * Resolves a relative link to another material file (`../course/2-slug.en.md`) to that material's slug.
 * Anything else answers null: the renderer then drops the link, the content check reports it.
 */
export function resolveMaterialLink(
  courseDir: string,
  target: string,
  courses: LoadedCourse[],
): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/")) return null;
  const absolute = path.resolve(courseDir, target);
  const match = MATERIAL_FILE.exec(path.basename(absolute));
  if (!match) return null;
  const owner = courses.find((course) => course.dir.replace(/\/$/, "") === path.dirname(absolute));
  const material = owner?.materials.find((item) => item.slug === match[2]);
  return material && existsSync(absolute) ? material.slug : null;
}

/** True when `relative` names an existing file inside `dir` (no escaping it with `..`). */
export function isInside(dir: string, relative: string): boolean {
  if (relative.startsWith("/") || /^[a-z][a-z0-9+.-]*:/i.test(relative)) return false;
  const absolute = path.resolve(dir, relative);
  if (!absolute.startsWith(path.resolve(dir) + path.sep)) return false;
  return existsSync(absolute) && statSync(absolute).isFile();
}

function describe(error: unknown): string {
  return error instanceof FrontMatterError || error instanceof Error ? error.message : String(error);
}
