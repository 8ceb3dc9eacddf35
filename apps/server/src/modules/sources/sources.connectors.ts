import type { CloudState } from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import type { Config } from "../../lib/config.ts";
import { findProvider, isConnectorConfigured, isRetired } from "../connectors/connectors.providers.ts";
import { listConnectionsOf } from "../connectors/connectors.repo.ts";
import type { CloudProvider } from "./sources.entries.ts";

/**
 * A `cloud` method is available when the connectors module has a connector for its provider, the
 * operator configured its OAuth client credentials, and the vendor has not retired the API (the legacy
 * Fitbit Web API); otherwise the page says plainly that this installation cannot connect it.
 */
export function isCloudAvailable(provider: CloudProvider, config: Config): boolean {
  return isConnectorConfigured(config, provider);
}

/** True once the vendor has turned the provider's API off (the legacy Fitbit Web API). */
export function isCloudRetired(provider: CloudProvider, now = new Date()): boolean {
  const def = findProvider(provider);
  return def !== undefined && isRetired(def, now);
}

/** The caller's cloud connections by provider: linked, or waiting to be authorised again. */
export async function cloudStatesOf(db: Db, userId: string): Promise<Map<string, CloudState>> {
  const rows = await listConnectionsOf(db, userId);
  return new Map(
    rows.map((r) => [r.provider, r.status === "reconnect_needed" ? "reconnect_needed" : "connected"]),
  );
}
