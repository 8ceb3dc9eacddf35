import en from "../locales/en.json" with { type: "json" };
import ru from "../locales/ru.json" with { type: "json" };

export type ServerLocale = "en" | "ru";
type Catalogue = { [key: string]: string | Catalogue };
const CATALOGUES: Record<ServerLocale, Catalogue> = { en, ru };

/** The spec's rule: ru if it comes before en in the browser's languages, otherwise en. */
export function pickLocale(acceptLanguage: string | undefined): ServerLocale {
  if (!acceptLanguage) return "en";
  for (const part of acceptLanguage.split(",")) {
    const tag = part.split(";")[0]?.trim().toLowerCase() ?? "";
    if (tag === "ru" || tag.startsWith("ru-")) return "ru";
    if (tag === "en" || tag.startsWith("en-")) return "en";
  }
  return "en";
}

function lookup(catalogue: Catalogue, key: string): string | undefined {
  let node: string | Catalogue | undefined = catalogue;
  for (const part of key.split(".")) {
    if (typeof node !== "object") return undefined;
    node = node[part];
  }
  return typeof node === "string" ? node : undefined;
}

/** The text for `key` with `{{name}}` placeholders filled; undefined when neither catalogue has it. */
export function translateOptional(
  locale: ServerLocale,
  key: string,
  params: Record<string, string> = {},
): string | undefined {
  const text = lookup(CATALOGUES[locale], key) ?? lookup(CATALOGUES.en, key);
  return text?.replace(/\{\{(\w+)\}\}/g, (_, name: string) => params[name] ?? "");
}

export function translate(locale: ServerLocale, key: string, params: Record<string, string> = {}): string {
  return translateOptional(locale, key, params) ?? key;
}

/**
 * The plural form of `key` for `count` (`key_one`, `key_few`, `key_many`, `key_other`, as the web
 * catalogues spell them), chosen by the locale's plural rules; `{{count}}` is filled in.
 */
export function translatePlural(
  locale: ServerLocale,
  key: string,
  count: number,
  params: Record<string, string> = {},
): string {
  const form = new Intl.PluralRules(locale).select(count);
  const all = { count: new Intl.NumberFormat(locale).format(count), ...params };
  return translateOptional(locale, `${key}_${form}`, all) ?? translate(locale, `${key}_other`, all);
}

/** `language` as a server locale: the newsletter language a profile stores, English when unknown. */
export function asServerLocale(language: string | null | undefined): ServerLocale {
  return language === "ru" ? "ru" : "en";
}
