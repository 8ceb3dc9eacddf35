import { z } from "zod";
import { LocaleSchema } from "./common.ts";

/** Measurement parameters a material may explain; the measurement page links each one to its materials. */
export const ACADEMY_PARAMETER_KEYS = [
  "meanrr",
  "sdnn",
  "rmssd",
  "pnn50",
  "mo",
  "amo",
  "mxdmn",
  "stress_index",
  "vlf",
  "lf",
  "hf",
  "lfhf",
  "total_power",
  "kerdo",
  "robinson",
  "kek",
  "kvas",
  "functional_changes",
  "phys_state",
] as const;
export const AcademyParameterSchema = z.enum(ACADEMY_PARAMETER_KEYS);

export const MaterialKindSchema = z.enum(["lecture", "article", "exercise", "quiz"]);
export type MaterialKind = z.infer<typeof MaterialKindSchema>;

/** Ids are the slugs from the content files: stable on every installation. */
export const AcademySlugSchema = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
  .max(80);

/**
 * Progress states on the wire (spec §4): 0 not started, 1 in progress, 4 finished. Finishing raises the
 * course's `materials_finished` by one, once.
 */
export const MaterialStateSchema = z.union([z.literal(0), z.literal(1), z.literal(4)]);
export type MaterialState = z.infer<typeof MaterialStateSchema>;
export const MATERIAL_STATE_FINISHED = 4;

/** The on-screen paced-breathing timer of an exercise. */
export const PacerSchema = z.strictObject({
  inhale_s: z.number().positive().max(30),
  exhale_s: z.number().positive().max(30),
  duration_min: z.number().positive().max(60),
});
export type Pacer = z.infer<typeof PacerSchema>;

export const QuizQuestionSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9_-]+$/i),
  question: z.string().min(1),
  options: z.array(z.string().min(1)).min(2),
  correct: z.number().int().nonnegative(),
  explanation: z.string().min(1),
});
export type QuizQuestion = z.infer<typeof QuizQuestionSchema>;

export const QuizSchema = z
  .array(QuizQuestionSchema)
  .min(1)
  .superRefine((questions, ctx) => {
    const ids = new Set<string>();
    for (const [index, question] of questions.entries()) {
      if (question.correct >= question.options.length) {
        ctx.addIssue({ code: "custom", path: [index, "correct"], message: "correct is not an option index" });
      }
      if (ids.has(question.id))
        ctx.addIssue({ code: "custom", path: [index, "id"], message: "duplicate id" });
      ids.add(question.id);
    }
  });

/** A person's quiz answers: question id → chosen option index. */
export const QuizAnswersSchema = z.record(z.string().max(40), z.number().int().nonnegative().max(50));
export type QuizAnswers = z.infer<typeof QuizAnswersSchema>;

/** One course on the academy list (signed in): keyed by course id in the response. */
export const AcademyCourseSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  order: z.number(),
  cover: z.string().nullable(),
  materials_total: z.number().int(),
  materials_finished: z.number().int(),
});
export type AcademyCourseSummary = z.infer<typeof AcademyCourseSummarySchema>;
export const AcademyCoursesResponseSchema = z.record(z.string(), AcademyCourseSummarySchema);

/** A material as listed in its course (spec §3: id, course, state, title, slug). */
export const AcademyMaterialItemSchema = z.object({
  id: z.string(),
  course: z.string(),
  state: MaterialStateSchema,
  title: z.string(),
  slug: z.string(),
  order: z.number(),
  kind: MaterialKindSchema,
  duration_min: z.number(),
  pro: z.boolean(),
  available_languages: z.array(LocaleSchema),
});
export type AcademyMaterialItem = z.infer<typeof AcademyMaterialItemSchema>;

export const AcademyCourseResponseSchema = AcademyCourseSummarySchema.extend({
  materials: z.array(AcademyMaterialItemSchema),
});
export type AcademyCourseResponse = z.infer<typeof AcademyCourseResponseSchema>;

/**
 * One material. `html` is rendered and sanitised on the server. When the material is missing in the
 * requested language, `available: false`, `html` is empty and the web shows the spec's text
 * ("This material/lecture is not available for the language") with links to `available_languages`.
 * A PRO material for a non-customer has `locked: true` and only its introduction in `html`.
 */
export const AcademyMaterialResponseSchema = AcademyMaterialItemSchema.extend({
  language: LocaleSchema,
  available: z.boolean(),
  locked: z.boolean(),
  html: z.string(),
  parameters: z.array(AcademyParameterSchema),
  pacer: PacerSchema.nullable(),
  quiz: QuizSchema.nullable(),
  answers: QuizAnswersSchema.nullable(),
});
export type AcademyMaterialResponse = z.infer<typeof AcademyMaterialResponseSchema>;

export const AcademyLanguageQuerySchema = z.object({ language: LocaleSchema.optional() });

export const AcademyProgressUpdateSchema = z.strictObject({
  state: MaterialStateSchema,
  answers: QuizAnswersSchema.optional(),
});
export type AcademyProgressUpdate = z.infer<typeof AcademyProgressUpdateSchema>;

export const AcademyProgressResponseSchema = z.object({
  material: z.string(),
  course: z.string(),
  state: MaterialStateSchema,
  answers: QuizAnswersSchema.nullable(),
  materials_finished: z.number().int(),
});
export type AcademyProgressResponse = z.infer<typeof AcademyProgressResponseSchema>;

/**
 * Which materials explain each measurement parameter (from the materials' front matter), for the
 * measurement decoding's "learn more" links: parameter key → materials in course order.
 */
export const AcademyParameterLinkSchema = z.object({ id: z.string(), course: z.string(), title: z.string() });
export type AcademyParameterLink = z.infer<typeof AcademyParameterLinkSchema>;
export const AcademyParameterIndexSchema = z.record(z.string(), z.array(AcademyParameterLinkSchema));
export type AcademyParameterIndex = z.infer<typeof AcademyParameterIndexSchema>;
