import { describe, expect, it } from "vitest";
import en from "../locales/en.json" with { type: "json" };
import ru from "../locales/ru.json" with { type: "json" };
import { translatePlural } from "./i18n.ts";

type Catalogue = { [key: string]: string | Catalogue };

/** Every key of a catalogue, plural forms folded into their base key. */
function keys(catalogue: Catalogue, prefix = ""): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(catalogue)) {
    const key = `${prefix}${k}`;
    if (typeof v === "string") out.add(key.replace(/_(one|few|many|other)$/, "_<plural>"));
    else for (const inner of keys(v, `${key}.`)) out.add(inner);
  }
  return out;
}

describe("the server's e-mail catalogues", () => {
  it("have the same keys in English and Russian", () => {
    expect([...keys(ru)].sort()).toEqual([...keys(en)].sort());
  });

  it("choose Russian plural forms by the number", () => {
    const key = "notifications.weekly.measured";
    expect(translatePlural("ru", key, 1)).toBe("За неделю вы сделали 1 измерение.");
    expect(translatePlural("ru", key, 3)).toBe("За неделю вы сделали 3 измерения.");
    expect(translatePlural("ru", key, 5)).toBe("За неделю вы сделали 5 измерений.");
    expect(translatePlural("ru", key, 21)).toBe("За неделю вы сделали 21 измерение.");
    expect(translatePlural("en", key, 1)).toBe("You measured 1 time this week.");
    expect(translatePlural("en", key, 12)).toBe("You measured 12 times this week.");
  });
});
