import { expect } from "@playwright/test";
import { BasePage } from "./base.page.ts";

/** /measure-details/:id: the part that matters to billing, the PRO-gated decoding. */
export class MeasurementDetailPage extends BasePage {
  async open(id: string): Promise<void> {
    await this.page.goto(`/measure-details/${encodeURIComponent(id)}`);
    await expect(
      this.page.getByRole("heading", { level: 2, name: this.t("measure.decoding.title") }),
    ).toBeVisible();
  }

  get decodingLocked() {
    return this.page.getByTestId("decoding-locked");
  }

  get decodingItems() {
    return this.page.locator(".measure-decoding__item");
  }
}
