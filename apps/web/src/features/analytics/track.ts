import type { AnalyticsEventName, AnalyticsProps, Track, TrackOptions } from "./analytics.ts";

let sink: Track | null = null;

/** Installed by `<Analytics />` while the app runs; until then (and in tests without it) events go nowhere. */
export function setAnalyticsSink(track: Track | null): void {
  sink = track;
}

/**
 * Reports a moment of the operator's funnel (`sign_up`, `measurement_completed`, `upgrade_completed`)
 * or another allow-listed event. Fire and forget: whether anything is sent is decided by the sink
 * (config flag, token, GPC/DNT).
 */
export function trackEvent(
  name: AnalyticsEventName,
  props: AnalyticsProps = {},
  options: TrackOptions = {},
): void {
  void sink?.(name, props, { mayFetchUserId: true, ...options });
}
