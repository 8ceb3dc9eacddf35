import type { ANALYTICS_EVENT_NAMES, AnalyticsEvent, ConfigEnv } from "@tonus/contract";
import { ANALYTICS_PROPERTY_KEYS, OAUTH_API } from "@tonus/contract";

const DEVICE_KEY = "tonus_device_id";

export type PrivacySignals = { globalPrivacyControl?: boolean; doNotTrack?: string | null };

/**
 * Whether the app may send analytics at all: the operator's flag and token (spec §3 Config), and the
 * browser not asking to be left alone (Global Privacy Control, Do Not Track).
 */
export function mayTrack(config: ConfigEnv | undefined, signals: PrivacySignals): boolean {
  if (!config?.analytics_send_to_tonus || !config.tonus_analytics_token) return false;
  if (signals.globalPrivacyControl === true || signals.doNotTrack === "1") return false;
  return true;
}

/** A random per-browser id, kept in local storage; the server stores only a keyed hash of it. */
export function deviceId(storage: Pick<Storage, "getItem" | "setItem"> | undefined): string | null {
  if (!storage) return null;
  try {
    let id = storage.getItem(DEVICE_KEY);
    if (!id) {
      id = crypto.randomUUID();
      storage.setItem(DEVICE_KEY, id);
    }
    return id;
  } catch {
    return null;
  }
}

export type AnalyticsEventName = (typeof ANALYTICS_EVENT_NAMES)[number];
/** Only allow-listed keys, with string or boolean values: a number (a health value) cannot be sent. */
export type AnalyticsProps = Partial<Record<(typeof ANALYTICS_PROPERTY_KEYS)[number], string | boolean>>;

const PROPERTY_KEYS: ReadonlySet<string> = new Set(ANALYTICS_PROPERTY_KEYS);

/**
 * The props as sent: allow-listed keys only, strings that are only a number dropped (a value in
 * disguise), and only the path, never its query or fragment (they can carry tokens).
 */
export function cleanProps(props: AnalyticsProps): AnalyticsProps {
  const out: Record<string, string | boolean> = {};
  for (const [key, value] of Object.entries(props)) {
    if (!PROPERTY_KEYS.has(key)) continue;
    if (typeof value === "boolean") out[key] = value;
    else if (typeof value === "string") {
      const text = key === "path" ? (value.split(/[?#]/)[0] ?? "") : value;
      if (/^\s*-?\d+([.,]\d+)?\s*$/.test(text)) continue;
      out[key] = text;
    }
  }
  return out;
}

/** One event as the ingest takes it; `eventId` makes a repeated event (a retried upload) one event. */
export function buildEvent(
  name: AnalyticsEventName,
  props: AnalyticsProps,
  who: { userId: string | null; deviceId: string | null },
  now = new Date(),
  eventId: string = crypto.randomUUID(),
): AnalyticsEvent {
  return {
    event_id: eventId,
    event_name: name,
    user_id: who.userId,
    device_id: who.deviceId,
    date_created: now.toISOString(),
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    event_props: cleanProps(props),
  };
}

export type TrackOptions = {
  /** A stable uuid for an event that may be reported twice (the measurement's client id). */
  eventId?: string;
  /** Whether the person's id may be fetched when the profile is not loaded yet (never for page views). */
  mayFetchUserId?: boolean;
};

export type TrackerDeps = {
  getConfig: () => ConfigEnv | undefined;
  getSignals: () => PrivacySignals;
  getUserId: (mayFetch: boolean) => Promise<string | null>;
  getDeviceId: () => string | null;
  send: (token: string, event: AnalyticsEvent) => Promise<void>;
};

/**
 * The app's one way to report an event: nothing leaves the browser unless the operator's flag and token
 * allow it and the browser sends neither Global Privacy Control nor Do Not Track, checked at each event.
 * Never throws: analytics must not disturb the person.
 */
export function createTracker(deps: TrackerDeps) {
  return async (name: AnalyticsEventName, props: AnalyticsProps = {}, options: TrackOptions = {}) => {
    try {
      const config = deps.getConfig();
      const token = config?.tonus_analytics_token;
      if (!token || !mayTrack(config, deps.getSignals())) return;
      const userId = await deps.getUserId(options.mayFetchUserId ?? false).catch(() => null);
      const who = { userId, deviceId: deps.getDeviceId() };
      await deps.send(token, buildEvent(name, props, who, new Date(), options.eventId));
    } catch {
      // Ignored on purpose.
    }
  };
}

export type Track = ReturnType<typeof createTracker>;

/** Sends without cookies; a failure is ignored (analytics must never disturb the person). */
export async function sendEvent(token: string, event: AnalyticsEvent, doFetch: typeof fetch = fetch) {
  try {
    await doFetch(OAUTH_API.analyticsSend, {
      method: "POST",
      credentials: "omit",
      keepalive: true,
      headers: { "Content-Type": "application/json", "X-Analytics-Token": token },
      body: JSON.stringify(event),
    });
  } catch {
    // Ignored on purpose.
  }
}
