import type { AnalyticsEvent, ConfigEnv } from "@tonus/contract";
import { OAUTH_API } from "@tonus/contract";

const DEVICE_KEY = "tonus_device_id";

type PrivacySignals = { globalPrivacyControl?: boolean; doNotTrack?: string | null };

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

/** One event as the ingest takes it; only the path is sent, never the query (it can carry tokens). */
export function buildEvent(
  name: AnalyticsEvent["event_name"],
  props: Record<string, string | boolean>,
  who: { userId: string | null; deviceId: string | null },
  now = new Date(),
): AnalyticsEvent {
  const clean = { ...props };
  if (typeof clean.path === "string") clean.path = clean.path.split(/[?#]/)[0] ?? "";
  return {
    event_id: crypto.randomUUID(),
    event_name: name,
    user_id: who.userId,
    device_id: who.deviceId,
    date_created: now.toISOString(),
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    event_props: clean,
  };
}

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
