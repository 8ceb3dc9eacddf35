// Referrals in Chromium, in English and Russian: the /referral page shows the link; a friend's address
// without an account gets "User not found, invite him" and an invitation read from the real SMTP server;
// the friend registers through its link and pays on the sandbox; the inviter's page then counts the
// friend as joined and paid, and the reward shows as PRO in the subscription. axe on each page.
import { expect, test } from "@playwright/test";
import { PaymentPage } from "../pages/payment.page.ts";
import { PaymentHistoryPage } from "../pages/payment-history.page.ts";
import { ReferralPage } from "../pages/referral.page.ts";
import { CARDS } from "../support/billing.ts";
import { LANGS, type Lang, tr } from "../support/i18n.ts";
import { findLink, waitForMail } from "../support/mail.ts";
import { newUser, registerViaApi } from "../support/seed.ts";

const MONTHLY: Record<Lang, string> = { en: "Monthly", ru: "Ежемесячно" };
/** The server's own name for a free-days credit (apps/server/src/locales). */
const CREDIT: Record<Lang, string> = {
  en: "Free PRO for inviting friends",
  ru: "Бесплатный PRO за приглашённых друзей",
};

for (const { lang, browserLocale } of LANGS) {
  test.describe(`referrals (${lang})`, () => {
    test.use({ locale: browserLocale });

    test("invite a friend by e-mail; the friend joins through the link and pays; the inviter is rewarded", async ({
      page,
      browser,
      baseURL,
    }) => {
      test.setTimeout(180_000);
      const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
      await registerViaApi(page.request, newUser(`referrer-${lang}`), baseURL ?? "");
      const referral = new ReferralPage(page, lang);
      await referral.open();
      await expect(referral.link).toHaveValue(
        new RegExp(`^${baseURL}/auth/registration/\\?ref=[A-Z2-7]{16}$`),
      );
      await expect(referral.stat("joined")).toHaveText("0");
      await referral.expectAccessible();

      const friend = newUser(`friend-${lang}`);
      const start = Date.now();
      await referral.find(friend.email);
      await expect(referral.notFound).toBeVisible();
      await referral.expectAccessible();
      await referral.sendInvitation(friend.email);
      await expect(referral.invitation(friend.email)).toContainText(t("referral.invitations.status.invited"));
      await expect(referral.stat("invited")).toHaveText("1");

      // The invitation, in the inviter's language, carries the inviter's link.
      const mail = await waitForMail(friend.email, { after: start });
      expect(mail).toContain(lang === "ru" ? "приглашает вас попробовать" : "invites you to try it");
      const link = findLink(mail, `${baseURL}/auth/registration/?ref=`);

      const context = await browser.newContext({ locale: browserLocale, baseURL });
      try {
        const friendPage = await context.newPage();
        await friendPage.goto(link);
        await expect(friendPage.getByText(t("auth.registration.referred"))).toBeVisible();
        await friendPage.getByLabel(t("auth.email")).fill(friend.email);
        await friendPage.getByLabel(t("auth.password"), { exact: true }).fill(friend.password);
        await friendPage.getByRole("button", { name: t("auth.registration.submit") }).click();
        await expect(friendPage).toHaveURL(/\/dashboard$/);

        const payment = new PaymentPage(friendPage, lang);
        await payment.open();
        await payment.choosePlan(MONTHLY[lang]);
        await payment.fillCard(CARDS.ok);
        await payment.pay();
        await expect(payment.success).toBeVisible();
      } finally {
        await context.close();
      }

      // The reward follows the friend's confirmed payment through a background delivery: reload until then.
      await expect(async () => {
        await referral.open();
        await expect(referral.stat("paid")).toHaveText("1", { timeout: 1000 });
      }).toPass({ timeout: 60_000 });
      await expect(referral.stat("joined")).toHaveText("1");
      await expect(referral.stat("earned")).toHaveText(t("referral.stats.days", { count: 30 }));
      await expect(referral.invitation(friend.email)).toContainText(t("referral.invitations.status.joined"));
      await referral.expectAccessible();

      const history = new PaymentHistoryPage(page, lang);
      await history.open();
      await expect(history.subscription).toContainText(CREDIT[lang]);
    });
  });
}
