// The charts dashboard (issue 5) in Chromium, in English and Russian: a visitor and a free user see the
// demo with locked charts and upgrade prompts; a customer (bought through the sandbox provider) adds,
// moves and removes charts, switches periods (days, weeks, months), filters by tag (on My health data
// only), hits the 8-parameter limit, pages and exports the table, types a value in and sets which
// source counts; logout puts the date picker back to 7 days, also after a reload and the next sign-in;
// a customer without recent data reads "No data for the last 12 days". axe on both tabs and the
// add-chart dialog. Nothing is mocked: the e2e server runs the real API with BILLING_MODE=sandbox.
import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { API, type ChartFlows, type DashboardLayout } from "@tonus/contract";
import { dashboardPage } from "../pages/dashboard.page.ts";
import { addDays, becomeCustomer, localDayOf, seedDashboardData, weekOf } from "../support/dashboard.ts";
import { LANGS, tr } from "../support/i18n.ts";
import { csrfHeaders, newUser, registerViaApi } from "../support/seed.ts";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

async function expectNoAxeViolations(page: Page, label: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  expect(
    results.violations.map((v) => `${label} ${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`),
  ).toEqual([]);
}

async function readJson<T>(page: Page, path: string): Promise<T> {
  const res = await page.request.get(path);
  expect(res.ok(), `${path} ${res.status()}`).toBe(true);
  return (await res.json()) as T;
}

for (const { lang, browserLocale } of LANGS) {
  test.describe(`dashboard (${lang})`, () => {
    test.use({ locale: browserLocale });
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);

    test("a visitor and a free user see the demo dashboard with locked charts", async ({ page, baseURL }) => {
      // No script errors and no content-security-policy violations along the way (RELIABILITY H2).
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
      await page.exposeFunction("reportCspViolation", (text: string) => problems.push(`csp: ${text}`));
      await page.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (event) => {
          const report = (window as unknown as { reportCspViolation: (text: string) => void })
            .reportCspViolation;
          report(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}`);
        });
      });
      const dashboard = dashboardPage(page, lang);
      await dashboard.open();
      await expect(dashboard.demoBanner).toBeVisible();
      await expect(
        dashboard.demoBanner.getByRole("link", { name: t("dashboard.upgrade.action") }),
      ).toHaveAttribute("href", "/payment");
      await expect(
        dashboard.demoBanner.getByRole("link", { name: t("dashboard.demo.register") }),
      ).toBeVisible();
      // The demo's charts are drawn from its data, with the opening range of 30 days.
      await expect(dashboard.preset("last_30_days")).toBeChecked();
      const flows = await readJson<ChartFlows>(page, API.chartFlows);
      expect(flows.demo).toBe(true);
      const title = (id: string) => flows.items.find((i) => i.id === id)?.title[lang] ?? id;
      const stress = dashboard.chart(title("stress"));
      await expect(dashboard.coverage(title("stress"))).toHaveText(
        dashboard.plural("dashboard.chart.coverage_day"),
      );
      await expect(stress.locator("canvas").first()).toBeAttached();
      await expect(
        stress.getByRole("img", { name: t("dashboard.chart.image_label", { title: title("stress") }) }),
      ).toBeVisible();
      // Editing is PRO: the table's parameters are locked on My health data.
      await expect(page.getByText(t("dashboard.table.locked"))).toBeVisible();
      await expectNoAxeViolations(page, "health");

      // The tablist works from the keyboard.
      await dashboard.tab("health").focus();
      await page.keyboard.press("ArrowRight");
      await expect(dashboard.tab("graphs")).toHaveAttribute("aria-selected", "true");
      await expect(dashboard.tab("graphs")).toBeFocused();
      await expect(page).toHaveURL(/tab=graphs/);
      await expect(page.getByText(t("dashboard.graphs.locked"))).toBeVisible();
      await expect(dashboard.addChartButton).toHaveCount(0);
      await expect(dashboard.chartButton("remove", title("stress"))).toHaveCount(0);
      const locked = dashboard.chart(title("weight"));
      await expect(locked.getByText(t("dashboard.locked.text", { title: title("weight") }))).toBeVisible();
      await expect(locked.getByRole("link", { name: t("dashboard.upgrade.action") })).toHaveAttribute(
        "href",
        "/payment",
      );
      await expect(page.getByText(t("dashboard.manual.locked"))).toBeVisible();
      await expect(dashboard.coverage(title("sleep"))).toHaveText(
        dashboard.plural("dashboard.chart.coverage_day"),
      );
      await expectNoAxeViolations(page, "graphs");

      // Signed in without a plan: still the demo (no sign-up button now), never a sign-in page.
      await registerViaApi(page.request, newUser(`dash-free-${lang}`), baseURL ?? "");
      await dashboard.open("graphs");
      await expect(dashboard.demoBanner).toBeVisible();
      await expect(
        dashboard.demoBanner.getByRole("link", { name: t("dashboard.demo.register") }),
      ).toHaveCount(0);
      await expect(page.getByText(t("dashboard.graphs.locked"))).toBeVisible();
      expect(problems).toEqual([]);
    });

    test("a customer arranges charts, filters, hits the table limit, exports and types a value in", async ({
      page,
      baseURL,
    }) => {
      test.setTimeout(180_000);
      const origin = baseURL ?? "";
      const user = newUser(`dash-${lang}`);
      await registerViaApi(page.request, user, origin);
      await becomeCustomer(page.request, origin);
      const days = await seedDashboardData(page.request, origin);
      // Heart rate typed in on a measured day: two sources of one metric, so the source order matters.
      const typedAt = new Date(Date.now() - 86_400_000);
      typedAt.setUTCHours(9, 0, 0, 0);
      const typed = await page.request.post(API.chartValues, {
        data: {
          client_id: crypto.randomUUID(),
          metric: "heart_rate",
          value: 71,
          unit: "bpm",
          at: typedAt.toISOString(),
        },
        headers: await csrfHeaders(page.request, origin),
      });
      expect(typed.status()).toBe(201);
      const flows = await readJson<ChartFlows>(page, API.chartFlows);
      expect(flows.demo).toBe(false);
      const title = (id: string) => flows.items.find((i) => i.id === id)?.title[lang] ?? id;
      const label = (metric: string) =>
        flows.items.flatMap((i) => i.series).find((s) => s.metric === metric)?.label[lang] ?? metric;

      const dashboard = dashboardPage(page, lang);
      await dashboard.open();
      await expect(dashboard.demoBanner).toHaveCount(0);
      const measured = new Set(days.measurements).size;
      const coverage = (withData: number, count: number, period = "day") =>
        t(`dashboard.chart.coverage_${period}`, { withData, total: count, count });
      await expect(dashboard.coverage(title("stress"))).toHaveText(coverage(measured, 30));

      // Tags: only measurements with every chosen tag count (two carry "coffee").
      await dashboard.tag("coffee").check();
      await expect(dashboard.coverage(title("stress"))).toHaveText(coverage(2, 30));
      await dashboard.tag("morning").check();
      await expect(dashboard.coverage(title("stress"))).toHaveText(coverage(1, 30));
      await page.getByRole("button", { name: t("dashboard.tags.clear") }).click();
      await expect(dashboard.coverage(title("stress"))).toHaveText(coverage(measured, 30));

      // Periods: weeks start on Monday in Russian, Sunday in English (spec §9).
      const weekStart = lang === "ru" ? 1 : 0;
      const today = localDayOf(new Date().toISOString());
      const allWeeks = new Set(Array.from({ length: 30 }, (_, i) => weekOf(addDays(today, -i), weekStart)));
      const measuredWeeks = new Set(days.measurements.map((d) => weekOf(d, weekStart)));
      await dashboard.period("week").check();
      await expect(dashboard.coverage(title("stress"))).toHaveText(
        coverage(measuredWeeks.size, allWeeks.size, "week"),
      );
      await expect(page.getByRole("table", { name: t("dashboard.table.caption_week") })).toBeVisible();
      // Months: the calendar months the 30 days touch, those with a measurement counted.
      const allMonths = new Set(Array.from({ length: 30 }, (_, i) => addDays(today, -i).slice(0, 7)));
      const measuredMonths = new Set(days.measurements.map((d) => d.slice(0, 7)));
      await dashboard.period("month").check();
      await expect(dashboard.coverage(title("stress"))).toHaveText(
        coverage(measuredMonths.size, allMonths.size, "month"),
      );
      await expect(page.getByRole("table", { name: t("dashboard.table.caption_month") })).toBeVisible();
      await dashboard.period("day").check();
      await expect(dashboard.statsTable).toBeVisible();
      await expectNoAxeViolations(page, "health (customer)");

      // The table takes 8 parameters: three more fit, a ninth is refused with the spec's message.
      for (const metric of ["weight", "bp_systolic", "steps"])
        await (await dashboard.parameter(label(metric))).check();
      await expect(page.getByRole("columnheader", { name: new RegExp(`^${label("weight")}`) })).toBeVisible();
      const ninth = await dashboard.parameter(label("sleep"));
      await ninth.click();
      await expect(page.getByRole("alert").filter({ hasText: t("errors.codes.table_limit") })).toBeVisible();
      await expect(ninth).not.toBeChecked();
      await expect
        .poll(async () => (await readJson<DashboardLayout>(page, API.chartLayout)).table_parameters.length)
        .toBe(8);

      // Export: the server's CSV for the same range, headers in the page's language, one row per day.
      const download = page.waitForEvent("download");
      await dashboard.exportLink.click();
      const file = await (await download).path();
      const csv = fs.readFileSync(file, "utf8").replace(/^\uFEFF/, "");
      const [header, ...rows] = csv.trim().split(/\r?\n/);
      expect(header).toContain(lang === "ru" ? "Начало периода" : "Period starting");
      expect(header).toContain(label("weight"));
      const expected = new Set([...days.measurements, ...days.weights, ...days.bp]);
      expect(rows.map((r) => r.split(",")[0]).sort()).toEqual([...expected].sort());

      // Paging: four more days of steps make 14 rows, two pages of 10.
      expect(expected.size).toBe(10);
      const stepHeaders = await csrfHeaders(page.request, origin);
      for (const daysAgo of [7, 8, 10, 11]) {
        const at = new Date(Date.now() - daysAgo * 86_400_000);
        at.setUTCHours(9, 0, 0, 0);
        const res = await page.request.post(API.chartValues, {
          data: {
            client_id: crypto.randomUUID(),
            metric: "steps",
            value: 4000 + daysAgo,
            unit: "steps",
            at: at.toISOString(),
          },
          headers: stepHeaders,
        });
        expect(res.status()).toBe(201);
      }
      await page.reload();
      const pager = page.getByRole("navigation", { name: t("dashboard.table.pages_label") });
      await expect(pager.getByText(t("dashboard.table.page", { page: 1, pages: 2 }))).toBeVisible();
      await expect(dashboard.statsTable.locator("tbody tr")).toHaveCount(10);
      await expect(pager.getByRole("button", { name: t("dashboard.table.previous") })).toBeDisabled();
      await pager.getByRole("button", { name: t("dashboard.table.next") }).click();
      await expect(pager.getByText(t("dashboard.table.page", { page: 2, pages: 2 }))).toBeVisible();
      await expect(dashboard.statsTable.locator("tbody tr")).toHaveCount(4);
      await expect(pager.getByRole("button", { name: t("dashboard.table.next") })).toBeDisabled();
      await pager.getByRole("button", { name: t("dashboard.table.previous") }).click();
      await expect(pager.getByText(t("dashboard.table.page", { page: 1, pages: 2 }))).toBeVisible();
      await expect(dashboard.tag("coffee")).toBeVisible();

      // My graphs: add a chart from the dialog (axe with it open), move it up and down, remove it with
      // undo. Tag filters belong to My health data only (spec §5).
      await dashboard.tab("graphs").click();
      await expect(page.getByRole("group", { name: t("dashboard.tags.legend") })).toHaveCount(0);
      const water = title("water");
      await dashboard.addChartButton.click();
      await expect(dashboard.addDialog).toBeVisible();
      await expectNoAxeViolations(page, "add-chart dialog");
      await page.keyboard.press("Escape");
      await expect(dashboard.addDialog).toBeHidden();
      await dashboard.addChart(water);
      await expect(dashboard.chart(water)).toBeVisible();
      await expect(dashboard.chart(water).getByText(t("dashboard.no_data_period"))).toBeVisible();
      const before = await dashboard.chartOrder();
      expect(before.at(-1)).toBe(water);
      await dashboard.chartButton("move_up", water).click();
      await expect.poll(() => dashboard.chartOrder()).toEqual([...before.slice(0, -2), water, before.at(-2)]);
      const stored = await readJson<DashboardLayout>(page, API.chartLayout);
      expect(stored.charts.map((c) => c.item).slice(-2)).toEqual(["water", "weight"]);
      await dashboard.chartButton("move_down", water).click();
      await expect.poll(() => dashboard.chartOrder()).toEqual(before);
      await expect
        .poll(async () =>
          (await readJson<DashboardLayout>(page, API.chartLayout)).charts.map((c) => c.item).slice(-2),
        )
        .toEqual(["weight", "water"]);
      // At the bottom, "Move down" is off.
      await expect(dashboard.chartButton("move_down", water)).toBeDisabled();

      await dashboard.chartButton("remove", water).click();
      await expect(
        page.getByRole("status").filter({ hasText: t("dashboard.graphs.removed", { title: water }) }),
      ).toBeVisible();
      await expect(page.getByRole("button", { name: t("dashboard.undo") })).toBeFocused();
      await page.getByRole("button", { name: t("dashboard.undo") }).click();
      await expect(dashboard.chart(water)).toBeVisible();
      await dashboard.chartButton("remove", water).click();
      await expect(dashboard.chart(water)).toHaveCount(0);
      // The removal is stored once the undo time has passed.
      await expect
        .poll(
          async () => (await readJson<DashboardLayout>(page, API.chartLayout)).charts.map((c) => c.item),
          {
            timeout: 20_000,
          },
        )
        .not.toContain("water");
      // Which source counts: heart rate comes from measurements first by default; the person puts
      // their own typed values first, and the server keeps that order.
      const heartRate = flows.items.find((i) => i.id === "heart_rate");
      const sourceName = (key: string) =>
        heartRate?.sources.find((s) => s.source.key === key)?.source.name[lang] ?? key;
      const priority = page.getByRole("region", { name: t("dashboard.priority.title") });
      const hrSources = priority.getByRole("list", {
        name: t("dashboard.priority.list_label", { title: title("heart_rate") }),
      });
      await expect(hrSources.getByRole("listitem")).toHaveCount(2);
      await expect(hrSources.getByRole("listitem").first()).toContainText(sourceName("measurement"));
      await expectNoAxeViolations(page, "graphs (customer)");
      await priority
        .getByRole("button", {
          name: t("dashboard.priority.move_up_named", {
            source: sourceName("manual"),
            title: title("heart_rate"),
          }),
        })
        .click();
      await expect(hrSources.getByRole("listitem").first()).toContainText(sourceName("manual"));
      await expect
        .poll(async () => (await readJson<DashboardLayout>(page, API.chartLayout)).source_priority.heart_rate)
        .toEqual(["manual", "measurement"]);
      await priority
        .getByRole("button", { name: t("dashboard.priority.reset_named", { title: title("heart_rate") }) })
        .click();
      await expect(hrSources.getByRole("listitem").first()).toContainText(sourceName("measurement"));

      // Typing a value in: checked like the server does, stored in SI, shown in the person's units.
      const manual = page.getByRole("region", { name: t("dashboard.manual.title") });
      await manual.getByLabel(t("dashboard.manual.value")).fill("5000");
      await manual.getByRole("button", { name: t("dashboard.manual.submit") }).click();
      await expect(manual.getByText(dashboard.pattern("dashboard.manual.errors.range"))).toBeVisible();
      await manual.getByLabel(t("dashboard.manual.unit")).selectOption("lb");
      await manual.getByLabel(t("dashboard.manual.value")).fill(lang === "ru" ? "180,6" : "180.6");
      await manual.getByRole("button", { name: t("dashboard.manual.submit") }).click();
      const kg = new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(81.9);
      await expect(manual.getByRole("listitem").filter({ hasText: kg }).first()).toBeVisible();

      // Logout clears the charts and puts the date picker back to the last 7 days (spec §4).
      await dashboard.preset("last_3_months").check();
      await expect(dashboard.preset("last_3_months")).toBeChecked();
      // Within the same page, as a person would: the menu's "Log out", then back to the dashboard.
      await page.setViewportSize({ width: 600, height: 900 });
      await page.getByRole("button", { name: t("nav.open_menu") }).click();
      await page
        .getByRole("navigation", { name: t("nav.mobile_label") })
        .getByRole("link", { name: t("nav.logout") })
        .click();
      await expect(page).toHaveURL(/\/auth\/signin/);
      await page.goBack();
      await expect(page).toHaveURL(/\/dashboard/);
      await expect(page.getByRole("heading", { level: 1, name: t("dashboard.title") })).toBeVisible();
      await expect(dashboard.demoBanner).toBeVisible();
      await expect(dashboard.preset("last_7_days")).toBeChecked();
      // The reset outlives a fresh page load and greets the next sign-in…
      await page.reload();
      await expect(dashboard.preset("last_7_days")).toBeChecked();
      const signin = await page.request.post(API.signin, {
        data: { email: user.email, password: user.password },
        headers: await csrfHeaders(page.request, origin),
      });
      expect(signin.ok(), await signin.text()).toBe(true);
      await page.goto("/dashboard");
      await expect(page.getByRole("heading", { level: 1, name: t("dashboard.title") })).toBeVisible();
      await expect(dashboard.demoBanner).toHaveCount(0);
      await expect(dashboard.preset("last_7_days")).toBeChecked();
      // …until the person picks a range: then a new page load opens on the last 30 days again.
      await dashboard.preset("last_3_months").check();
      await page.reload();
      await expect(dashboard.preset("last_30_days")).toBeChecked();
    });

    test("a customer without recent data is told so and where data comes from (spec §8)", async ({
      page,
      baseURL,
    }) => {
      const origin = baseURL ?? "";
      await registerViaApi(page.request, newUser(`dash-empty-${lang}`), origin);
      await becomeCustomer(page.request, origin);
      const dashboard = dashboardPage(page, lang);
      await dashboard.open();
      const notice = page.getByRole("status").filter({ hasText: t("dashboard.no_data_12_days") });
      await expect(notice).toBeVisible();
      await expect(notice.getByRole("link", { name: t("dashboard.no_data.measure") })).toBeVisible();
      await expect(notice.getByRole("link", { name: t("dashboard.no_data.sources") })).toBeVisible();
      await expectNoAxeViolations(page, "no data");
      // A value 20 days old is not recent either: the notice says which day the newest data is from.
      const at = new Date(Date.now() - 20 * 86_400_000);
      at.setUTCHours(9, 0, 0, 0);
      const res = await page.request.post(API.chartValues, {
        data: {
          client_id: crypto.randomUUID(),
          metric: "weight",
          value: 70,
          unit: "kg",
          at: at.toISOString(),
        },
        headers: await csrfHeaders(page.request, origin),
      });
      expect(res.status()).toBe(201);
      await page.reload();
      await expect(notice).toBeVisible();
      await expect(notice.getByText(dashboard.pattern("dashboard.no_data.last_day"))).toBeVisible();
      // One click shows the 30 days up to that day, in the picker's own date fields too.
      await notice
        .getByRole("button", { name: tr(lang, "dashboard.no_data.show_last", { count: 30 }) })
        .click();
      await expect(page.getByRole("radio", { name: t("dashboard.range.presets.custom") })).toBeChecked();
      await expect(page.getByLabel(t("dashboard.range.end"))).toHaveValue(at.toISOString().slice(0, 10));
      // The notice leads to typing values in.
      await notice.getByRole("button", { name: t("dashboard.no_data.manual") }).click();
      await expect(page.getByRole("region", { name: t("dashboard.manual.title") })).toBeVisible();
    });
  });
}
