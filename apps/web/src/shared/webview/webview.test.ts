import { describe, expect, it } from "vitest";
import { convertAddressLink, detectWebView, isExternalLink } from "./webview.ts";

function memoryStorage() {
  const values = new Map<string, string>();
  return {
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
    removeItem: (key: string) => void values.delete(key),
  };
}

describe("detectWebView", () => {
  it("turns on with ?webview=1 and remembers it for the tab", () => {
    const storage = memoryStorage();
    expect(detectWebView("?webview=1", "Mozilla", storage)).toBe(true);
    expect(detectWebView("", "Mozilla", storage)).toBe(true);
    expect(detectWebView("?webview=0", "Mozilla", storage)).toBe(false);
    expect(detectWebView("", "Mozilla", storage)).toBe(false);
  });

  it("recognises the companion app's user agent", () => {
    expect(detectWebView("", "Mozilla/5.0 TonusApp/2.1", memoryStorage())).toBe(true);
  });
});

describe("web-view links", () => {
  it("turns {address} links into internal routes", () => {
    expect(convertAddressLink("{address}/user/profile")).toBe("/user/profile");
    expect(convertAddressLink("https://x.example/")).toBe("https://x.example/");
  });

  it("treats only other hosts as external", () => {
    expect(isExternalLink("https://help.example/", "https://app.example")).toBe(true);
    expect(isExternalLink("https://app.example/terms", "https://app.example")).toBe(false);
    expect(isExternalLink("/terms", "https://app.example")).toBe(false);
  });
});
