import type { Config } from "../../lib/config.ts";
import { isConnectorConfigured } from "../connectors/connectors.providers.ts";
import type { CloudProvider } from "./sources.entries.ts";

/**
 * A `cloud` method is available when the connectors module has a connector for its provider, the
 * operator configured its OAuth client credentials, and the vendor has not retired the API (the legacy
 * Fitbit Web API); otherwise the page says plainly that this installation cannot connect it.
 */
export function isCloudAvailable(provider: CloudProvider, config: Config): boolean {
  return isConnectorConfigured(config, provider);
}
