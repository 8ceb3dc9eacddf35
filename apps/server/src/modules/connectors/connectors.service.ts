import {
  type Connector,
  ConnectorErrorCodeSchema,
  type ConnectorList,
  SyncReportSchema,
  SyncStateSchema,
} from "@tonus/contract";
import { AppError } from "../../lib/app-error.ts";
import { providerUrl } from "./connectors.http.ts";
import { findProvider, isRetired, PROVIDERS, providerSettings } from "./connectors.providers.ts";
import {
  type ConnectionRow,
  deleteConnection,
  findConnectionOf,
  listConnectionsOf,
  requestSyncOf,
} from "./connectors.repo.ts";
import type { ConnectorDeps } from "./connectors.sync.ts";
import { openTokens } from "./connectors.tokens.ts";
import type { ProviderDef, TokenSet } from "./connectors.types.ts";

/** The person's connectors: their state, sync now, revocation and disconnect (connecting: connectors.connect.ts). */

const REVOKE_TIMEOUT_MS = 15_000;

function toWire(deps: ConnectorDeps, provider: ProviderDef, row: ConnectionRow | null): Connector {
  return {
    provider: provider.key,
    name: provider.name,
    configured: providerSettings(deps.ctx.config, provider.key) !== null,
    retired_on: provider.retiredOn ?? null,
    has_export_file: provider.hasExportFile,
    metrics: provider.metrics,
    blood_pressure: provider.bloodPressure,
    connection: row && {
      status: row.status === "reconnect_needed" ? "reconnect_needed" : "active",
      connected_at: row.connectedAt.toISOString(),
      last_sync_at: row.lastSyncAt?.toISOString() ?? null,
      last_sync_report: SyncReportSchema.safeParse(row.lastSyncReport).data ?? null,
      sync_state: SyncStateSchema.safeParse(row.syncState).data ?? "idle",
      retry_at: row.syncState === "waiting" ? (row.retryAt?.toISOString() ?? null) : null,
      last_error: (() => {
        const code = ConnectorErrorCodeSchema.safeParse(row.lastErrorCode);
        return code.success && row.lastErrorAt
          ? { code: code.data, at: row.lastErrorAt.toISOString() }
          : null;
      })(),
    },
  };
}

export function requireProvider(key: string): ProviderDef {
  const provider = findProvider(key);
  if (!provider) throw new AppError("not_found", "Not found");
  return provider;
}

export async function listConnectors(deps: ConnectorDeps, userId: string): Promise<ConnectorList> {
  const rows = await listConnectionsOf(deps.ctx.database.db, userId);
  return { results: PROVIDERS.map((p) => toWire(deps, p, rows.find((r) => r.provider === p.key) ?? null)) };
}

export async function getConnector(deps: ConnectorDeps, userId: string, key: string): Promise<Connector> {
  const provider = requireProvider(key);
  return toWire(deps, provider, await findConnectionOf(deps.ctx.database.db, userId, provider.key));
}

/** Asks for a sync now; it runs as a background job (at once, or after a running one / a backoff). */
export async function requestSync(deps: ConnectorDeps, userId: string, key: string): Promise<Connector> {
  const provider = requireProvider(key);
  const { db } = deps.ctx.database;
  const connection = await findConnectionOf(db, userId, provider.key);
  if (!connection) throw new AppError("not_found", "Not found");
  if (connection.status !== "active")
    throw new AppError(
      "connector_reconnect_needed",
      `${provider.name} refused the connection: connect again`,
    );
  if (!providerSettings(deps.ctx.config, provider.key))
    throw new AppError("connector_not_configured", `${provider.name} is not configured on this installation`);
  if (isRetired(provider, deps.clock()))
    throw new AppError("connector_retired", `${provider.name} turned this API off`);
  const row = await requestSyncOf(db, connection.id, deps.clock());
  if (row && connection.syncState === "idle") await deps.enqueue({ userId, connectionId: connection.id });
  return toWire(deps, provider, row ?? connection);
}

/**
 * Revokes a connection's grant at the provider, within a time limit; false (logged) when the provider
 * did not confirm, was unreachable, or the tokens could not be read.
 */
export async function revokeAtProvider(
  deps: ConnectorDeps,
  provider: ProviderDef,
  connection: ConnectionRow,
  tokens: TokenSet | null,
): Promise<boolean> {
  const settings = providerSettings(deps.ctx.config, provider.key);
  if (!tokens || !settings) return false;
  try {
    await provider.revoke({
      tokens,
      externalUserId: connection.externalUserId,
      credentials: settings.credentials,
      urlOf: (real) => providerUrl(real, settings.baseUrl),
      fetch: (url, init) =>
        fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(REVOKE_TIMEOUT_MS) }),
    });
    return true;
  } catch (error) {
    deps.ctx.log.warn(
      {
        provider: provider.key,
        connectionId: connection.id,
        reason: error instanceof Error ? error.message : "error",
      },
      "connector revocation failed",
    );
    return false;
  }
}

/**
 * Disconnects: revokes at the provider, then deletes the connection and its tokens here whatever the
 * provider answered, and says whether the provider confirmed. Values already imported stay on the
 * dashboard, like those of a file import.
 */
export async function disconnect(
  deps: ConnectorDeps,
  userId: string,
  key: string,
): Promise<{ ok: true; revoked: boolean }> {
  const provider = requireProvider(key);
  const { db } = deps.ctx.database;
  const connection = await findConnectionOf(db, userId, provider.key);
  if (!connection) throw new AppError("not_found", "Not found");
  const tokens = await openTokens(db, deps.box, connection);
  const revoked = await revokeAtProvider(deps, provider, connection, tokens);
  await deleteConnection(db, userId, connection.id);
  return { ok: true, revoked };
}
