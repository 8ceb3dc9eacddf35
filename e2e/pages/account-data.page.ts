import { expect } from "@playwright/test";
import { BasePage } from "./base.page.ts";

/** /user/account-delete: data export (archive), restore from an archive, and account deletion. */
export class AccountDataPage extends BasePage {
  async open(): Promise<void> {
    await this.page.goto("/user/account-delete");
    await expect(this.heading("account_delete.title")).toBeVisible();
  }

  async requestArchive(): Promise<void> {
    await this.page.getByRole("button", { name: this.t("data_export.request") }).click();
  }

  get packing() {
    return this.page.getByText(this.t("data_export.packing"));
  }

  get downloadLink() {
    return this.page.getByRole("link", { name: this.t("data_export.download") });
  }

  async chooseArchive(file: string): Promise<void> {
    await this.page.getByLabel(this.t("data_import.file")).setInputFiles(file);
  }

  async restore(): Promise<void> {
    await this.page.getByRole("button", { name: this.t("data_import.submit") }).click();
  }

  /** The success message of a restore ("Restored N records", in any plural form). */
  get restored() {
    const forms = ["one", "few", "many", "other"]
      .map((form) => {
        try {
          return this.t(`data_import.done_${form}`, { count: 0 }).replace("0", "\\d+");
        } catch {
          return null;
        }
      })
      .filter((form): form is string => form !== null);
    return this.page.getByRole("status").filter({ hasText: new RegExp(`^(${forms.join("|")})$`) });
  }

  async startDeletion(): Promise<void> {
    await this.page.getByRole("button", { name: this.t("account_delete.start") }).click();
    await expect(
      this.page.getByRole("alertdialog", { name: this.t("account_delete.confirm") }),
    ).toBeVisible();
  }

  async deleteForever(): Promise<void> {
    await this.page.getByRole("button", { name: this.t("account_delete.forever") }).click();
  }

  get blocked() {
    return this.page.getByRole("alert").filter({ hasText: this.t("account_delete.blocked") });
  }
}
