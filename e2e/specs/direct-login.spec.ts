// Direct login (spec §4, issue 2): the companion app mints a one-time pair with its API token and opens
// /user/login-direct?token=…&session_id=…; the page signs in, cleans the URL and goes to destination.
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { LANGS, tr } from "../support/i18n.ts";
import { directLoginUrl, mintDirectLoginPair, newUser, registerViaApi } from "../support/seed.ts";

const newRequestContext = (options: { baseURL: string }) => playwrightRequest.newContext(options);

for (const { lang, browserLocale } of LANGS) {
  test.describe(`direct login (${lang})`, () => {
    test.use({ locale: browserLocale });
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);

    test("a minted pair signs in once, leaves the URL and goes to destination", async ({
      page,
      browser,
      request,
      baseURL,
    }) => {
      const origin = baseURL ?? "";
      await registerViaApi(request, newUser(`direct-${lang}`), origin);
      const code = await mintDirectLoginPair(request, newRequestContext, origin);
      const url = directLoginUrl(code, "/user/units");

      await page.goto(url);
      await expect(page).toHaveURL(/\/user\/units$/);
      await expect(page.getByRole("heading", { level: 1, name: t("profile.units.title") })).toBeVisible();
      await expect(page.getByRole("radio", { name: t("profile.units.metric") })).toBeChecked();
      // Neither the address bar nor the history entry before it kept the pair.
      expect(page.url()).not.toContain(code.token);
      await page.goBack();
      expect(page.url()).not.toContain(code.token);
      expect(page.url()).not.toContain(code.session_id);

      // The same pair in another browser is refused, and that browser stays signed out.
      const other = await browser.newContext({ locale: browserLocale });
      const otherPage = await other.newPage();
      await otherPage.goto(url);
      await expect(otherPage.getByRole("alert")).toHaveText(t("errors.codes.invalid_code"));
      expect(otherPage.url()).not.toContain(code.token);
      await otherPage.goto("/user/units");
      await expect(otherPage).toHaveURL(/\/auth\/signin\?destination=%2Fuser%2Funits$/);
      await other.close();
    });

    test("a destination on another host is not followed: the dashboard opens instead", async ({
      page,
      request,
      baseURL,
    }) => {
      const origin = baseURL ?? "";
      await registerViaApi(request, newUser(`direct-foreign-${lang}`), origin);
      const code = await mintDirectLoginPair(request, newRequestContext, origin);
      await page.goto(directLoginUrl(code, "https://evil.example/steal"));
      await expect(page).toHaveURL(`${origin}/dashboard`);
      await expect(page.getByRole("heading", { level: 1, name: t("dashboard.title") })).toBeVisible();
    });

    test("without the pair it sends to sign-in keeping destination", async ({ page }) => {
      await page.goto(`/user/login-direct?destination=${encodeURIComponent("/user/personal")}`);
      await expect(page).toHaveURL(/\/auth\/signin\?destination=%2Fuser%2Fpersonal$/);
      await expect(page.getByRole("heading", { level: 1, name: t("auth.signin.title") })).toBeVisible();
    });
  });
}

test("a token pair on any page signs in and leaves the address bar", async ({ page, request, baseURL }) => {
  const origin = baseURL ?? "";
  await registerViaApi(request, newUser("direct-any-page"), origin);
  const code = await mintDirectLoginPair(request, newRequestContext, origin);
  const query = new URLSearchParams({ token: code.token, session_id: code.session_id, tab: "photo" });
  await page.goto(`/user/profile?${query.toString()}`);
  await expect(page).toHaveURL(`${origin}/user/profile?tab=photo`);
  await expect(page.getByRole("heading", { level: 1, name: tr("en", "profile.title") })).toBeVisible();
  await expect(page.getByRole("heading", { name: tr("en", "profile.summary.title") })).toBeVisible();
});
