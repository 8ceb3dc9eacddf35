// A measurement's notes (feel, mood, tags, labels) edited afterwards, and the measurement shared by link (issue 4): the owner creates the link on the detail page, a second
// browser opens it signed out and sees that one measurement under the visitor banner, the owner revokes
// it and the link stops working; axe on the shared page. English and Russian.
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { API } from "@tonus/contract";
import { LANGS, tr } from "../support/i18n.ts";
import { csrfHeaders, newUser, registerViaApi } from "../support/seed.ts";
import { openSharePage } from "../support/share.ts";

/** Two minutes of a calm rhythm: 150 intervals around 800 ms with breathing-like variation. */
const RR = Array.from({ length: 150 }, (_, i) => Math.round(800 + 40 * Math.sin(i / 2.5) + ((i * 37) % 11)));

for (const { lang, browserLocale } of LANGS) {
  test.describe(`shared measurement (${lang})`, () => {
    test.use({ locale: browserLocale });
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);

    test("share one measurement, view it signed out, revoke it", async ({ page, browser, baseURL }) => {
      const origin = baseURL ?? "";
      await registerViaApi(page.request, newUser(`share-m-${lang}`), origin);
      const created = await page.request.post(API.measurements, {
        data: {
          client_id: crypto.randomUUID(),
          rr_ms: RR,
          source: "file",
          started_at: new Date(Date.now() - 3600_000).toISOString(),
          time_zone: "Europe/Moscow",
        },
        headers: await csrfHeaders(page.request, origin),
      });
      expect(created.status(), await created.text()).toBe(201);
      const { id } = (await created.json()) as { id: string };

      await page.goto(`/measure-details/${id}`);
      // Notes are editable afterwards and kept.
      await page.getByLabel(t("measure.save.tags")).fill("morning, coffee");
      await page
        .getByLabel(t("measure.save.labels"), { exact: true })
        .fill("after night shift,  before exam");
      await page.getByRole("button", { name: t("measure.edit.save") }).click();
      await expect(page.getByText(t("measure.edit.saved"))).toBeVisible();
      await page.reload();
      await expect(page.getByLabel(t("measure.save.tags"))).toHaveValue("morning, coffee");
      await expect(page.getByLabel(t("measure.save.labels"), { exact: true })).toHaveValue(
        "after night shift, before exam",
      );
      await page.getByRole("button", { name: t("measure.share.create") }).click();
      const address = await page.getByLabel(t("measure.share.address")).inputValue();
      expect(address).toMatch(/\/share-measurement#tsh_[A-Za-z0-9_-]{43}$/);

      const visitor = await browser.newContext({ locale: browserLocale });
      const view = await visitor.newPage();
      const thirdParty = await openSharePage(view, address);
      await expect(view.getByText(t("share.banner.text"))).toBeVisible();
      await expect(view.getByTestId("score-energy")).toBeVisible();
      expect(thirdParty()).toEqual([]);
      await expect(view.getByRole("listitem").filter({ hasText: /^coffee$/ })).toBeVisible();
      // Labels are the owner's own notes: not on the shared view.
      await expect(view.getByText("after night shift")).toHaveCount(0);
      await expect(view.getByRole("button", { name: t("measure.detail.delete") })).toHaveCount(0);
      const axe = await new AxeBuilder({ page: view }).withTags(["wcag2a", "wcag2aa"]).analyze();
      expect(axe.violations.map((v) => v.id)).toEqual([]);

      await page.reload();
      await expect(
        page.getByText(new RegExp(t("measure.share.last_opened", { when: "" }).trim())),
      ).toBeVisible();
      await page.getByRole("button", { name: t("measure.share.revoke") }).click();
      await expect(page.getByRole("button", { name: t("measure.share.create") })).toBeVisible();
      await view.reload();
      await expect(view.getByText(t("share.unavailable"))).toBeVisible();
      await visitor.close();
    });
  });
}
