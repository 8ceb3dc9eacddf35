// Shared steps of the measurement specs (issue 4): sign-up, the save form after a recording, the
// saved measurement read back through the API, and axe.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";
import { API, type MeasurementDetail } from "@tonus/contract";
import { type Lang, tr } from "./i18n.ts";
import { newUser, registerViaApi } from "./seed.ts";

export async function expectNoAxeViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
}

export async function signUp(page: Page, baseURL: string | undefined, prefix: string): Promise<void> {
  await registerViaApi(page.request, newUser(prefix), baseURL ?? "");
}

/** The measurement the detail page shows, read through the API. */
export async function readDetail(page: Page): Promise<MeasurementDetail> {
  const id = decodeURIComponent(new URL(page.url()).pathname.split("/").filter(Boolean).at(-1) ?? "");
  const res = await page.request.get(API.measurement.replace(":id", encodeURIComponent(id)));
  expect(res.ok()).toBe(true);
  return (await res.json()) as MeasurementDetail;
}

/** Fills feel, mood, a tag (and labels), saves, and waits for the detail page (its path contains measure-details). */
export async function saveAfterRecording(
  page: Page,
  lang: Lang,
  tag: string,
  recordingTimeoutMs = 30_000,
  labels?: string,
): Promise<void> {
  const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
  await expect(page.getByRole("heading", { level: 2, name: t("measure.save.title") })).toBeVisible({
    timeout: recordingTimeoutMs,
  });
  await page
    .getByRole("group", { name: t("measure.save.feel") })
    .getByLabel(t("measure.save.scale_4"), { exact: true })
    .check();
  await page
    .getByRole("group", { name: t("measure.save.mood") })
    .getByLabel(t("measure.save.scale_3"), { exact: true })
    .check();
  await page.getByLabel(t("measure.save.tags")).fill(tag);
  if (labels !== undefined) await page.getByLabel(t("measure.save.labels"), { exact: true }).fill(labels);
  await page.getByRole("button", { name: t("measure.save.submit") }).click();
  await expect(page).toHaveURL(/\/measure-details\/[^/]+$/, { timeout: 30_000 });
  await expect(page.getByRole("heading", { level: 2, name: t("measure.detail.scores") })).toBeVisible();
}
