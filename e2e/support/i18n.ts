// The web app's own catalogues, so the specs look for exactly the text a person sees in each language.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export type Lang = "en" | "ru";

/** Each language with the browser locale that makes the app pick it (spec §5: browser languages). */
export const LANGS: readonly { lang: Lang; browserLocale: string }[] = [
  { lang: "en", browserLocale: "en-US" },
  { lang: "ru", browserLocale: "ru-RU" },
];

type Catalogue = { [key: string]: string | Catalogue | unknown[] };

const localesDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../apps/web/src/i18n/locales",
);
const catalogues: Record<Lang, Catalogue> = {
  en: JSON.parse(fs.readFileSync(path.join(localesDir, "en.json"), "utf8")) as Catalogue,
  ru: JSON.parse(fs.readFileSync(path.join(localesDir, "ru.json"), "utf8")) as Catalogue,
};

function lookup(lang: Lang, key: string): string | undefined {
  let node: unknown = catalogues[lang];
  for (const part of key.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === "string" ? node : undefined;
}

/** A catalogue text as written, placeholders and all (undefined when there is none). */
export function rawText(lang: Lang, key: string): string | undefined {
  return lookup(lang, key);
}

/** i18next-style lookup: `{{name}}` interpolation and `_one`/`_few`/`_many`/`_other` plurals by `count`. */
export function tr(lang: Lang, key: string, vars: Record<string, string | number> = {}): string {
  let text: string | undefined;
  if (typeof vars.count === "number") {
    const form = new Intl.PluralRules(lang).select(vars.count);
    text = lookup(lang, `${key}_${form}`) ?? lookup(lang, `${key}_other`);
  }
  text ??= lookup(lang, key);
  if (text === undefined) throw new Error(`no ${lang} text for ${key}`);
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(vars[name] ?? ""));
}

/** A number as the app shows it (Intl, at most `decimals` fraction digits). */
export function formatNumber(lang: Lang, value: number, decimals = 1): string {
  return new Intl.NumberFormat(lang, { maximumFractionDigits: decimals }).format(value);
}
