import { describe, expect, it } from "vitest";
import { LANGUAGE_STORAGE_KEY } from "./detect-language.ts";
import { changeLanguage, getCurrentLanguage, i18n } from "./index.ts";

describe("changeLanguage", () => {
  it("switches texts, the page's lang attribute and remembers the choice", async () => {
    await changeLanguage("ru");
    expect(getCurrentLanguage()).toBe("ru");
    expect(document.documentElement.lang).toBe("ru");
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe("ru");
    expect(i18n.t("profile.saved")).toBe("Изменения сохранены");
    await changeLanguage("en");
    expect(i18n.t("profile.saved")).toBe("Changes saved");
  });

  it("uses Russian plural forms", async () => {
    await changeLanguage("ru");
    expect(i18n.t("auth.password_too_short", { count: 1 })).toContain("1 символа");
    expect(i18n.t("auth.password_too_short", { count: 3 })).toContain("3 символов");
    expect(i18n.t("auth.password_too_short", { count: 8 })).toContain("8 символов");
    expect(i18n.t("auth.password_too_short", { count: 21 })).toContain("21 символа");
    await changeLanguage("en");
  });
});
