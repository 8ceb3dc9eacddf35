import type { Locale } from "@tonus/contract";
import i18next from "i18next";
import { initReactI18next } from "react-i18next";
import { LANGUAGE_STORAGE_KEY, pickInitialLanguage } from "./detect-language.ts";
import en from "./locales/en.json";
import ru from "./locales/ru.json";

function readStoredLanguage(): string | null {
  try {
    return localStorage.getItem(LANGUAGE_STORAGE_KEY);
  } catch {
    return null;
  }
}

const initial = pickInitialLanguage(readStoredLanguage(), navigator.languages ?? [navigator.language]);

void i18next.use(initReactI18next).init({
  lng: initial,
  fallbackLng: "en",
  supportedLngs: ["en", "ru"],
  resources: { en: { translation: en }, ru: { translation: ru } },
  interpolation: { escapeValue: false },
  returnNull: false,
});

document.documentElement.lang = initial;

export const i18n = i18next;

export function getCurrentLanguage(): Locale {
  return i18next.language === "ru" ? "ru" : "en";
}

/** Switches and remembers the language; the page's lang attribute follows. */
export async function changeLanguage(language: Locale): Promise<void> {
  await i18next.changeLanguage(language);
  document.documentElement.lang = language;
  rememberLanguage();
}

/** Writes the current language to storage (again after logout wipes localStorage). */
export function rememberLanguage(): void {
  try {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, getCurrentLanguage());
  } catch {
    // Private mode may refuse storage; the language then lasts for this page only.
  }
}
