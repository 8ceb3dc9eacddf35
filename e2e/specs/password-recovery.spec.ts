// Password recovery through the real SMTP server the e2e harness runs (issue 2 "How it is checked").
import { expect, test } from "@playwright/test";
import { LANGS, tr } from "../support/i18n.ts";
import { findLink, waitForMail } from "../support/mail.ts";
import { newUser, registerViaApi } from "../support/seed.ts";

// The first words of the server's reset e-mail, so the test sees which language the mail was written in.
const MAIL_OPENING = { en: "Someone (hopefully you)", ru: "Кто-то (надеемся, что вы)" } as const;

for (const { lang, browserLocale } of LANGS) {
  test.describe(`password recovery (${lang})`, () => {
    test.use({ locale: browserLocale });

    test("request a link by e-mail, set a new password once, sign in with it", async ({
      page,
      request,
      baseURL,
    }) => {
      const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
      const user = newUser(`recovery-${lang}`);
      await registerViaApi(request, user, baseURL ?? "");

      await page.goto("/auth/signin");
      await page.getByRole("link", { name: t("auth.signin.forgot") }).click();
      await expect(page).toHaveURL(/\/auth\/password-recovery$/);
      // The router keeps the previous page on screen until the new one has loaded: wait for it.
      await expect(page.getByRole("heading", { level: 1, name: t("auth.recovery.title") })).toBeVisible();

      // An unknown address gets the spec's text and no mail.
      const emailField = page.getByLabel(t("auth.email"));
      await emailField.fill(`nobody-${user.email}`);
      await page.getByRole("button", { name: t("auth.recovery.submit") }).click();
      await expect(page.getByRole("alert")).toHaveText(t("auth.recovery.no_user"));

      const requestedAt = Date.now();
      await emailField.fill(user.email);
      await page.getByRole("button", { name: t("auth.recovery.submit") }).click();
      await expect(page.getByRole("main").getByRole("status")).toHaveText(
        t("auth.recovery.sent", { email: user.email }),
      );

      const mail = await waitForMail(user.email, { after: requestedAt });
      expect(mail).toContain(MAIL_OPENING[lang]);
      const link = findLink(mail, `${baseURL}/auth/password-reset?token=`);

      // The link's one-time token leaves the address bar at once.
      await page.goto(link);
      await expect(page.getByRole("heading", { level: 1, name: t("auth.reset.title") })).toBeVisible();
      await expect(page).toHaveURL(/\/auth\/password-reset$/);
      const newPassword = `${user.password}-renewed`;
      await page.getByLabel(t("auth.reset.new_password")).fill(newPassword);
      await page.getByRole("button", { name: t("auth.reset.submit") }).click();
      await expect(page.getByRole("main").getByRole("status")).toHaveText(t("auth.reset.done"));

      // The same link a second time is refused.
      await page.goto(link);
      await page.getByLabel(t("auth.reset.new_password")).fill(`${newPassword}-again`);
      await page.getByRole("button", { name: t("auth.reset.submit") }).click();
      await expect(page.getByRole("alert")).toHaveText(t("errors.codes.invalid_code"));

      // The old password no longer works; the new one does.
      await page.goto("/auth/signin");
      await page.getByLabel(t("auth.email")).fill(user.email);
      await page.getByLabel(t("auth.password")).fill(user.password);
      await page.getByRole("button", { name: t("auth.signin.submit") }).click();
      await expect(page.getByRole("alert")).toHaveText(t("auth.signin.invalid_credentials"));
      await page.getByLabel(t("auth.password")).fill(newPassword);
      await page.getByRole("button", { name: t("auth.signin.submit") }).click();
      await expect(page).toHaveURL(/\/dashboard$/);
      await expect(page.getByRole("heading", { level: 1, name: t("dashboard.title") })).toBeVisible();
    });
  });
}
