// Data sources (issue 7) in Chromium, in English and Russian: find Apple Health in the catalogue, read
// that connecting it is done in the mobile app only, upload a generated export.zip, watch the progress,
// read the report, and check through the API that the values, RR measurements and readings arrived
// (the dashboard that shows them comes later). axe on the list, the entry and the report.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { API, IMPORTS_API, type ImportList, type MeasurementList } from "@tonus/contract";
import {
  emptyCounts,
  generateAppleHealthExport,
} from "../../packages/importers/test/synthetic-apple-health.ts";
import { formatNumber, LANGS, tr } from "../support/i18n.ts";
import { newUser, registerViaApi } from "../support/seed.ts";
import { zipOneFile } from "../support/zip.ts";

async function expectNoAxeViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
}

/** A small synthetic Health export (about 3 MB of XML), zipped as the Health app does. */
async function exportZip() {
  const counts = emptyCounts();
  const parts: Uint8Array[] = [];
  for await (const chunk of generateAppleHealthExport(3_000_000, counts)) parts.push(chunk);
  return { buffer: zipOneFile("apple_health_export/export.xml", Buffer.concat(parts)), counts };
}

for (const { lang, browserLocale } of LANGS) {
  test.describe(`data sources (${lang})`, () => {
    test.use({ locale: browserLocale });
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);

    test("finds Apple Health, uploads an export with progress and reads the report", async ({
      page,
      baseURL,
    }) => {
      test.setTimeout(240_000);
      await registerViaApi(page.request, newUser(`sources-${lang}`), baseURL ?? "");
      await page.goto("/data-sources");
      await expect(page.getByRole("heading", { level: 1, name: t("sources.title") })).toBeVisible();
      await expect(
        page.getByRole("heading", { level: 2, name: t("sources.categories.watches") }),
      ).toBeVisible();
      await expectNoAxeViolations(page);

      await page.getByLabel(t("sources.search_label")).fill("apple");
      await expect(page.getByRole("heading", { level: 2, name: t("sources.categories.rings") })).toHaveCount(
        0,
      );
      await page.getByRole("link", { name: /Apple Health/ }).click();
      await expect(page).toHaveURL(/\/data-sources\/apple-health$/);
      await expect(page.getByText(t("sources.mobile_app_ios"))).toBeVisible();
      await expectNoAxeViolations(page);

      const { buffer, counts } = await exportZip();
      await page.getByLabel(t("sources.upload.choose")).setInputFiles({
        name: "export.zip",
        mimeType: "application/zip",
        buffer,
      });
      await page.getByRole("button", { name: t("sources.upload.start") }).click();
      // The import's own progress bar shows while it runs, then the report replaces it.
      await expect(page.getByRole("progressbar")).toBeVisible();
      const title = t("sources.report.title_done", { name: "export.zip" });
      await expect(page.getByRole("heading", { level: 3, name: title })).toBeVisible({ timeout: 180_000 });
      const emitted = counts.samples + counts.rr + counts.bp + counts.workouts;
      const report = page.getByRole("region", { name: title });
      await expect(report.getByText(t("sources.report.imported"), { exact: true })).toBeVisible();
      await expect(report.getByText(formatNumber(lang, emitted, 0), { exact: true })).toBeVisible();
      await expectNoAxeViolations(page);

      // The data arrived (checked through the API until the dashboard shows it).
      const imports = (await (await page.request.get(IMPORTS_API.imports)).json()) as ImportList;
      expect(imports.results[0]?.report).toMatchObject({
        imported: emitted,
        measurements: counts.rr,
        bp_readings: counts.bp,
      });
      const measurements = (await (await page.request.get(API.measurements)).json()) as MeasurementList;
      expect(measurements.count).toBe(counts.rr);

      // The list now says Apple Health was imported.
      await page.getByRole("link", { name: t("sources.back_to_list") }).click();
      const card = page.getByRole("link", { name: /Apple Health/ });
      await expect(card.getByText(t("sources.state.imported"))).toBeVisible();
    });

    test("shows the mobile app's pages without header or footer", async ({ page, baseURL }) => {
      await registerViaApi(page.request, newUser(`sources-mobile-${lang}`), baseURL ?? "");
      await page.goto("/data-sources-mobile-back/oura-ring");
      // The e2e server configures an Oura connector (a local stand-in): its panel is on the page.
      await expect(page.getByRole("region", { name: t("connectors.title") })).toBeVisible();
      await expect(page.getByRole("banner")).toHaveCount(0);
      await expect(page.getByRole("contentinfo")).toHaveCount(0);
      await page.getByRole("link", { name: t("sources.back_to_list") }).click();
      await expect(page).toHaveURL(/\/data-sources-mobile-back$/);
      await expectNoAxeViolations(page);
    });
  });
}
