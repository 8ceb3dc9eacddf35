import type { Locale } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { changeLanguage } from "../../i18n/index.ts";

const LANGUAGES: { code: Locale; labelKey: string }[] = [
  { code: "en", labelKey: "language.en" },
  { code: "ru", labelKey: "language.ru" },
];

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  return (
    // biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons, not a form fieldset
    <div className="language-switch" role="group" aria-label={t("language.label")}>
      {LANGUAGES.map((language) => (
        <button
          key={language.code}
          type="button"
          lang={language.code}
          aria-pressed={i18n.language === language.code}
          onClick={() => void changeLanguage(language.code)}
        >
          {t(language.labelKey)}
        </button>
      ))}
    </div>
  );
}
