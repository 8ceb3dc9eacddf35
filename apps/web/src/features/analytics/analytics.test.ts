import type { ConfigEnv } from "@tonus/contract";
import { describe, expect, it } from "vitest";
import { buildEvent, deviceId, mayTrack, sendEvent } from "./analytics.ts";

const config = (over: Partial<ConfigEnv> = {}): ConfigEnv => ({
  intercom_key: null,
  analytics_send_to_tonus: true,
  tonus_analytics_token: "tok",
  chat_widget_url: null,
  help_center_url: "https://help.example",
  billing_mode: "off",
  stripe_publishable_key: null,
  maintenance: false,
  ...over,
});

describe("first-party analytics in the web app", () => {
  it("sends only when the config flag allows and the browser does not object", () => {
    expect(mayTrack(config(), {})).toBe(true);
    expect(mayTrack(config({ analytics_send_to_tonus: false }), {})).toBe(false);
    expect(mayTrack(config({ tonus_analytics_token: null }), {})).toBe(false);
    expect(mayTrack(undefined, {})).toBe(false);
    expect(mayTrack(config(), { globalPrivacyControl: true })).toBe(false);
    expect(mayTrack(config(), { doNotTrack: "1" })).toBe(false);
    expect(mayTrack(config(), { doNotTrack: "0" })).toBe(true);
  });

  it("builds an event without the query or fragment of the path", () => {
    const e = buildEvent(
      "page_view",
      { path: "/user/login-direct?token=secret#x" },
      { userId: "u", deviceId: "d" },
    );
    expect(e.event_props).toEqual({ path: "/user/login-direct" });
    expect(e.event_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(e)).not.toContain("secret");
  });

  it("keeps one device id per browser", () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
    };
    const first = deviceId(storage);
    expect(first).toBeTruthy();
    expect(deviceId(storage)).toBe(first);
    expect(deviceId(undefined)).toBeNull();
  });

  it("posts with the token header and no cookies, and ignores failures", async () => {
    const calls: RequestInit[] = [];
    await sendEvent(
      "tok",
      buildEvent("sign_in", {}, { userId: null, deviceId: null }),
      async (_url, init) => {
        calls.push(init ?? {});
        return new Response("{}");
      },
    );
    expect(calls[0]?.credentials).toBe("omit");
    const headers = (calls[0]?.headers ?? {}) as Record<string, string>;
    expect(headers["X-Analytics-Token"]).toBe("tok");
    await expect(
      sendEvent("tok", buildEvent("sign_in", {}, { userId: null, deviceId: null }), async () => {
        throw new Error("offline");
      }),
    ).resolves.toBeUndefined();
  });
});
