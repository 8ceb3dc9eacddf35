// axe (WCAG 2.0/2.1 A and AA rules) finds nothing on the pages of issue 2, in both languages.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "../support/fixtures.ts";
import { LANGS, type Lang, tr } from "../support/i18n.ts";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** Each page with the title (i18n key) that shows it has finished rendering. */
const PUBLIC_PAGES = [
  { path: "/auth/signin", title: "auth.signin.title" },
  { path: "/auth/registration/", title: "auth.registration.title" },
  { path: "/auth/password-recovery", title: "auth.recovery.title" },
  { path: "/privacy-policy", title: "legal.privacy.title" },
  { path: "/terms", title: "legal.terms.title" },
  { path: "/save-data", title: "legal.save_data.title" },
  { path: "/404/", title: "errors.not_found.title" },
  { path: "/500/", title: "errors.server_down.title" },
];
const SIGNED_IN_PAGES = [
  { path: "/user/profile", title: "profile.title", ready: "profile.summary.title" },
  { path: "/user/personal", title: "profile.personal.title", ready: "profile.save" },
  { path: "/user/units", title: "profile.units.title", ready: "profile.units.legend" },
];

type Found = { page: string; rule: string; impact: string | null | undefined; targets: string[] };

async function scan(page: Page, label: string): Promise<Found[]> {
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return results.violations.map((v) => ({
    page: label,
    rule: `${v.id}: ${v.help}`,
    impact: v.impact,
    targets: v.nodes.map((n) => n.target.join(" ")),
  }));
}

async function open(page: Page, lang: Lang, path: string, title: string, ready?: string): Promise<void> {
  await page.goto(path);
  await expect(page.getByRole("heading", { level: 1, name: tr(lang, title), exact: true })).toBeVisible();
  if (ready) await expect(page.getByText(tr(lang, ready), { exact: true }).first()).toBeVisible();
  await expect(page.locator("html")).toHaveAttribute("lang", lang);
}

for (const { lang, browserLocale } of LANGS) {
  test.describe(`accessibility (${lang})`, () => {
    test.use({ locale: browserLocale });

    for (const { path, title } of PUBLIC_PAGES) {
      test(path, async ({ page }) => {
        await open(page, lang, path, title);
        expect(await scan(page, path)).toEqual([]);
      });
    }

    test("/auth/signin with its errors shown", async ({ page }) => {
      await open(page, lang, "/auth/signin", "auth.signin.title");
      await page.getByRole("button", { name: tr(lang, "auth.signin.submit") }).click();
      await expect(page.getByRole("alert")).toHaveText(tr(lang, "auth.email_invalid"));
      const found = await scan(page, "/auth/signin (invalid email)");
      await page.getByLabel(tr(lang, "auth.email")).fill("nobody@example.test");
      await page.getByLabel(tr(lang, "auth.password")).fill("not the password");
      await page.getByRole("button", { name: tr(lang, "auth.signin.submit") }).click();
      await expect(page.getByRole("alert")).toHaveText(tr(lang, "auth.signin.invalid_credentials"));
      found.push(...(await scan(page, "/auth/signin (refused)")));
      expect(found).toEqual([]);
    });

    test.describe("signed in", () => {
      test.use({ storageState: async ({ signedInState }, use) => use(signedInState) });
      for (const { path, title, ready } of SIGNED_IN_PAGES) {
        test(path, async ({ page }) => {
          await open(page, lang, path, title, ready);
          expect(await scan(page, path)).toEqual([]);
        });
      }
    });
  });
}
