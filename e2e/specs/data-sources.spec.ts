// Data sources (issue 7) in Chromium, in English and Russian: find Apple Health in the catalogue, read
// that connecting it is done in the mobile app only, upload a generated export.zip, watch the progress,
// read the report, check through the API that the values, RR measurements and readings arrived, then
// upload an export.xml of a known day, follow the report's link to the dashboard and find that day's
// steps and heart rate there.
// axe on the list, the entry, the report and the dashboard.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { API, type ChartFlows, IMPORTS_API, type ImportList, type MeasurementList } from "@tonus/contract";
import {
  emptyCounts,
  generateAppleHealthExport,
} from "../../packages/importers/test/synthetic-apple-health.ts";
import { dashboardPage } from "../pages/dashboard.page.ts";
import { addDays, becomeCustomer, localDayOf } from "../support/dashboard.ts";
import { formatNumber, LANGS, type Lang, tr } from "../support/i18n.ts";
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

/**
 * An export.xml of one day (`day`, in the seeded account's zone, UTC+3): steps 1,234 + 766 and heart
 * rate 58 and 72, so the dashboard's day shows 2,000 steps and a mean of 65 bpm; and a caffeine record,
 * a type Tonus does not keep, which the report lists as left out.
 */
function knownDayExport(day: string): Buffer {
  const at = (time: string) => `${day} ${time} +0300`;
  const record = (type: string, unit: string, time: string, value: number) =>
    ` <Record type="HKQuantityTypeIdentifier${type}" sourceName="iPhone" unit="${unit}" startDate="${at(time)}" endDate="${at(time)}" value="${value}"/>`;
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<HealthData locale="en_US">
${record("StepCount", "count", "09:00:00", 1234)}
${record("StepCount", "count", "18:00:00", 766)}
${record("HeartRate", "count/min", "09:05:00", 58)}
${record("HeartRate", "count/min", "18:05:00", 72)}
${record("DietaryCaffeine", "mg", "10:00:00", 95)}
</HealthData>
`);
}

/** A day as the dashboard's table writes it (its `formatDay`). */
const tableDay = (lang: Lang, day: string) =>
  new Intl.DateTimeFormat(lang, { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" }).format(
    Date.parse(`${day}T00:00:00Z`),
  );

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

      // A search that finds nothing says so, leads to the generic CSV import and clears in one press.
      await page.getByLabel(t("sources.search_label")).fill("zzqx");
      await expect(page.getByText(t("sources.no_match", { query: "zzqx" }))).toBeVisible();
      await expect(page.getByRole("link", { name: t("sources.no_match_csv") })).toHaveAttribute(
        "href",
        "/data-sources/csv-file",
      );
      await page.getByRole("button", { name: t("sources.clear_search") }).click();
      await expect(page.getByLabel(t("sources.search_label"))).toHaveValue("");
      await expect(
        page.getByRole("navigation", { name: t("sources.jump_label") }).getByRole("link", {
          name: new RegExp(t("sources.categories.rings")),
        }),
      ).toHaveAttribute("href", "#category-rings");

      await page.getByLabel(t("sources.search_label")).fill("apple");
      await expect(page.getByRole("heading", { level: 2, name: t("sources.categories.rings") })).toHaveCount(
        0,
      );
      await page.getByRole("link", { name: /Apple Health/ }).click();
      await expect(page).toHaveURL(/\/data-sources\/apple-health$/);
      await expect(page.getByText(t("sources.mobile_app_ios"))).toBeVisible();
      await expectNoAxeViolations(page);

      const { buffer, counts } = await exportZip();
      const chooseExport = () =>
        page.getByLabel(t("sources.upload.choose")).setInputFiles({
          name: "export.zip",
          mimeType: "application/zip",
          buffer,
        });
      // On a slow connection the upload can be stopped: nothing is imported, and the page says so.
      const cdp = await page.context().newCDPSession(page);
      const throttle = (uploadThroughput: number) =>
        cdp.send("Network.emulateNetworkConditions", {
          offline: false,
          latency: 0,
          downloadThroughput: -1,
          uploadThroughput,
        });
      await throttle(32 * 1024);
      await chooseExport();
      await page.getByRole("button", { name: t("sources.upload.start") }).click();
      const stop = page.getByRole("button", { name: t("sources.upload.cancel_upload") });
      await expect(stop).toBeFocused();
      await stop.press("Enter");
      const stopped = t("sources.upload.stopped", { name: "export.zip" });
      await expect(page.getByText(stopped)).toBeVisible();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(stopped);
      // The focus reads it; a live region as well would say it twice.
      await expect(page.getByRole("status").filter({ hasText: stopped })).toHaveCount(0);
      await throttle(-1);
      expect(((await (await page.request.get(IMPORTS_API.imports)).json()) as ImportList).results).toEqual(
        [],
      );

      await chooseExport();
      await page.getByRole("button", { name: t("sources.upload.start") }).click();
      // The import's own progress bar shows while it runs, then the report replaces it.
      await expect(page.getByRole("progressbar")).toBeVisible();
      const title = t("sources.report.title_done", { name: "export.zip" });
      await expect(page.getByRole("heading", { level: 3, name: title })).toBeVisible({ timeout: 180_000 });
      const emitted = counts.samples + counts.rr + counts.bp + counts.workouts;
      // The control that started it is gone: the focus follows to the report's title.
      await expect(page.getByRole("heading", { level: 3, name: title })).toBeFocused();
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

    test("sees the imported steps and heart rate of a day on the dashboard", async ({ page, baseURL }) => {
      test.setTimeout(180_000);
      const origin = baseURL ?? "";
      await registerViaApi(page.request, newUser(`sources-dash-${lang}`), origin);
      // The dashboard shows a person's own data on a plan (free users see the demo).
      await becomeCustomer(page.request, origin);
      const day = addDays(localDayOf(new Date().toISOString()), -2);
      await page.goto("/data-sources/apple-health");
      // By keyboard: a file Tonus cannot read is refused, and the refusal takes the focus.
      await page.getByLabel(t("sources.upload.choose")).setInputFiles({
        name: "random.bin",
        mimeType: "application/octet-stream",
        buffer: Buffer.from([0x00, 0x9f, 0x13, 0xfe, 0x00, 0x42, 0x07, 0x88]),
      });
      await page.getByRole("button", { name: t("sources.upload.start") }).press("Enter");
      const refusal = t("sources.upload.refused", {
        name: "random.bin",
        reason: t("sources.reasons.unknown_format"),
      });
      // Read by the focus, not also as an alert (which would say it twice).
      await expect(page.locator(":focus")).toHaveText(refusal);
      await expect(page.getByRole("alert")).toHaveCount(0);
      await page.getByLabel(t("sources.upload.choose")).setInputFiles({
        name: "export.xml",
        mimeType: "text/xml",
        buffer: knownDayExport(day),
      });
      await page.getByRole("button", { name: t("sources.upload.start") }).press("Enter");
      const title = t("sources.report.title_done", { name: "export.xml" });
      await expect(page.getByRole("heading", { level: 3, name: title })).toBeVisible({ timeout: 60_000 });
      const imports = (await (await page.request.get(IMPORTS_API.imports)).json()) as ImportList;
      expect(imports.results[0]?.report).toMatchObject({
        imported: 4,
        ignored: 1,
        duplicates: 0,
        fatal: null,
      });
      const report = page.getByRole("region", { name: title });
      await expect(
        report.getByRole("heading", { level: 4, name: t("sources.report.left_out") }),
      ).toBeVisible();
      await expect(
        report.getByText(t("sources.report.left_out_types", { list: "DietaryCaffeine" })),
      ).toBeVisible();
      await expectNoAxeViolations(page);

      const flows = (await (await page.request.get(API.chartFlows)).json()) as ChartFlows;
      const label = (metric: string) =>
        flows.items.flatMap((i) => i.series).find((s) => s.metric === metric)?.label[lang] ?? metric;
      // The report leads to the dashboard.
      const next = page.getByRole("navigation", { name: t("sources.report.next_label") });
      await expect(next.getByRole("link")).toHaveText([t("sources.report.see_dashboard")]);
      await next.getByRole("link", { name: t("sources.report.see_dashboard") }).click();
      await expect(page).toHaveURL(/\/dashboard$/);
      const dashboard = dashboardPage(page, lang);
      await expect(page.getByRole("heading", { level: 1, name: t("dashboard.title") })).toBeVisible();
      await expect(dashboard.tab("health")).toHaveAttribute("aria-selected", "true");
      await expect(dashboard.preset("last_30_days")).toBeChecked();
      // Heart rate is one of the table's columns from the start; steps are added from the chooser.
      const steps = await dashboard.parameter(label("steps"));
      await steps.check();
      await expect(steps).toBeChecked();
      const table = dashboard.statsTable;
      await expect(table.getByRole("columnheader", { name: new RegExp(`^${label("steps")}`) })).toBeVisible();
      const headers = await table.getByRole("columnheader").allTextContents();
      const column = (metric: string) => headers.findIndex((h) => h.startsWith(label(metric)));
      const row = table
        .getByRole("row")
        .filter({ has: page.getByRole("rowheader", { name: tableDay(lang, day), exact: true }) });
      await expect(row).toHaveCount(1);
      const cells = row.getByRole("cell");
      // Cells follow the row header, so column n is cell n - 1.
      await expect(cells.nth(column("steps") - 1)).toHaveText(formatNumber(lang, 2000, 0));
      await expect(cells.nth(column("heart_rate") - 1)).toHaveText(formatNumber(lang, 65, 0));
      // No other day of the range holds data: the import landed on its own day only.
      await expect(table.getByRole("row")).toHaveCount(2);
      await expectNoAxeViolations(page);

      // The same export again brings nothing new; the first import is listed among the earlier ones.
      await page.goto("/data-sources/apple-health");
      await page.getByLabel(t("sources.upload.choose")).setInputFiles({
        name: "export.xml",
        mimeType: "text/xml",
        buffer: knownDayExport(day),
      });
      await page.getByRole("button", { name: t("sources.upload.start") }).click();
      const again = t("sources.report.title_nothing_new", { name: "export.xml" });
      await expect(page.getByRole("heading", { level: 3, name: again })).toBeVisible({ timeout: 60_000 });
      const history = page.locator("details.import-history");
      await history.getByText(t("sources.history.title")).click();
      await expect(history.getByRole("listitem")).toHaveCount(1);
      await expect(history.getByRole("listitem")).toContainText(title);
      const first = history.locator(".import-history__item");
      await expect(first).toContainText(`${t("sources.report.imported")}: ${formatNumber(lang, 4, 0)}`);
      // Its whole report, one level down, says what it left out.
      await first.getByText(t("sources.history.show_report")).click();
      await expect(first.getByRole("heading", { level: 4, name: title })).toBeVisible();
      await expect(
        first.getByText(t("sources.report.left_out_types", { list: "DietaryCaffeine" })),
      ).toBeVisible();
      await expectNoAxeViolations(page);
    });

    test("names the two unfinished imports, with links, when a third is refused", async ({
      page,
      baseURL,
    }) => {
      await registerViaApi(page.request, newUser(`sources-limit-${lang}`), baseURL ?? "");
      const send = async (slug: string, name: string) => {
        await page.goto(`/data-sources/${slug}`);
        await page.getByLabel(t("sources.upload.choose")).setInputFiles({
          name,
          mimeType: "text/csv",
          buffer: Buffer.from("date,steps\n2024-03-01,8000\n"),
        });
        await page.getByRole("button", { name: t("sources.upload.start") }).press("Enter");
      };
      // Two CSVs left waiting for their columns, each on its own entry's page.
      for (const [slug, name] of [
        ["csv-file", "a.csv"],
        ["oura-ring", "b.csv"],
      ] as const) {
        await send(slug, name);
        await expect(page.getByRole("heading", { name: t("sources.mapping.title", { name }) })).toBeVisible();
      }
      await send("whoop", "c.csv");
      await expect(page.locator(":focus")).toContainText(t("errors.codes.too_many_imports"));
      const waiting = page.getByRole("listitem").filter({ hasText: /^[ab]\.csv:/ });
      await expect(waiting).toHaveText([
        `a.csv: ${t("sources.names.csv-file")} (${t("sources.state.needs_mapping")})`,
        `b.csv: Oura Ring (${t("sources.state.needs_mapping")})`,
      ]);
      await waiting.nth(1).getByRole("link").click();
      await expect(page).toHaveURL(/\/data-sources\/oura-ring$/);
      await expect(
        page.getByRole("heading", { name: t("sources.mapping.title", { name: "b.csv" }) }),
      ).toBeVisible();
      await expectNoAxeViolations(page);

      // Started from the keyboard, the columns step gives its focus to what replaces it, in the end the
      // report's title (Start stays focusable while it waits: disabled, Chromium would drop the focus).
      await page.getByRole("button", { name: t("sources.mapping.start") }).press("Enter");
      const done = t("sources.report.title_done", { name: "b.csv" });
      await expect(page.getByRole("heading", { level: 3, name: done })).toBeFocused({ timeout: 60_000 });
    });

    test("takes a file dragged onto the import panel, the first of several", async ({ page, baseURL }) => {
      await registerViaApi(page.request, newUser(`sources-drop-${lang}`), baseURL ?? "");
      await page.goto("/data-sources/csv-file");
      const panel = page.locator(".import-panel");
      await expect(page.getByText(t("sources.upload.drop_hint"))).toBeVisible();
      // Two files dragged from a folder window, as the browser hands them to the page.
      const dataTransfer = await page.evaluateHandle(() => {
        const list = new DataTransfer();
        list.items.add(new File(["date,steps\n2024-03-01,8000\n"], "dropped.csv", { type: "text/csv" }));
        list.items.add(new File(["date,steps\n"], "second.csv", { type: "text/csv" }));
        return list;
      });
      await panel.dispatchEvent("dragenter", { dataTransfer });
      await expect(panel).toHaveClass(/import-panel--drop/);
      await panel.dispatchEvent("drop", { dataTransfer });
      await expect(panel).not.toHaveClass(/import-panel--drop/);
      // The field names the file, and the status line says the second was left.
      const field = page.getByLabel(t("sources.upload.choose"));
      expect(
        await field.evaluate((input: HTMLInputElement) => Array.from(input.files ?? [], (f) => f.name)),
      ).toEqual(["dropped.csv"]);
      await expect(panel.getByRole("status")).toHaveText(
        t("sources.upload.one_at_a_time", { name: "dropped.csv" }),
      );
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: t("sources.upload.start") }).click();
      await expect(
        page.getByRole("heading", { name: t("sources.mapping.title", { name: "dropped.csv" }) }),
      ).toBeVisible();
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
