// Issue 6 in Chromium on the sandbox provider, in English and Russian: a monthly plan bought with a promo
// code after a declined card opens the PRO decoding; deletion is refused while the plan renews; history
// pages by five; cancel; an archive is packed and downloaded; the account is deleted. A 3-D Secure card
// buys a gift whose code, read from the real SMTP server, opens PRO for a second account. The downloaded
// archive is restored into a new empty account. axe on each page.
import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { API, type MeasurementList } from "@tonus/contract";
import { AccountDataPage } from "../pages/account-data.page.ts";
import { MeasurementDetailPage } from "../pages/measurement-detail.page.ts";
import { PaymentPage } from "../pages/payment.page.ts";
import { PaymentHistoryPage } from "../pages/payment-history.page.ts";
import { CARDS, E2E_COUPON, uploadMeasurement, verifyCardViaApi } from "../support/billing.ts";
import { LANGS, type Lang, tr } from "../support/i18n.ts";
import { waitForMail } from "../support/mail.ts";
import { newUser, registerViaApi } from "../support/seed.ts";

/** The monthly plan as the plans list names it, and its price with the 20 % code, in each language. */
const MONTHLY: Record<Lang, { title: string; discounted: string }> = {
  en: { title: "Monthly", discounted: money("en", 799, "USD") },
  ru: { title: "Ежемесячно", discounted: money("ru", 39920, "RUB") },
};

/** An amount as the payment page shows it (apps/web/src/features/payments/billing-format.ts). */
function money(lang: Lang, minor: number, currency: string): string {
  return new Intl.NumberFormat(lang === "ru" ? "ru-RU" : "en-US", {
    style: "currency",
    currency,
    minimumFractionDigits: minor % 100 === 0 ? 0 : 2,
    maximumFractionDigits: 2,
  }).format(minor / 100);
}

for (const { lang, browserLocale } of LANGS) {
  test.describe(`billing (${lang})`, () => {
    test.use({ locale: browserLocale });

    test("a plan bought with a promo code opens PRO; history, cancel, archive and deletion follow", async ({
      page,
      baseURL,
    }) => {
      test.setTimeout(240_000);
      const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
      await registerViaApi(page.request, newUser(`billing-${lang}`), baseURL ?? "");
      const measurementId = await uploadMeasurement(page.request, baseURL ?? "");

      // A free account sees the decoding locked.
      const detail = new MeasurementDetailPage(page, lang);
      await detail.open(measurementId);
      await expect(detail.decodingLocked).toBeVisible();

      const payment = new PaymentPage(page, lang);
      await payment.open();
      await payment.expectAccessible();
      await payment.choosePlan(MONTHLY[lang].title);
      await payment.applyCoupon(E2E_COUPON.toLowerCase());
      await expect(payment.price()).toContainText(MONTHLY[lang].discounted);

      // A declined card: "Payment error" with the response's error and the status in parentheses.
      await payment.fillCard(CARDS.declined);
      await payment.pay();
      await expect(payment.error).toContainText("Your card was declined. (402)");
      await payment.expectAccessible();

      await payment.fillCard(CARDS.ok);
      await payment.pay();
      await expect(payment.success).toBeVisible();

      // The server now counts the person as a customer: the decoding opens.
      await detail.open(measurementId);
      await expect(detail.decodingLocked).toHaveCount(0);
      await expect(detail.decodingItems.first()).toBeVisible();
      await detail.expectAccessible();

      // Deletion is refused while the plan renews.
      const data = new AccountDataPage(page, lang);
      await data.open();
      await data.startDeletion();
      await data.deleteForever();
      await expect(data.blocked).toBeVisible();

      // History: the payment, the declined attempt and four card verifications, five at a time.
      for (let i = 0; i < 4; i++) await verifyCardViaApi(page.request, baseURL ?? "");
      const history = new PaymentHistoryPage(page, lang);
      await history.open();
      await expect(history.rows).toHaveCount(5);
      await expect(history.subscription).toContainText(MONTHLY[lang].title);
      await history.expectAccessible();
      await history.loadMore.click();
      await expect(history.rows).toHaveCount(6);
      await expect(history.loadMore).toHaveCount(0);
      await expect(history.rows.filter({ hasText: t("payments.history.status.failed") })).toHaveCount(1);

      await history.goToCancel();
      await history.expectAccessible();
      await history.confirmCancel();
      await history.expectAccessible();

      // The archive is packed by a background job, then downloaded.
      await data.open();
      await data.requestArchive();
      await expect(data.downloadLink.or(data.packing)).toBeVisible();
      await expect(data.downloadLink).toBeVisible({ timeout: 90_000 });
      await data.expectAccessible();
      const download = page.waitForEvent("download");
      await data.downloadLink.click();
      const file = await (await download).path();
      const zip = fs.readFileSync(file);
      expect(zip.subarray(0, 2).toString()).toBe("PK");
      expect(zip.includes(Buffer.from("account.json"))).toBe(true);

      // Cancelled, the account may go: confirmation, then the logged-out screen.
      await data.startDeletion();
      await data.expectAccessible();
      await data.deleteForever();
      await expect(page).toHaveURL(/\/user\/account-delete-finish-redirect$/);
      await expect(data.heading("account_delete.finished_title")).toBeVisible();
      await data.expectAccessible();
      const profile = await page.request.get("/dashboard_api/v1/user/profile/");
      expect(profile.status()).toBe(403);

      // A new, empty account restores the downloaded archive: the measurement comes back.
      await registerViaApi(page.request, newUser(`restore-${lang}`), baseURL ?? "");
      await data.open();
      await data.chooseArchive(file);
      await data.restore();
      await expect(data.restored).toBeVisible({ timeout: 30_000 });
      await data.expectAccessible();
      const list = await page.request.get(API.measurements);
      expect(((await list.json()) as MeasurementList).count).toBe(1);
      // A second restore into the now filled account is refused.
      await data.restore();
      await expect(page.getByRole("alert").filter({ hasText: t("data_import.not_empty") })).toBeVisible();
    });

    test("a 3-D Secure card buys a gift; its mailed code opens PRO for another account", async ({
      page,
      browser,
      baseURL,
    }) => {
      test.setTimeout(180_000);
      const buyer = newUser(`gift-${lang}`);
      await registerViaApi(page.request, buyer, baseURL ?? "");
      const start = Date.now();

      const payment = new PaymentPage(page, lang);
      await payment.open();
      await payment.chooseGift();
      await payment.fillCard(CARDS.threeDSecure);
      await payment.pay();
      await expect(payment.challenge).toBeVisible();
      await payment.expectAccessible();
      await payment.confirmChallenge();
      await expect(payment.giftThanks).toBeVisible();

      const mail = await waitForMail(buyer.email, { after: start });
      const code = /GIFT-[0-9A-F]{12}/.exec(mail)?.[0];
      expect(code).toBeDefined();

      const context = await browser.newContext({ locale: browserLocale, baseURL });
      try {
        const friendPage = await context.newPage();
        await registerViaApi(friendPage.request, newUser(`giftee-${lang}`), baseURL ?? "");
        const measurementId = await uploadMeasurement(friendPage.request, baseURL ?? "");
        const friendPayment = new PaymentPage(friendPage, lang);
        await friendPayment.open();
        await friendPayment.choosePlan(MONTHLY[lang].title);
        await friendPayment.applyCoupon(code ?? "");
        await expect(friendPayment.price()).toContainText(money(lang, 0, lang === "ru" ? "RUB" : "USD"));
        await friendPayment.pay();
        await expect(friendPayment.success).toBeVisible();
        const detail = new MeasurementDetailPage(friendPage, lang);
        await detail.open(measurementId);
        await expect(detail.decodingItems.first()).toBeVisible();
        await expect(detail.decodingLocked).toHaveCount(0);
      } finally {
        await context.close();
      }
    });
  });
}
