import type { Locale } from "@tonus/contract";

export const SUPPORTED_LOCALES: readonly Locale[] = ["en", "ru"];
export const LANGUAGE_STORAGE_KEY = "tonus.language";

/** Spec §5: ru when Russian comes before English in the browser's list, otherwise en; anything else → en. */
export function detectLanguage(browserLanguages: readonly string[]): Locale {
  for (const tag of browserLanguages) {
    const base = tag.toLowerCase().split(/[-_]/)[0];
    if (base === "ru") return "ru";
    if (base === "en") return "en";
  }
  return "en";
}

export function isLocale(value: unknown): value is Locale {
  return value === "en" || value === "ru";
}

/** The language saved by the switcher wins over the browser's list. */
export function pickInitialLanguage(stored: string | null, browserLanguages: readonly string[]): Locale {
  return isLocale(stored) ? stored : detectLanguage(browserLanguages);
}
