import { expect } from "@playwright/test";
import { BasePage } from "./base.page.ts";

/** /payment-history (Transaction history): the subscription, payments five at a time, card verification. */
export class PaymentHistoryPage extends BasePage {
  async open(): Promise<void> {
    await this.page.goto("/payment-history");
    await expect(this.heading("payments.history.title")).toBeVisible();
  }

  get rows() {
    return this.page.locator("ul.history > li");
  }

  get loadMore() {
    return this.page.getByRole("button", { name: this.t("payments.history.more") });
  }

  get subscription() {
    return this.page.getByRole("region", { name: this.t("payments.subscription.title") });
  }

  async goToCancel(): Promise<void> {
    await this.page.getByRole("link", { name: this.t("payments.subscription.cancel_link") }).click();
    await expect(this.heading("payments.cancel.title")).toBeVisible();
  }

  /** On the cancel page: confirm; the info page follows. */
  async confirmCancel(): Promise<void> {
    await this.page.getByRole("button", { name: this.t("payments.cancel.confirm") }).click();
    await expect(this.heading("payments.cancel.info_title")).toBeVisible();
  }
}
