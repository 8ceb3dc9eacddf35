import { expect } from "@playwright/test";
import { BasePage, literal } from "./base.page.ts";

/** /payment (Upgrade): the plans, one plan's checkout with promo code and card, the 3-D Secure step. */
export class PaymentPage extends BasePage {
  async open(): Promise<void> {
    await this.page.goto("/payment");
    await expect(this.heading("payments.upgrade_title")).toBeVisible();
  }

  plan(title: string) {
    return this.page
      .getByRole("listitem")
      .filter({ has: this.page.getByRole("heading", { level: 2, name: title, exact: true }) });
  }

  async choosePlan(title: string): Promise<void> {
    await this.plan(title)
      .getByRole("link", { name: this.t("payments.choose") })
      .click();
    await expect(this.page.getByRole("heading", { level: 2, name: title, exact: true })).toBeVisible();
  }

  async chooseGift(): Promise<void> {
    const prefix = this.t("payments.gift.buy", { price: "" }).trim();
    await this.page.getByRole("link", { name: literal(prefix) }).click();
    await expect(this.payButton).toBeVisible();
  }

  get couponField() {
    return this.page.getByLabel(this.t("payments.coupon"));
  }

  async applyCoupon(code: string): Promise<void> {
    await this.couponField.fill(code);
    await this.page.getByRole("button", { name: this.t("payments.coupon_apply") }).click();
    await expect(this.page.getByText(this.t("payments.coupon_applied"))).toBeVisible();
  }

  async fillCard(number: string): Promise<void> {
    await this.page.getByLabel(this.t("payments.card.number")).fill(number);
    await this.page.getByLabel(this.t("payments.card.month")).fill("12");
    await this.page.getByLabel(this.t("payments.card.year")).fill("34");
    await this.page.getByLabel(this.t("payments.card.cvc")).fill("123");
  }

  /** The submit button: "Pay <price>" with a price, "Activate" when a code makes it free. */
  get payButton() {
    const pay = this.t("payments.pay", { price: "" }).trim();
    return this.page.getByRole("button", {
      name: new RegExp(`^(${literal(pay).source}|${this.t("payments.activate")})`),
    });
  }

  price() {
    return this.page.locator(".plan-card__price");
  }

  async pay(): Promise<void> {
    await this.payButton.click();
  }

  /** The alert holding "Payment error …". */
  get error() {
    return this.page.getByRole("alert").filter({ hasText: this.t("payments.error_title") });
  }

  get challenge() {
    return this.page.getByRole("heading", { level: 2, name: this.t("payments.challenge.title") });
  }

  async confirmChallenge(): Promise<void> {
    await this.page.getByRole("button", { name: this.t("payments.challenge.complete"), exact: true }).click();
  }

  get success() {
    return this.page.getByRole("status").filter({ hasText: this.t("payments.success") });
  }

  get giftThanks() {
    return this.page.getByText(this.t("payments.gift.thanks")).first();
  }
}
