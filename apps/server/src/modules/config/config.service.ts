import type { ConfigEnv } from "@tonus/contract";
import type { Config } from "../../lib/config.ts";

/** The public configuration: an allowlist, so no secret can leak through it (Nightscout #6313). */
export function getPublicConfig(config: Config): ConfigEnv {
  return {
    intercom_key: config.INTERCOM_KEY ?? null,
    analytics_send_to_tonus: config.ANALYTICS_ENABLED,
    tonus_analytics_token: config.ANALYTICS_ENABLED ? (config.ANALYTICS_TOKEN ?? null) : null,
    chat_widget_url: config.INTERCOM_KEY ? (config.CHAT_WIDGET_URL ?? null) : null,
    help_center_url: config.HELP_CENTER_URL,
    billing_mode: config.BILLING_MODE,
    maintenance: config.MAINTENANCE,
  };
}
