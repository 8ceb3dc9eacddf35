import { describe, expect, it } from "vitest";
import { detectLanguage, pickInitialLanguage } from "./detect-language.ts";

describe("detectLanguage", () => {
  it("answers ru when Russian comes before English", () => {
    expect(detectLanguage(["ru-RU", "en-US"])).toBe("ru");
    expect(detectLanguage(["de-DE", "ru", "en"])).toBe("ru");
  });

  it("answers en when English comes first", () => {
    expect(detectLanguage(["en-GB", "ru-RU"])).toBe("en");
  });

  it("falls back to en for any other language or an empty list", () => {
    expect(detectLanguage(["de-DE", "fr"])).toBe("en");
    expect(detectLanguage([])).toBe("en");
    expect(detectLanguage(["uk-UA"])).toBe("en");
  });
});

describe("pickInitialLanguage", () => {
  it("prefers a saved choice and ignores an unknown saved value", () => {
    expect(pickInitialLanguage("ru", ["en"])).toBe("ru");
    expect(pickInitialLanguage("de", ["ru"])).toBe("ru");
    expect(pickInitialLanguage(null, ["en"])).toBe("en");
  });
});
