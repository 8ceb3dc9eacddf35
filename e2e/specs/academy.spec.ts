// The academy (issue 8) in Chromium, in English and Russian: the sign-in rule for /lms, free material
// links, progress "0 of 5" → "1 of 5", a PRO material locked for a free user, a material missing in
// Russian, the breathing timer, quiz explanations, and axe on the academy pages. The fixture course
// e2e/fixtures/academy/e2e-course is loaded beside the real courses by e2e/support/server.ts.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { LANGS, tr } from "../support/i18n.ts";
import { newUser, registerViaApi } from "../support/seed.ts";

const COURSE = "/lms/courses/e2e-course";
const COURSE_TITLE = { en: "Test course", ru: "Тестовый курс" } as const;

async function signUp(page: Page, baseURL: string | undefined, prefix: string): Promise<void> {
  // page.request shares the browser context's cookies, so the page is signed in afterwards.
  await registerViaApi(page.request, newUser(prefix), baseURL ?? "");
}

async function expectNoAxeViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
}

for (const { lang, browserLocale } of LANGS) {
  test.describe(`academy (${lang})`, () => {
    test.use({ locale: browserLocale });
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);

    test("a visitor is sent to sign-in from /lms but reads a free material by its link", async ({ page }) => {
      await page.goto("/lms");
      await expect(page).toHaveURL(/\/auth\/signin\?destination=%2Flms$/);

      await page.goto("/lms/materials/free-lecture");
      const title = lang === "en" ? "A free lecture" : "Бесплатная лекция";
      await expect(page.getByRole("heading", { level: 2, name: title })).toBeVisible();
      await expect(page.getByRole("link", { name: t("academy.sign_in_to_track") })).toBeVisible();
      await expectNoAxeViolations(page);
    });

    test("finishing a material moves the course counter from 0 to 1 of 5", async ({ page, baseURL }) => {
      await signUp(page, baseURL, `academy-${lang}`);
      await page.goto("/lms/courses");
      const card = page.getByRole("listitem").filter({ hasText: COURSE_TITLE[lang] });
      await expect(card).toContainText(t("academy.progress", { count: 5, finished: 0 }));
      await expectNoAxeViolations(page);

      await card.getByRole("link", { name: COURSE_TITLE[lang] }).click();
      await expect(page).toHaveURL(new RegExp(`${COURSE}$`));
      await page.getByRole("link", { name: t("academy.start") }).click();
      await expect(page).toHaveURL(new RegExp(`${COURSE}/free-lecture$`));
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: t("academy.mark_finished") }).click();
      await expect(page.getByText(t("academy.finished"), { exact: true })).toBeVisible();

      await page.goto("/lms/courses");
      await expect(page.getByRole("listitem").filter({ hasText: COURSE_TITLE[lang] })).toContainText(
        t("academy.progress", { count: 5, finished: 1 }),
      );
      // Finishing again does not count twice.
      await page.goto(`${COURSE}/free-lecture`);
      await expect(page.getByText(t("academy.finished"), { exact: true })).toBeVisible();
      await page.goto(COURSE);
      await expect(page.getByText(t("academy.progress", { count: 5, finished: 1 }))).toBeVisible();
      await expect(page.getByRole("link", { name: t("academy.continue") })).toBeVisible();
    });

    test("a PRO material shows its introduction and locks the rest for a free user", async ({
      page,
      baseURL,
    }) => {
      await signUp(page, baseURL, `academy-pro-${lang}`);
      await page.goto(`${COURSE}/pro-lecture`);
      const intro = lang === "en" ? "The introduction everyone sees." : "Введение, которое видят все.";
      const rest = lang === "en" ? "The locked remainder for customers." : "Закрытая часть для подписчиков.";
      await expect(page.getByText(intro)).toBeVisible();
      await expect(page.getByRole("heading", { level: 3, name: t("academy.locked_title") })).toBeVisible();
      await expect(page.getByText(rest)).toHaveCount(0);
      await expectNoAxeViolations(page);
    });

    test("a material missing in a language says so and offers the other one", async ({ page }) => {
      await page.goto("/lms/materials/english-only");
      if (lang === "en") {
        await expect(page.getByText("This lecture has no Russian version.")).toBeVisible();
        return;
      }
      await expect(page.getByText(t("academy.not_available_language"))).toBeVisible();
      await page.getByRole("button", { name: t("academy.read_in.en") }).click();
      await expect(page.getByText("This lecture has no Russian version.")).toBeVisible();
    });

    test("the breathing exercise runs its timer to the end", async ({ page }) => {
      await page.goto(`${COURSE}/short-breathing`);
      await expect(page.getByText(t("academy.pacer.ready"))).toBeVisible();
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: t("academy.pacer.start") }).click();
      await expect(page.getByText(t("academy.pacer.inhale"), { exact: true })).toBeVisible();
      await expect(page.getByText(t("academy.pacer.exhale"), { exact: true })).toBeVisible();
      await expect(page.getByText(t("academy.pacer.done"))).toBeVisible({ timeout: 10_000 });
      await expect(page.getByText(t("academy.pacer.left", { time: "0:00" }))).toBeVisible();
    });

    test("a quiz shows whether the answer is right and why", async ({ page, baseURL }) => {
      await signUp(page, baseURL, `academy-quiz-${lang}`);
      await page.goto(`${COURSE}/e2e-quiz`);
      await page.getByRole("radio", { name: "rMSSD" }).check();
      await page.getByRole("button", { name: t("academy.quiz.check") }).click();
      await expect(page.getByText(t("academy.quiz.right"))).toBeVisible();
      await expect(
        page.getByRole("status").filter({ hasText: t("academy.quiz.score", { count: 1, score: 1 }) }),
      ).toBeVisible();
      // The answer was saved: it is still there after a reload.
      await page.reload();
      await expect(page.getByRole("radio", { name: "rMSSD" })).toBeChecked();
      await expect(page.getByText(t("academy.quiz.right"))).toBeVisible();
    });
  });
}
