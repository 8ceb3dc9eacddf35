import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen } from "@testing-library/react";
import { type AcademyMaterialResponse, API } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { findRoute, matchRoute } from "../../app/routes.ts";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";
import { fillPath, materialPath, resumeTarget } from "./academy-api.ts";
import { LearnMore } from "./LearnMore.tsx";
import { breathsPerMinute, pacerPhase } from "./pacer-phase.ts";

configure({ asyncUtilTimeout: 5000 });

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

describe("academy routes", () => {
  it("match course and material pages with their parameters; fixed paths win", () => {
    expect(matchRoute("/lms/courses/hrv-basics")?.params).toEqual({ courseId: "hrv-basics" });
    expect(matchRoute("/lms/courses/hrv-basics/what-is-hrv/")?.params).toEqual({
      courseId: "hrv-basics",
      materialId: "what-is-hrv",
    });
    expect(matchRoute("/lms/materials/what-is-hrv")?.params).toEqual({ materialId: "what-is-hrv" });
    expect(matchRoute("/lms/courses")?.row.access).toBe("auth");
    expect(findRoute("/lms")?.access).toBe("auth");
    expect(findRoute("/lms/courses/a")?.access).toBe("free");
    expect(findRoute("/lms/courses/a/b/c")).toBeNull();
    expect(findRoute("/lms/materials/")).toBeNull();
    expect(findRoute("/lms/courses/%E0%A4%A")).toBeNull();
  });

  it("build paths with every value encoded", () => {
    expect(fillPath(API.academyCourse, { courseId: "a/b?c" })).toBe(
      "/dashboard_api/v1/academy/courses/a%2Fb%3Fc/",
    );
    expect(materialPath("m", "c")).toBe("/lms/courses/c/m");
    expect(materialPath("m")).toBe("/lms/materials/m");
  });

  it("resume at the first unfinished material, or the first when all are done", () => {
    expect(resumeTarget([{ state: 4 }, { state: 1 }, { state: 0 }])).toEqual({ state: 1 });
    expect(
      resumeTarget([
        { state: 4, id: "a" },
        { state: 4, id: "b" },
      ])?.id,
    ).toBe("a");
    expect(resumeTarget([])).toBeUndefined();
  });
});

describe("paced breathing", () => {
  const pacer = { inhale_s: 4, exhale_s: 6, duration_min: 1 };

  it("alternates breathing in and out and counts time left", () => {
    expect(breathsPerMinute(pacer)).toBe(6);
    expect(pacerPhase(pacer, 0)).toMatchObject({ phase: "inhale", progress: 0, secondsLeft: 60, breaths: 0 });
    expect(pacerPhase(pacer, 2000)).toMatchObject({ phase: "inhale", progress: 0.5 });
    expect(pacerPhase(pacer, 7000)).toMatchObject({ phase: "exhale", progress: 0.5, secondsLeft: 53 });
    expect(pacerPhase(pacer, 10_500)).toMatchObject({ phase: "inhale", breaths: 1 });
    expect(pacerPhase(pacer, 60_000)).toMatchObject({ phase: "done", secondsLeft: 0, breaths: 6 });
    expect(pacerPhase(pacer, -5)).toMatchObject({ phase: "inhale", secondsLeft: 60 });
  });
});

const MATERIAL: AcademyMaterialResponse = {
  id: "check-yourself",
  course: "hrv-basics",
  state: 0,
  title: "Check yourself",
  slug: "check-yourself",
  order: 5,
  kind: "quiz",
  duration_min: 3,
  pro: false,
  available_languages: ["en", "ru"],
  language: "en",
  available: true,
  locked: false,
  html: '<p>Read <a href="/lms/materials/what-is-hrv">this</a> first.</p>',
  parameters: [],
  pacer: null,
  quiz: [
    {
      id: "q1",
      question: "Which index is beat to beat?",
      options: ["rMSSD", "SI"],
      correct: 0,
      explanation: "rMSSD uses successive differences.",
    },
  ],
  answers: null,
};

function renderAt(path: string, respond: (path: string, init?: RequestInit) => Response) {
  configureApiClient({ fetch: async (input, init) => respond(String(input), init) });
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], { initialEntries: [path] });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

describe("academy pages", { timeout: 20_000 }, () => {
  afterEach(async () => {
    cleanup();
    await changeLanguage("en");
  });

  const signedIn = (path: string) => path.startsWith(API.session);

  it("show the course list with Russian plurals of 'N of M lectures'", async () => {
    await changeLanguage("ru");
    renderAt("/lms/courses", (path) => {
      if (signedIn(path)) return json(200, { authenticated: true, user_type: "full" });
      if (path.startsWith(API.academyCourses))
        return json(200, {
          b: {
            id: "b",
            title: "Второй",
            description: "…",
            order: 2,
            cover: null,
            materials_total: 5,
            materials_finished: 2,
          },
          a: {
            id: "a",
            title: "Первый",
            description: "…",
            order: 1,
            cover: null,
            materials_total: 21,
            materials_finished: 1,
          },
        });
      return json(404, { error: "not found", code: "not_found" });
    });
    const first = (await screen.findByRole("link", { name: "Первый" })).closest("li");
    const second = screen.getByRole("link", { name: "Второй" }).closest("li");
    expect(first?.compareDocumentPosition(second as Node)).toBe(Node.DOCUMENT_POSITION_FOLLOWING);
    expect(first?.textContent).toContain("1 из 21 лекции");
    expect(second?.textContent).toContain("2 из 5 лекций");
  });

  it("a visitor reads a material and checks a quiz without saving; the explanation shows", async () => {
    const posts: string[] = [];
    renderAt("/lms/materials/check-yourself", (path, init) => {
      if (signedIn(path)) return json(200, { authenticated: false });
      if (init?.method === "POST") posts.push(path);
      if (path.startsWith(fillPath(API.academyMaterial, { materialId: "check-yourself" })))
        return json(200, MATERIAL);
      if (path.startsWith(fillPath(API.academyCourse, { courseId: "hrv-basics" })))
        return json(200, {
          id: "hrv-basics",
          title: "HRV basics",
          description: "",
          order: 1,
          cover: null,
          materials_total: 1,
          materials_finished: 0,
          materials: [],
        });
      return json(404, { error: "not found", code: "not_found" });
    });
    await screen.findByRole("heading", { name: "Check yourself", level: 2 });
    const check = screen.getByRole("button", { name: "Check answers" });
    expect((check as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("radio", { name: "SI" }));
    fireEvent.click(check);
    expect(await screen.findByText(/successive differences/)).toBeTruthy();
    expect(screen.getByRole("status").textContent).toBe("0 of 1 answer is right");
    expect(posts).toEqual([]);
    expect(screen.getByRole("link", { name: "Sign in to save your progress" })).toBeTruthy();
  });

  it("a material missing in the language shows the spec's text and loads the other language", async () => {
    const asked: string[] = [];
    renderAt("/lms/materials/what-is-hrv", (path) => {
      if (signedIn(path)) return json(200, { authenticated: false });
      if (path.startsWith("/dashboard_api/v1/academy/materials/")) {
        asked.push(path);
        const isRu = path.includes("language=ru");
        return json(200, {
          ...MATERIAL,
          quiz: null,
          kind: "lecture",
          available_languages: ["ru"],
          available: isRu,
          language: isRu ? "ru" : "en",
          html: isRu ? "<p>Текст</p>" : "",
        });
      }
      return json(404, { error: "not found", code: "not_found" });
    });
    expect(await screen.findByText("This material/lecture is not available for the language")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Читать на русском" }));
    expect(await screen.findByText("Текст")).toBeTruthy();
    expect(asked.at(-1)).toContain("language=ru");
  });

  it("links a measurement parameter to the materials that explain it", async () => {
    configureApiClient({
      fetch: async (input) =>
        String(input).startsWith(API.academyParameters)
          ? json(200, {
              rmssd: [{ id: "time-domain", course: "hrv-basics", title: "rMSSD, SDNN and pNN50" }],
            })
          : json(404, { error: "not found", code: "not_found" }),
    });
    const router = createMemoryRouter(
      [
        {
          path: "*",
          element: (
            <>
              <LearnMore parameter="rmssd" />
              <LearnMore parameter="vlf" />
            </>
          ),
        },
      ],
      { initialEntries: ["/measure-details/1"] },
    );
    render(
      <QueryClientProvider client={new QueryClient()}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    const link = await screen.findByRole("link", { name: "rMSSD, SDNN and pNN50" });
    expect(link.getAttribute("href")).toBe("/lms/courses/hrv-basics/time-domain");
    expect(screen.getAllByText(/Learn more/)).toHaveLength(1);
  });
});
