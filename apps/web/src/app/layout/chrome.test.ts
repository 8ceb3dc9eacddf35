import { describe, expect, it } from "vitest";
import { getChrome } from "./chrome.ts";

describe("getChrome", () => {
  it("shows header and footer on ordinary pages", () => {
    expect(getChrome("/user/profile", false)).toEqual({ hasHeader: true, hasFooter: true });
  });

  it("hides both on data-sources-mobile-back and measure-details paths", () => {
    expect(getChrome("/data-sources-mobile-back/garmin", false)).toEqual({
      hasHeader: false,
      hasFooter: false,
    });
    expect(getChrome("/measure-details/42", false)).toEqual({ hasHeader: false, hasFooter: false });
  });

  it("hides both in web-view mode", () => {
    expect(getChrome("/user/profile", true)).toEqual({ hasHeader: false, hasFooter: false });
  });
});
