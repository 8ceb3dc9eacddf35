import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type {
  AcademyCourseResponse,
  AcademyCourseSummary,
  AcademyMaterialResponse,
  AcademyProgressResponse,
  AcademyProgressUpdate,
  Locale,
} from "@tonus/contract";
import { API } from "@tonus/contract";
import { apiRequest } from "../../shared/api/client.ts";

export const ACADEMY_QUERY_KEY = ["academy"] as const;

/** Fills `:name` segments of an API path; every value is URL-encoded. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/:([A-Za-z]+)/g, (_match, name: string) => encodeURIComponent(params[name] ?? ""));
}

/** The signed-in person's courses with their progress, in list order. */
export function useCourses(language: Locale) {
  return useQuery({
    queryKey: [...ACADEMY_QUERY_KEY, "courses", language],
    queryFn: async () => {
      const byId = await apiRequest<Record<string, AcademyCourseSummary>>(API.academyCourses, {
        query: { language },
      });
      return Object.values(byId).sort((a, b) => a.order - b.order);
    },
  });
}

export function useCourse(courseId: string, language: Locale) {
  return useQuery({
    queryKey: [...ACADEMY_QUERY_KEY, "course", courseId, language],
    queryFn: () =>
      apiRequest<AcademyCourseResponse>(fillPath(API.academyCourse, { courseId }), { query: { language } }),
  });
}

export function useMaterial(materialId: string, language: Locale) {
  return useQuery({
    queryKey: [...ACADEMY_QUERY_KEY, "material", materialId, language],
    queryFn: () =>
      apiRequest<AcademyMaterialResponse>(fillPath(API.academyMaterial, { materialId }), {
        query: { language },
      }),
  });
}

/** Records a material's state (and quiz answers); course counts are fetched again afterwards. */
export function useUpdateProgress(materialId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (update: AcademyProgressUpdate) =>
      apiRequest<AcademyProgressResponse>(fillPath(API.academyProgress, { materialId }), {
        method: "POST",
        body: update,
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ACADEMY_QUERY_KEY }),
  });
}

/** Where a material opens: inside its course when the course is known, on its own otherwise. */
export function materialPath(materialId: string, courseId?: string): string {
  return courseId
    ? `/lms/courses/${encodeURIComponent(courseId)}/${encodeURIComponent(materialId)}`
    : `/lms/materials/${encodeURIComponent(materialId)}`;
}

/** The material to resume: the first not finished, or the first when all are done. */
export function resumeTarget<T extends { state: number }>(materials: readonly T[]): T | undefined {
  return materials.find((material) => material.state !== 4) ?? materials[0];
}
