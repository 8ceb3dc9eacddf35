// Issue 9, notifications in Chromium, in English and Russian: the profile's notifications card leads to
// the settings page (axe), the choices are saved and survive a reload; a reminder set for the current
// minute is sent by the server's own background jobs to the test's SMTP server, in the newsletter
// language; its unsubscribe link works in a signed-out browser (confirmation page, one click, axe on
// both) and the settings page then shows reminders off while the other choices stay.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import { type Browser, expect, type Page, test } from "@playwright/test";
import { API, NOTIFICATIONS_API } from "@tonus/contract";
import { LANGS, type Lang, tr } from "../support/i18n.ts";
import { findLink, waitForMail } from "../support/mail.ts";
import { csrfHeaders, newUser, registerViaApi } from "../support/seed.ts";

/** The server's own catalogue: the unsubscribe pages and mails are written by the server. */
const serverTexts = (lang: Lang) =>
  JSON.parse(
    fs.readFileSync(
      path.resolve(
        path.dirname(fileURLToPath(import.meta.url)),
        `../../apps/server/src/locales/${lang}.json`,
      ),
      "utf8",
    ),
  ) as {
    notifications: {
      unsubscribe: { title: string; confirm: string; button: string; done_title: string };
      lists: { reminders: string };
    };
  };

async function expectNoAxeViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
}

/** The wall clock in Moscow a minute ago, `HH:MM`: a reminder at that time is due at the next tick. */
function moscowMinuteAgo(): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: "Europe/Moscow",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(new Date(Date.now() - 60_000));
}

/** Today's ISO weekday in Moscow, 1 = Monday … 7 = Sunday (the settings' numbering). */
function moscowIsoWeekday(): number {
  const name = new Intl.DateTimeFormat("en-US", { timeZone: "Europe/Moscow", weekday: "short" }).format(
    new Date(),
  );
  return ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].indexOf(name) + 1;
}

async function signedIn(browser: Browser, base: string, lang: Lang, locale: string) {
  const context = await browser.newContext({ baseURL: base, locale });
  const user = newUser(`notify-${lang}`);
  // Registered with the time zone Europe/Moscow; the newsletter language is the test's language.
  await registerViaApi(context.request, user, base);
  const res = await context.request.put(API.profile, {
    data: { newsletter_language: lang },
    headers: await csrfHeaders(context.request, base),
  });
  expect(res.status()).toBe(200);
  return { context, user };
}

for (const { lang, browserLocale } of LANGS) {
  test.describe(`notifications (${lang})`, () => {
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
    const server = serverTexts(lang).notifications;

    test("settings are saved; a reminder arrives by e-mail and its link unsubscribes without signing in", async ({
      browser,
      baseURL,
    }) => {
      test.setTimeout(240_000);
      const base = baseURL ?? "";
      const { context, user } = await signedIn(browser, base, lang, browserLocale);
      const page = await context.newPage();
      await page.goto("/user/profile");
      await expect(page.getByText(t("notifications.summary.all_off"))).toBeVisible();
      await page.getByRole("link", { name: t("notifications.summary.manage") }).click();
      await expect(page).toHaveURL(/\/user\/notifications$/);
      await expect(page.getByRole("heading", { level: 1, name: t("notifications.title") })).toBeVisible();
      await expectNoAxeViolations(page);

      const weekly = page.getByRole("checkbox", { name: t("notifications.weekly.enable") });
      const reminders = page.getByRole("checkbox", { name: t("notifications.reminders.enable") });
      const news = page.getByRole("checkbox", { name: t("notifications.news.enable") });
      const time = page.getByLabel(t("notifications.reminders.time"));
      await weekly.check();
      // The day after tomorrow, so the weekly report does not go out during the test.
      const weeklyDay = String(((moscowIsoWeekday() + 1) % 7) + 1);
      await page.getByLabel(t("notifications.weekly.day")).selectOption(weeklyDay);
      await reminders.check();
      const at = moscowMinuteAgo();
      await time.fill(at);
      await news.check();
      await page.getByRole("button", { name: t("notifications.save") }).click();
      await expect(page.getByText(t("notifications.saved"))).toBeVisible();
      await expectNoAxeViolations(page);

      await page.reload();
      await expect(weekly).toBeChecked();
      await expect(reminders).toBeChecked();
      await expect(news).toBeChecked();
      await expect(time).toHaveValue(at);
      await expect(page.getByLabel(t("notifications.weekly.day"))).toHaveValue(weeklyDay);

      // The server's minutely job finds the reminder due and mails it.
      const reminderText = lang === "ru" ? "время, которое вы выбрали" : "the time you chose";
      const mail = await waitForMail(user.email, { timeoutMs: 180_000, containing: reminderText });
      expect(mail).toContain(reminderText);
      const link = findLink(mail, `${base}${NOTIFICATIONS_API.unsubscribe}?token=reminders.`);

      // A signed-out browser (a mail client's, say) opens the link: it asks first, then unsubscribes.
      const stranger = await browser.newContext({ baseURL: base, locale: browserLocale });
      const visitor = await stranger.newPage();
      await visitor.goto(link);
      await expect(visitor.getByRole("heading", { level: 1, name: server.unsubscribe.title })).toBeVisible();
      await expect(
        visitor.getByText(
          server.unsubscribe.confirm
            .replace("{{list}}", server.lists.reminders)
            .replace("{{email}}", user.email),
        ),
      ).toBeVisible();
      await expectNoAxeViolations(visitor);
      await visitor.getByRole("button", { name: server.unsubscribe.button }).click();
      await expect(
        visitor.getByRole("heading", { level: 1, name: server.unsubscribe.done_title }),
      ).toBeVisible();
      await expectNoAxeViolations(visitor);
      const session = (await (await stranger.request.get(API.session)).json()) as { authenticated: boolean };
      expect(session.authenticated).toBe(false);
      await stranger.close();

      await page.reload();
      await expect(reminders).not.toBeChecked();
      await expect(weekly).toBeChecked();
      await expect(news).toBeChecked();
      await context.close();
    });
  });
}
