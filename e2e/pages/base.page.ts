import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";
import { type Lang, tr } from "../support/i18n.ts";

/**
 * What every page object shares: the page, its language, the catalogue lookup, the h1 and axe. Page
 * objects hold locators and intent methods (STYLE.md §10); assertions about outcomes stay in the specs.
 */
export class BasePage {
  readonly page: Page;
  readonly lang: Lang;
  constructor(page: Page, lang: Lang) {
    this.page = page;
    this.lang = lang;
  }

  t(key: string, vars?: Record<string, string | number>): string {
    return tr(this.lang, key, vars);
  }

  heading(key: string, level = 1) {
    return this.page.getByRole("heading", { level, name: this.t(key) });
  }

  /** axe (WCAG 2.0/2.1 A and AA) finds nothing on the page as it is now. */
  async expectAccessible(): Promise<void> {
    const results = await new AxeBuilder({ page: this.page })
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
      .analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
  }
}

/** A text as a regular expression that matches it literally. */
export function literal(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
}
