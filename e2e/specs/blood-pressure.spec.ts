// The blood-pressure log (issue 5) in Chromium, in English and Russian: log a reading, share the log,
// open the link signed out in a second browser, revoke it and see it stop working; axe on both pages.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { LANGS, tr } from "../support/i18n.ts";
import { newUser, registerViaApi } from "../support/seed.ts";

async function expectNoAxeViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
}

for (const { lang, browserLocale } of LANGS) {
  test.describe(`blood-pressure log (${lang})`, () => {
    test.use({ locale: browserLocale });
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);

    test("log a reading, share the log, view it signed out, revoke the link", async ({
      page,
      browser,
      baseURL,
    }) => {
      await registerViaApi(page.request, newUser(`bp-${lang}`), baseURL ?? "");
      await page.goto("/blood-pressure");
      await expect(page.getByRole("heading", { level: 1, name: t("bp.title") })).toBeVisible();
      await expect(page.getByText(t("bp.empty"))).toBeVisible();

      // A refused reading says why and sends nothing.
      await page.getByLabel(t("bp.form.systolic")).fill("80");
      await page.getByLabel(t("bp.form.diastolic")).fill("90");
      await page.getByRole("button", { name: t("bp.add") }).click();
      await expect(page.getByText(t("bp.errors.systolic_above"))).toBeVisible();

      await page.getByLabel(t("bp.form.systolic")).fill("145");
      await page.getByLabel(t("bp.form.diastolic")).fill("85");
      await page.getByLabel(t("bp.form.pulse")).fill("70");
      await page.getByRole("button", { name: t("bp.add") }).click();
      await expect(page.getByRole("cell", { name: "145/85" })).toBeVisible();
      await expect(page.getByRole("cell", { name: t("bp.category.isolated_systolic_1") })).toBeVisible();
      await expectNoAxeViolations(page);

      await page.getByRole("button", { name: t("bp.share.create") }).click();
      const address = await page.getByLabel(t("bp.share.address")).inputValue();
      expect(address).toMatch(/\/share-bp-log#tsh_[A-Za-z0-9_-]{43}$/);

      const visitor = await browser.newContext({ locale: browserLocale });
      const view = await visitor.newPage();
      await view.goto(address);
      await expect(view.getByRole("cell", { name: "145/85" })).toBeVisible();
      await expect(view.getByText(t("share.banner.text"))).toBeVisible();
      await expect(view.getByRole("button", { name: t("bp.delete") })).toHaveCount(0);
      await expectNoAxeViolations(view);

      // The owner sees it was opened, then revokes it; the visitor's next look finds nothing.
      await page.reload();
      await expect(page.getByText(new RegExp(t("bp.share.last_opened", { when: "" }).trim()))).toBeVisible();
      await page.getByRole("button", { name: t("bp.share.revoke") }).click();
      await expect(page.getByRole("button", { name: t("bp.share.create") })).toBeVisible();
      await view.reload();
      await expect(view.getByText(t("share.unavailable"))).toBeVisible();
      await expect(view.getByRole("cell", { name: "145/85" })).toHaveCount(0);
      await visitor.close();
    });
  });
}
