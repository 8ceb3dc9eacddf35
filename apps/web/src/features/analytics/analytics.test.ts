import type { AnalyticsEvent, ConfigEnv } from "@tonus/contract";
import { afterEach, describe, expect, it } from "vitest";
import {
  buildEvent,
  cleanProps,
  createTracker,
  deviceId,
  mayTrack,
  sendEvent,
  type TrackerDeps,
} from "./analytics.ts";
import { setAnalyticsSink, trackEvent } from "./track.ts";

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

  it("sends only allow-listed keys, never a number in disguise", () => {
    const sneaky = { path: "/m?x=1", plan: "monthly", source: "72", method: true, stress: "80" };
    expect(cleanProps(sneaky as never)).toEqual({ path: "/m", plan: "monthly", method: true });
  });
});

describe("the tracker behind trackEvent", () => {
  afterEach(() => setAnalyticsSink(null));

  function tracker(over: Partial<TrackerDeps> = {}) {
    const sent: { token: string; event: AnalyticsEvent }[] = [];
    const asked: boolean[] = [];
    const track = createTracker({
      getConfig: () => config(),
      getSignals: () => ({}),
      getUserId: async (mayFetch) => {
        asked.push(mayFetch);
        return "user-1";
      },
      getDeviceId: () => "device-1",
      send: async (token, event) => void sent.push({ token, event }),
      ...over,
    });
    return { track, sent, asked };
  }

  it("sends a funnel event with the token, the person and a stable id when one is given", async () => {
    const { track, sent, asked } = tracker();
    const clientId = "6f1d7c1e-8d1f-4a51-9a43-8d3c1d1b2a10";
    await track("measurement_completed", { source: "camera" }, { eventId: clientId, mayFetchUserId: true });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.token).toBe("tok");
    expect(sent[0]?.event).toMatchObject({
      event_id: clientId,
      event_name: "measurement_completed",
      user_id: "user-1",
      device_id: "device-1",
      event_props: { source: "camera" },
    });
    expect(asked).toEqual([true]);
    await track("page_view", { path: "/x" });
    expect(asked).toEqual([true, false]);
  });

  it("sends nothing when the flag is off, the token is missing, or the browser objects", async () => {
    for (const over of [
      { getConfig: () => config({ analytics_send_to_tonus: false }) },
      { getConfig: () => config({ tonus_analytics_token: null }) },
      { getConfig: () => undefined },
      { getSignals: () => ({ globalPrivacyControl: true }) },
      { getSignals: () => ({ doNotTrack: "1" }) },
    ] satisfies Partial<TrackerDeps>[]) {
      const { track, sent, asked } = tracker(over);
      await track("sign_up", { method: "email" });
      expect(sent).toEqual([]);
      // Not even the person's id is looked up.
      expect(asked).toEqual([]);
    }
  });

  it("never throws: an unknown person is sent without an id, a failed send is ignored", async () => {
    const { track, sent } = tracker({
      getUserId: async () => {
        throw new Error("offline");
      },
    });
    await track("upgrade_completed", { plan: "monthly" });
    expect(sent[0]?.event.user_id).toBeNull();
    const failing = tracker({
      send: async () => {
        throw new Error("offline");
      },
    });
    await expect(failing.track("sign_up")).resolves.toBeUndefined();
  });

  it("trackEvent reports to the installed sink only, allowing it to load the person's id", () => {
    const calls: unknown[][] = [];
    trackEvent("sign_up", { method: "email" });
    setAnalyticsSink(async (...args) => void calls.push(args));
    trackEvent("sign_up", { method: "email" });
    expect(calls).toEqual([["sign_up", { method: "email" }, { mayFetchUserId: true }]]);
  });
});
