import { describe, expect, it } from "vitest";
import { getWeekStartDay } from "./week.ts";

describe("getWeekStartDay", () => {
  it("starts the week on Monday in Russian", () => {
    expect(getWeekStartDay("ru")).toBe(1);
    expect(getWeekStartDay("ru-RU")).toBe(1);
  });

  it("starts the week on Sunday otherwise", () => {
    expect(getWeekStartDay("en")).toBe(0);
    expect(getWeekStartDay("de")).toBe(0);
  });
});
