import type { ConnectorProvider } from "@tonus/contract";
import type { Config } from "../../lib/config.ts";
import type { ClientCredentials, ProviderDef } from "./connectors.types.ts";
import { fitbit } from "./providers/fitbit.ts";
import { googleHealth } from "./providers/google-health.ts";
import { oura } from "./providers/oura.ts";
import { polar } from "./providers/polar.ts";
import { whoop } from "./providers/whoop.ts";
import { withings } from "./providers/withings.ts";

/** Every provider Tonus can connect, in the order the API lists them. */
export const PROVIDERS: readonly ProviderDef[] = [oura, withings, polar, fitbit, googleHealth, whoop];

export function findProvider(key: string): ProviderDef | undefined {
  return PROVIDERS.find((p) => p.key === key);
}

/** The operator's settings for one provider: client credentials and the optional base-URL override. */
export type ProviderSettings = { credentials: ClientCredentials; baseUrl: string | undefined };

const CONFIG_PREFIX: Record<ConnectorProvider, string> = {
  oura: "OURA",
  withings: "WITHINGS",
  polar: "POLAR",
  fitbit: "FITBIT",
  google_health: "GOOGLE_HEALTH",
  whoop: "WHOOP",
};

/** The provider's settings, or null when the operator has not configured its client id and secret. */
export function providerSettings(config: Config, key: ConnectorProvider): ProviderSettings | null {
  const env = config as unknown as Record<string, string | undefined>;
  const prefix = CONFIG_PREFIX[key];
  const clientId = env[`${prefix}_CLIENT_ID`];
  const clientSecret = env[`${prefix}_CLIENT_SECRET`];
  if (!clientId || !clientSecret) return null;
  return { credentials: { clientId, clientSecret }, baseUrl: env[`${prefix}_BASE_URL`] };
}

/** True from the day the vendor turns the provider's API off. */
export function isRetired(provider: ProviderDef, now: Date): boolean {
  return provider.retiredOn !== undefined && now.toISOString().slice(0, 10) >= provider.retiredOn;
}

/** True when people on this installation can connect `key` now (the data-source catalogue asks this). */
export function isConnectorConfigured(config: Config, key: string, now = new Date()): boolean {
  const provider = findProvider(key);
  return (
    provider !== undefined && providerSettings(config, provider.key) !== null && !isRetired(provider, now)
  );
}
