// Page object of /dashboard (issue 5): locators by role and label in the page's language, and the
// intents the specs use.
import { expect, type Locator, type Page } from "@playwright/test";
import { type Lang, rawText, tr } from "../support/i18n.ts";

/** A catalogue text as a regular expression in which each `{{placeholder}}` matches anything. */
export function textPattern(text: string): RegExp {
  return new RegExp(`^${patternSource(text)}$`);
}

function patternSource(text: string): string {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return escaped.replace(/\\\{\\\{\w+\\\}\\\}/g, ".+?");
}

/** Every plural form of a catalogue text as one pattern (Russian has four). */
export function pluralPattern(lang: Lang, key: string): RegExp {
  const forms = ["zero", "one", "two", "few", "many", "other"].flatMap(
    (form) => rawText(lang, `${key}_${form}`) ?? [],
  );
  if (forms.length === 0) throw new Error(`no ${lang} plural forms for ${key}`);
  return new RegExp(`^(${forms.map(patternSource).join("|")})$`);
}

/** An accessible name that starts with `text` as a whole word (JavaScript regular expressions know no Cyrillic word boundary). */
function startsWith(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\s|$)`);
}

/** The dashboard page in one language: its locators and what a person does there. */
export function dashboardPage(page: Page, lang: Lang) {
  const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
  const chart = (title: string) => page.getByRole("article", { name: title, exact: true });
  const tab = (which: "health" | "graphs") => page.getByRole("tab", { name: t(`dashboard.tabs.${which}`) });
  const addChartButton = page.getByRole("button", { name: t("dashboard.add.open"), exact: true });
  const addDialog = page.getByRole("dialog", { name: t("dashboard.add.title") });
  const chooser = page.locator(".parameter-chooser");

  return {
    t,
    tab,
    chart,
    addChartButton,
    addDialog,
    demoBanner: page.getByRole("region", { name: t("dashboard.demo.title") }),
    statsTable: page.getByRole("table", { name: t("dashboard.table.caption_day") }),
    exportLink: page.getByRole("link", { name: t("dashboard.table.export") }),

    /** A text of the page's catalogue with any values in its placeholders. */
    pattern(key: string): RegExp {
      const text = rawText(lang, key);
      if (text === undefined) throw new Error(`no ${lang} text for ${key}`);
      return textPattern(text);
    },

    plural(key: string): RegExp {
      return pluralPattern(lang, key);
    },

    async open(which: "health" | "graphs" = "health"): Promise<void> {
      await page.goto(which === "graphs" ? "/dashboard?tab=graphs" : "/dashboard");
      await expect(page.getByRole("heading", { level: 1, name: t("dashboard.title") })).toBeVisible();
      await expect(tab(which)).toHaveAttribute("aria-selected", "true");
    },

    /** The chart's "Data on 5 of 30 days" line, shown once its last chunk has arrived. */
    coverage(title: string): Locator {
      return chart(title).locator(".chart-summary > p").first();
    },

    preset(status: string): Locator {
      return page.getByRole("radio", { name: t(`dashboard.range.presets.${status}`), exact: true });
    },

    period(period: "day" | "week" | "month"): Locator {
      return page.getByRole("radio", { name: t(`dashboard.range.periods.${period}`), exact: true });
    },

    tag(tag: string): Locator {
      return page
        .getByRole("group", { name: t("dashboard.tags.legend") })
        .getByRole("checkbox", { name: startsWith(tag) });
    },

    /** Titles of the charts on My graphs, in order. */
    chartOrder(): Promise<string[]> {
      return page.locator(".chart-list > li h3").allTextContents();
    },

    async addChart(title: string): Promise<void> {
      await addChartButton.click();
      await expect(addDialog).toBeVisible();
      await addDialog.getByLabel(t("dashboard.add.search")).fill(title);
      await addDialog
        .getByRole("button", { name: t("dashboard.add.add_named", { title }), exact: true })
        .click();
      await expect(addDialog).toBeHidden();
    },

    chartButton(action: "move_up" | "move_down" | "remove", title: string): Locator {
      return page.getByRole("button", { name: t(`dashboard.graphs.${action}_named`, { title }) });
    },

    /** Opens the table's parameter chooser and answers the checkbox of one parameter. */
    async parameter(label: string): Promise<Locator> {
      if (!(await chooser.evaluate((d) => (d as HTMLDetailsElement).open)))
        await chooser.locator("summary").click();
      return chooser.getByRole("checkbox", { name: startsWith(label) });
    },
  };
}
