// Issue 2 "How it is checked": register → sign in → edit personal data → upload a photo → switch units →
// sign out, in each language the browser asks for.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { formatNumber, LANGS, tr } from "../support/i18n.ts";
import { newUser } from "../support/seed.ts";

const PHOTO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/userpic.png");

for (const { lang, browserLocale } of LANGS) {
  test.describe(`account journey (${lang})`, () => {
    test.use({ locale: browserLocale });

    test("register, sign in, edit personal data, upload a photo, switch units, sign out", async ({
      page,
    }) => {
      const user = newUser(`journey-${lang}`);
      const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);

      // A protected page sends a visitor to sign-in, keeping where they were going.
      await page.goto("/user/personal");
      await expect(page).toHaveURL(/\/auth\/signin\?destination=%2Fuser%2Fpersonal$/);
      await expect(page.locator("html")).toHaveAttribute("lang", lang);
      await expect(page.getByRole("heading", { level: 1, name: t("auth.signin.title") })).toBeVisible();

      // Registration keeps the destination and signs the new person in.
      await page.getByRole("link", { name: t("auth.signin.to_registration") }).click();
      await expect(page).toHaveURL(/\/auth\/registration\/\?destination=%2Fuser%2Fpersonal$/);
      // The router keeps the previous page on screen until the new one has loaded: wait for it.
      await expect(page.getByRole("heading", { level: 1, name: t("auth.registration.title") })).toBeVisible();
      await page.getByLabel(t("auth.name")).fill(user.name);
      await page.getByLabel(t("auth.email")).fill(user.email);
      await page.getByLabel(t("auth.password"), { exact: true }).fill(user.password);
      await page.getByRole("button", { name: t("auth.registration.submit") }).click();
      await expect(page).toHaveURL(/\/user\/personal$/);
      await expect(page.getByRole("heading", { level: 1, name: t("profile.personal.title") })).toBeVisible();

      // Sign out from the profile menu: back at sign-in.
      const profileMenu = page.getByRole("navigation", { name: t("nav.profile_menu_label") });
      await profileMenu.getByRole("link", { name: t("nav.logout") }).click();
      await expect(page).toHaveURL(/\/auth\/signin$/);

      // A wrong password is refused with the spec's text; the right one signs in and goes to destination.
      await page.goto("/user/personal");
      await expect(page).toHaveURL(/\/auth\/signin\?destination=%2Fuser%2Fpersonal$/);
      await page.getByLabel(t("auth.email")).fill(user.email);
      await page.getByLabel(t("auth.password")).fill(`${user.password}-wrong`);
      await page.getByRole("button", { name: t("auth.signin.submit") }).click();
      await expect(page.getByRole("alert")).toHaveText(t("auth.signin.invalid_credentials"));
      await page.getByLabel(t("auth.password")).fill(user.password);
      await page.getByRole("button", { name: t("auth.signin.submit") }).click();
      await expect(page).toHaveURL(/\/user\/personal$/);
      await expect(page.getByRole("heading", { level: 1, name: t("profile.personal.title") })).toBeVisible();

      // Personal data, in the metric units every account starts with.
      const newName = `${user.name} Edited`;
      await page.getByLabel(t("profile.fields.name")).fill(newName);
      await page.getByLabel(t("profile.fields.date_of_birth")).fill("1990-04-15");
      await page.getByRole("radio", { name: t("profile.sex.female") }).check();
      await page.getByLabel(t("profile.fields.height_cm")).fill("180");
      await page.getByLabel(t("profile.fields.weight_kg")).fill("70");
      const saved = page.waitForResponse(
        (r) => r.url().endsWith("/dashboard_api/v1/user/profile/") && r.request().method() === "PUT",
      );
      await page.getByRole("button", { name: t("profile.save") }).click();
      expect((await saved).status()).toBe(200);
      await expect(page.getByRole("status").filter({ hasText: t("profile.saved") })).toBeVisible();

      // The profile summary shows what the server kept, after a reload too.
      await page.goto("/user/profile");
      const summary = page.locator("dl.summary");
      const birthDate = new Intl.DateTimeFormat(lang, { dateStyle: "long", timeZone: "UTC" }).format(
        new Date("1990-04-15T00:00:00Z"),
      );
      await expect(summary).toContainText(newName);
      await expect(summary).toContainText(birthDate);
      await expect(summary).toContainText(t("profile.sex.female"));
      await expect(summary).toContainText(t("units.cm_value", { value: formatNumber(lang, 180, 0) }));
      await expect(summary).toContainText(t("units.kg_value", { value: formatNumber(lang, 70) }));

      // A photo: the picture shown is the one the server stored.
      const uploaded = page.waitForResponse((r) => r.url().includes("/userpic/upload/"));
      await page.getByLabel(t("profile.photo.pick")).setInputFiles(PHOTO);
      expect((await uploaded).status()).toBe(200);
      const photo = page.getByRole("img", { name: t("profile.photo.current") });
      await expect(photo).toBeVisible();
      await expect.poll(() => photo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);

      // Units: pounds and inches, the same stored values shown converted.
      await page.goto("/user/units");
      await expect(page.getByRole("radio", { name: t("profile.units.metric") })).toBeChecked();
      await page.getByRole("radio", { name: t("profile.units.imperial") }).check();
      await expect(page.getByRole("status").filter({ hasText: t("profile.saved") })).toBeVisible();
      const converted = page.locator("dl.summary");
      // 70 kg = 154.3 lb; 180 cm = 70.9 in = 5 ft 10.9 in.
      await expect(converted).toContainText(t("units.lb_value", { value: formatNumber(lang, 154.3) }));
      await expect(converted).toContainText(
        t("units.ft_in_value", { feet: 5, inches: formatNumber(lang, 10.9) }),
      );
      await page.reload();
      await expect(page.getByRole("radio", { name: t("profile.units.imperial") })).toBeChecked();
      await page.goto("/user/personal");
      await expect(page.getByLabel(t("profile.fields.weight_lb"))).toHaveValue("154.3");
      await expect(page.getByLabel(t("profile.fields.height_ft"))).toHaveValue("5");
      await expect(page.getByLabel(t("profile.fields.height_in"))).toHaveValue("10.9");

      // And back to kilograms: nothing drifted.
      await page.goto("/user/units");
      await page.getByRole("radio", { name: t("profile.units.metric") }).check();
      await expect(page.locator("dl.summary")).toContainText(
        t("units.kg_value", { value: formatNumber(lang, 70) }),
      );

      // Sign out from the menu: back at sign-in, and the profile is out of reach again.
      await page
        .getByRole("navigation", { name: t("nav.profile_menu_label") })
        .getByRole("link", { name: t("nav.logout") })
        .click();
      await expect(page).toHaveURL(/\/auth\/signin$/);
      await page.goto("/user/profile");
      await expect(page).toHaveURL(/\/auth\/signin\?destination=%2Fuser%2Fprofile$/);

      // A logout link carrying a destination keeps it for the next sign-in.
      await page.getByLabel(t("auth.email")).fill(user.email);
      await page.getByLabel(t("auth.password")).fill(user.password);
      await page.getByRole("button", { name: t("auth.signin.submit") }).click();
      await expect(page).toHaveURL(/\/user\/profile$/);
      await page.goto("/user/logout?destination=%2Fuser%2Funits");
      await expect(page).toHaveURL(/\/auth\/signin\?destination=%2Fuser%2Funits$/);
      await page.getByLabel(t("auth.email")).fill(user.email);
      await page.getByLabel(t("auth.password")).fill(user.password);
      await page.getByRole("button", { name: t("auth.signin.submit") }).click();
      await expect(page).toHaveURL(/\/user\/units$/);
      await expect(page.getByRole("radio", { name: t("profile.units.metric") })).toBeChecked();
    });
  });
}

for (const { lang, browserLocale } of LANGS) {
  const other = lang === "en" ? "ru" : "en";
  test.describe(`language switcher (${lang} browser)`, () => {
    test.use({ locale: browserLocale });

    test(`switches to ${other}, is remembered across reloads, and switches back`, async ({ page }) => {
      await page.goto("/auth/signin");
      const heading = page.getByRole("heading", { level: 1 });
      await expect(heading).toHaveText(tr(lang, "auth.signin.title"));
      const switcher = page.getByRole("group", { name: tr(lang, "language.label") });
      await switcher.getByRole("button", { name: tr(other, `language.${other}`) }).click();
      await expect(heading).toHaveText(tr(other, "auth.signin.title"));
      await expect(page.locator("html")).toHaveAttribute("lang", other);
      await expect(page).toHaveTitle(`${tr(other, "auth.signin.title")} · Tonus`);

      await page.goto("/privacy-policy");
      await expect(heading).toHaveText(tr(other, "legal.privacy.title"));
      await page.reload();
      await expect(heading).toHaveText(tr(other, "legal.privacy.title"));

      const footer = page.getByRole("contentinfo");
      await footer
        .getByRole("group", { name: tr(other, "language.label") })
        .getByRole("button", { name: tr(lang, `language.${lang}`) })
        .click();
      await expect(heading).toHaveText(tr(lang, "legal.privacy.title"));
      await expect(
        footer
          .getByRole("group", { name: tr(lang, "language.label") })
          .getByRole("button", { name: tr(lang, `language.${lang}`) }),
      ).toHaveAttribute("aria-pressed", "true");
    });
  });
}
