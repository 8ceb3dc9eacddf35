// The blood-pressure log (issue 5) in Chromium, in English and Russian: log a reading, share the log,
// open the link signed out in a second browser, revoke it and see it stop working; axe on both pages.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { API } from "@tonus/contract";
import { LANGS, tr } from "../support/i18n.ts";
import { csrfHeaders, newUser, registerViaApi } from "../support/seed.ts";
import { openSharePage } from "../support/share.ts";

async function expectNoAxeViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
}

for (const { lang, browserLocale } of LANGS) {
  test.describe(`blood-pressure log (${lang})`, () => {
    test.use({ locale: browserLocale });
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
    const logTable = (p: Page) => p.getByRole("table", { name: t("bp.table.caption") });
    const averagesTable = (p: Page, period: "day" | "week" | "month") =>
      p.getByRole("table", { name: new RegExp(t(`bp.averages.table_caption_${period}`, { range: ".+" })) });

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
      await expect(logTable(page).getByRole("cell", { name: "145/85" })).toBeVisible();
      await expect(
        logTable(page).getByRole("cell", { name: t("bp.category.isolated_systolic_1") }),
      ).toBeVisible();
      // The averages of the new reading, by day, with the chart.
      await expect(averagesTable(page, "day").getByRole("cell", { name: "145/85" })).toBeVisible();
      await expectNoAxeViolations(page);

      await page.getByRole("button", { name: t("bp.share.create") }).click();
      const address = await page.getByLabel(t("bp.share.address")).inputValue();
      expect(address).toMatch(/\/share-bp-log#tsh_[A-Za-z0-9_-]{43}$/);

      const visitor = await browser.newContext({ locale: browserLocale });
      const view = await visitor.newPage();
      const thirdParty = await openSharePage(view, address);
      await expect(logTable(view).getByRole("cell", { name: "145/85" })).toBeVisible();
      // The doctor sees the averages and the chart too, read through the link's token.
      await expect(averagesTable(view, "day").getByRole("cell", { name: "145/85" })).toBeVisible();
      await expect(view.locator(".bp-chart canvas").first()).toBeVisible();
      expect(thirdParty()).toEqual([]);
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
      await expect(logTable(view)).toHaveCount(0);
      await visitor.close();
    });

    test("chart and averages by period, edit and delete a reading, print for a doctor", async ({
      page,
      baseURL,
    }) => {
      await registerViaApi(page.request, newUser(`bp-avg-${lang}`), baseURL ?? "");
      const headers = await csrfHeaders(page.request, baseURL ?? "");
      // Mid-day a few days ago, so the days are the same in every zone the browser may be in.
      const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000 - 3_600_000).toISOString();
      for (const [n, systolic, diastolic, pulse] of [
        [2, 130, 80, 60],
        [4, 140, 90, 70],
        [12, 120, 70, 65],
      ] as const) {
        const res = await page.request.post(API.bpReadings, {
          data: { systolic, diastolic, pulse, measured_at: daysAgo(n), time_zone: "UTC" },
          headers,
        });
        expect(res.status()).toBe(201);
      }
      await page.goto("/blood-pressure");
      await expect(logTable(page).getByRole("row")).toHaveCount(4);

      // The last 7 days hold two readings, the last 30 all three; each with its category.
      const week = page.locator(".bp-average").filter({ hasText: t("bp.last_7_days") });
      await expect(week.getByText("135/85")).toBeVisible();
      await expect(week.getByText(t("bp.readings_count", { count: 2 }))).toBeVisible();
      await expect(week.getByText(t("bp.category.high_normal"))).toBeVisible();
      const month = page.locator(".bp-average").filter({ hasText: t("bp.last_30_days") });
      await expect(month.getByText("130/80")).toBeVisible();
      await expect(
        page.getByRole("img", { name: new RegExp(t("bp.averages.chart_label", { range: ".+" })) }),
      ).toBeVisible();
      await expect(page.locator(".bp-chart canvas").first()).toBeVisible();
      await expect(averagesTable(page, "day").locator("tbody tr")).toHaveCount(3);
      await page.getByRole("radio", { name: t("bp.averages.period.month") }).check();
      await expect(averagesTable(page, "month")).toBeVisible();
      await page.getByLabel(t("bp.averages.range_label")).selectOption("last_year");
      await expect(averagesTable(page, "month").locator("tbody tr").first()).toBeVisible();
      await expectNoAxeViolations(page);

      // Edit the 140/90 reading: the log and the averages follow.
      const row = logTable(page).getByRole("row").filter({ hasText: "140/90" });
      await row.getByRole("button", { name: new RegExp(t("bp.edit_label", { when: ".+" })) }).click();
      await expect(page.getByRole("heading", { name: t("bp.edit_title") })).toBeVisible();
      await page.getByLabel(t("bp.form.systolic")).fill("150");
      await page.getByRole("button", { name: t("bp.save") }).click();
      await expect(logTable(page).getByRole("cell", { name: "150/90" })).toBeVisible();
      await expect(week.getByText("140/85")).toBeVisible();

      // Delete the oldest one; once Undo has passed it is gone from the server too.
      const deleted = page.waitForResponse((r) => r.request().method() === "DELETE" && r.ok());
      await logTable(page)
        .getByRole("row")
        .filter({ hasText: "120/70" })
        .getByRole("button", { name: new RegExp(t("bp.delete_label", { when: ".+" })) })
        .click();
      await expect(page.getByText(t("bp.deleted"))).toBeVisible();
      await deleted;
      await page.reload();
      await expect(logTable(page).getByRole("row")).toHaveCount(3);
      await expect(logTable(page).getByRole("cell", { name: "120/70" })).toHaveCount(0);
      await expect(month.getByText(t("bp.readings_count", { count: 2 }))).toBeVisible();

      // The print view: the log and the averages, without the form, the controls and the chart.
      await page.emulateMedia({ media: "print" });
      await expect(logTable(page)).toBeVisible();
      await expect(averagesTable(page, "day")).toBeVisible();
      await expect(page.locator(".bp-chart")).toBeHidden();
      await expect(page.getByLabel(t("bp.form.systolic"))).toBeHidden();
      await expect(page.getByRole("button", { name: t("bp.print") })).toBeHidden();
      const pdf = await page.pdf({ format: "A4" });
      expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    });
  });
}
