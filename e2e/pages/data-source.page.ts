import { expect, type Locator, type Page } from "@playwright/test";
import { type Lang, tr } from "../support/i18n.ts";

/**
 * /data-sources/{slug}: the parts a cloud-connector spec uses — the provider's connection section
 * (features/connectors/CloudConnection) inside the source page. Texts come from the web catalogues.
 */
export class DataSourcePage {
  readonly page: Page;
  readonly lang: Lang;
  readonly providerName: string;

  constructor(page: Page, lang: Lang, providerName: string) {
    this.page = page;
    this.lang = lang;
    this.providerName = providerName;
  }

  private t(key: string, vars: Record<string, string | number> = {}): string {
    return tr(this.lang, key, { name: this.providerName, ...vars });
  }

  async goto(slug: string): Promise<void> {
    await this.page.goto(`/data-sources/${slug}`);
  }

  /** The provider's connection section, named by its heading. */
  get connection(): Locator {
    return this.page.getByRole("region", { name: this.t("connectors.title") });
  }

  /** The source's own heading (its name), where its state badges sit. */
  get header(): Locator {
    return this.page.locator(".source-header");
  }

  async connect(): Promise<void> {
    await this.connection.getByRole("button", { name: this.t("connectors.connect") }).click();
  }

  async expectConnected(): Promise<void> {
    await expect(this.connection.getByText(this.t("connectors.result.ok"))).toBeVisible({ timeout: 30_000 });
    await expect(this.connection.getByText(this.t("connectors.connected_since"))).toBeVisible();
    await expect(this.header.getByText(this.t("sources.state.connected"), { exact: true })).toBeVisible();
  }

  /** Waits for the first background sync to finish: its report appears with the values read. */
  async expectSynced(): Promise<void> {
    await expect(this.connection.getByText(this.t("connectors.report.read"))).toBeVisible({
      timeout: 60_000,
    });
    await expect(this.connection.getByText(this.t("connectors.never_synced"))).toHaveCount(0);
  }

  /** Waits for the sync this page watched to end well: the status line says "Sync finished: …". */
  async expectSyncFinished(): Promise<void> {
    const [before, after] = this.t("connectors.state.done", { time: "\u0000" }).split("\u0000");
    await expect(this.connection.getByRole("status")).toContainText(before ?? "", { timeout: 60_000 });
    await expect(this.connection.getByRole("status")).toContainText(after ?? "");
  }

  async syncNow(): Promise<void> {
    await this.connection.getByRole("button", { name: this.t("connectors.sync_now") }).click();
  }

  /** Disconnect, then confirm in the group that asks. */
  async disconnect(): Promise<void> {
    await this.connection.getByRole("button", { name: this.t("connectors.disconnect") }).click();
    const confirm = this.connection.getByRole("group", { name: this.t("connectors.confirm_title") });
    await expect(confirm).toBeVisible();
    await confirm.getByRole("button", { name: this.t("connectors.confirm_yes") }).click();
  }

  async expectDisconnected(): Promise<void> {
    await expect(this.connection.getByText(this.t("connectors.disconnected"))).toBeVisible({
      timeout: 30_000,
    });
    await expect(this.connection.getByRole("button", { name: this.t("connectors.connect") })).toBeVisible();
    await expect(this.header.getByText(this.t("sources.state.connected"), { exact: true })).toHaveCount(0);
  }
}
