import { expect } from "@playwright/test";
import { BasePage } from "./base.page.ts";

/** /referral: the link, friends invited and counted, the reward, and the invitation by e-mail. */
export class ReferralPage extends BasePage {
  async open(): Promise<void> {
    await this.page.goto("/referral");
    await expect(this.heading("referral.title")).toBeVisible();
  }

  get link() {
    return this.page.getByLabel(this.t("referral.link.label"), { exact: true });
  }

  /** The number shown for one of the counts (referral.stats.<key>). */
  stat(key: "invited" | "joined" | "paid" | "earned") {
    return this.page
      .locator("dl.referral-stats dt", { hasText: this.t(`referral.stats.${key}`) })
      .locator("+ dd");
  }

  async find(email: string): Promise<void> {
    await this.page.getByLabel(this.t("referral.invite.email")).fill(email);
    await this.page.getByRole("button", { name: this.t("referral.invite.find") }).click();
  }

  get notFound() {
    return this.page.getByText(this.t("referral.invite.not_found"));
  }

  async sendInvitation(email: string): Promise<void> {
    await this.page.getByRole("button", { name: this.t("referral.invite.send", { email }) }).click();
    await expect(this.page.getByText(this.t("referral.invite.sent", { email }))).toBeVisible();
  }

  invitation(email: string) {
    return this.page
      .getByRole("row")
      .filter({ has: this.page.getByRole("cell", { name: email, exact: true }) });
  }
}
