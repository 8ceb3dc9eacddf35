// Cloud connectors (issue 7) in Chromium, in English and Russian: on /data-sources/oura-ring a person
// connects Oura — the browser goes to the provider's authorization page and back — sees the first
// background sync's report, syncs again, and disconnects, which revokes the grant at the provider.
// "Oura" here is a local stand-in started by e2e/support/server.ts: it answers in Oura's documented
// formats (apps/server/src/modules/connectors/standin/), it is not Oura. axe on each state. The stand-in is
// one for the whole run and a test withdraws its grants for a while, so the languages run one after the
// other.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { DataSourcePage } from "../pages/data-source.page.ts";
import { LANGS, tr } from "../support/i18n.ts";
import { E2E_MAIL_API_PORT } from "../support/ports.ts";
import { newUser, registerViaApi } from "../support/seed.ts";

async function expectNoAxeViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
}

/** The person withdraws Tonus's access at the provider (true), or the stand-in stops refusing (false). */
async function refuseGrants(page: Page, on: boolean): Promise<void> {
  const res = await page.request.post(
    `http://127.0.0.1:${E2E_MAIL_API_PORT}/connectors/oura/refuse-grants?on=${on ? 1 : 0}`,
  );
  expect(res.ok()).toBe(true);
}

async function revocationsAtProvider(page: Page): Promise<number> {
  const res = await page.request.get(`http://127.0.0.1:${E2E_MAIL_API_PORT}/connectors/oura/revocations`);
  return ((await res.json()) as { count: number }).count;
}

test.describe.configure({ mode: "serial" });

for (const { lang, browserLocale } of LANGS) {
  test.describe(`cloud connectors (${lang})`, () => {
    test.use({ locale: browserLocale });

    test("connects Oura on its source page, syncs, and disconnects with the grant revoked", async ({
      page,
      baseURL,
    }) => {
      test.setTimeout(180_000);
      await registerViaApi(page.request, newUser(`cloud-${lang}`), baseURL ?? "");
      const source = new DataSourcePage(page, lang, "Oura");
      await source.goto("oura-ring");
      await expect(source.connection).toBeVisible({ timeout: 20_000 });
      await expectNoAxeViolations(page);

      await source.connect();
      await expect(page).toHaveURL(/\/data-sources\/oura-ring$/, { timeout: 30_000 });
      await source.expectConnected();
      // The provider's answer, far down the page, is brought into view and takes the focus.
      const answer = source.connection.locator(".cloud-connection__flash");
      await expect(answer).toBeFocused();
      await expect(answer).toBeInViewport();
      await source.expectSynced();
      await expectNoAxeViolations(page);

      await source.syncNow();
      await source.expectSyncFinished();

      // The person withdraws Tonus's access at Oura. "Sync now", pressed from the keyboard, finds the
      // grant refused and gives way to "Connect again": the focus it held goes to the error saying why,
      // not to the page's top (Chromium sends a focusout when it removes the focused button). The focus
      // has it read: it is not also a live region, which would say it twice.
      await refuseGrants(page, true);
      try {
        const syncButton = source.connection.getByRole("button", { name: tr(lang, "connectors.sync_now") });
        await syncButton.focus();
        await page.keyboard.press("Enter");
        const error = source.connection.locator("[data-autofocus]");
        await expect(error).toHaveText(tr(lang, "connectors.errors.reconnect_needed", { name: "Oura" }), {
          timeout: 30_000,
        });
        await expect(error).toBeFocused();
        await expect(source.connection.getByRole("alert")).toHaveCount(0);
      } finally {
        await refuseGrants(page, false);
      }
      await expectNoAxeViolations(page);
      await source.connection
        .getByRole("button", { name: tr(lang, "connectors.reconnect", { name: "Oura" }) })
        .click();
      await expect(page).toHaveURL(/\/data-sources\/oura-ring$/, { timeout: 30_000 });
      await source.expectConnected();
      await source.expectSynced();

      const before = await revocationsAtProvider(page);
      // From the page's end, as after reading the panel down to its buttons.
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await source.disconnect();
      await source.expectDisconnected();
      // The outcome has the focus and shows below the sticky header, not under it.
      const outcome = source.connection.locator(".cloud-connection__flash");
      await expect(outcome).toBeFocused();
      const headerBottom = (await page.locator("header").first().boundingBox())?.height ?? 0;
      expect((await outcome.boundingBox())?.y ?? -1).toBeGreaterThanOrEqual(headerBottom);
      expect(await revocationsAtProvider(page)).toBeGreaterThan(before);
      await expectNoAxeViolations(page);
    });
  });
}
