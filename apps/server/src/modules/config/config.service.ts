import type { ConfigEnv } from "@tonus/contract";
import type { Config } from "../../lib/config.ts";
import { INTERCOM_WIDGET_ORIGIN } from "../../lib/security-headers.ts";

/**
 * The chat script the web app loads: Intercom's widget for the configured app id, or the operator's own
 * CHAT_WIDGET_URL (a self-hosted copy, a stand-in in tests). None without INTERCOM_KEY.
 */
export function chatWidgetUrl(config: Config): string | null {
  if (!config.INTERCOM_KEY) return null;
  return (
    config.CHAT_WIDGET_URL ?? `${INTERCOM_WIDGET_ORIGIN}/widget/${encodeURIComponent(config.INTERCOM_KEY)}`
  );
}

/** The public configuration: an allowlist, so no secret can leak through it (Nightscout #6313). */
export function getPublicConfig(config: Config): ConfigEnv {
  return {
    intercom_key: config.INTERCOM_KEY || null,
    analytics_send_to_tonus: config.ANALYTICS_ENABLED,
    tonus_analytics_token: config.ANALYTICS_ENABLED ? (config.ANALYTICS_TOKEN ?? null) : null,
    chat_widget_url: chatWidgetUrl(config),
    help_center_url: config.HELP_CENTER_URL,
    billing_mode: config.BILLING_MODE,
    stripe_publishable_key: config.BILLING_MODE === "stripe" ? (config.STRIPE_PUBLISHABLE_KEY ?? null) : null,
    maintenance: config.MAINTENANCE,
  };
}
