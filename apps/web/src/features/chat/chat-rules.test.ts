import { describe, expect, it } from "vitest";
import { CHAT_BOOT_DELAY_MS, shouldLoadChat } from "./chat-rules.ts";

const base = {
  intercomKey: "key",
  widgetUrl: "https://chat.example/widget.js",
  userType: "full",
  pathname: "/dashboard",
  hasPendingDirectLogin: false,
} as const;

describe("shouldLoadChat", () => {
  it("loads for a full user when the operator configured a widget", () => {
    expect(shouldLoadChat(base)).toBe(true);
  });

  it("stays off without configuration, for other user types and while URL credentials are pending", () => {
    expect(shouldLoadChat({ ...base, intercomKey: null })).toBe(false);
    expect(shouldLoadChat({ ...base, widgetUrl: null })).toBe(false);
    expect(shouldLoadChat({ ...base, userType: "share" })).toBe(false);
    expect(shouldLoadChat({ ...base, userType: "anonymous" })).toBe(false);
    expect(shouldLoadChat({ ...base, hasPendingDirectLogin: true })).toBe(false);
  });

  it("stays off on /payment-cancel and the header-less paths", () => {
    for (const pathname of [
      "/payment-cancel",
      "/payment-cancel-info",
      "/data-sources-mobile-back",
      "/x/measure-details/1",
    ]) {
      expect(shouldLoadChat({ ...base, pathname })).toBe(false);
    }
  });

  it("boots 2 seconds after load", () => {
    expect(CHAT_BOOT_DELAY_MS).toBe(2000);
  });
});
