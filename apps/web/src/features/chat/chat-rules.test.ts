import { describe, expect, it } from "vitest";
import { CHAT_BOOT_DELAY_MS, decideBootedChat, shouldLoadChat } from "./chat-rules.ts";

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

  it("stays off on /payment-cancel, the header-less paths and the share pages", () => {
    for (const pathname of [
      "/share-measurement",
      "/share-bp-log",
      "/share-bp-log/",
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

describe("decideBootedChat", () => {
  it("shuts the Messenger down when its person logs out or another person signs in", () => {
    expect(decideBootedChat("u-1", false, { userId: null, pathname: "/user/logout" })).toBe("shutdown");
    expect(decideBootedChat("u-1", false, { userId: "u-2", pathname: "/dashboard" })).toBe("shutdown");
  });

  it("hides the launcher on /payment-cancel and the header-less paths, and shows it again after", () => {
    expect(decideBootedChat("u-1", false, { userId: "u-1", pathname: "/payment-cancel" })).toBe("hide");
    expect(decideBootedChat("u-1", false, { userId: "u-1", pathname: "/measure-details/7" })).toBe("hide");
    expect(decideBootedChat("u-1", true, { userId: "u-1", pathname: "/payment-cancel-info" })).toBeNull();
    expect(decideBootedChat("u-1", true, { userId: "u-1", pathname: "/user/profile" })).toBe("show");
    expect(decideBootedChat("u-1", false, { userId: "u-1", pathname: "/user/profile" })).toBeNull();
  });
});
