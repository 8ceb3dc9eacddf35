import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  CONNECT_RETURN_PATH_RE,
  CONNECTORS_API,
  type Connector,
  type ConnectorProvider,
  type ConnectResponse,
  type DisconnectResponse,
} from "@tonus/contract";
import { useCallback } from "react";
import { apiRequest } from "../../shared/api/client.ts";
import { SOURCES_QUERY_KEY } from "../sources/sources-api.ts";

export const connectorKey = (provider: ConnectorProvider) => ["connectors", provider] as const;

const pathOf = (template: string, provider: ConnectorProvider) => template.replace(":provider", provider);

/** True while a sync is asked for or running: the state is polled until it settles. */
export function isSyncBusy(connector: Connector | undefined): boolean {
  const state = connector?.connection?.sync_state;
  return state === "queued" || state === "running";
}

/**
 * How soon to look again: every 2 s while a sync is under way; while it waits out a pause, just after
 * the pause ends (between 2 and 30 s from now), so the page follows the sync when it resumes.
 */
export function pollDelay(connector: Connector | undefined, now = Date.now()): number | false {
  if (isSyncBusy(connector)) return 2000;
  const connection = connector?.connection;
  if (connection?.sync_state !== "waiting" || !connection.retry_at) return false;
  const untilRetry = Date.parse(connection.retry_at) - now + 1500;
  return Math.min(30_000, Math.max(2000, Number.isFinite(untilRetry) ? untilRetry : 30_000));
}

/** The person's connection to one provider, followed while a sync runs or waits ({@link pollDelay}). */
export function useConnector(provider: ConnectorProvider) {
  return useQuery({
    queryKey: connectorKey(provider),
    queryFn: () => apiRequest<Connector>(pathOf(CONNECTORS_API.one, provider)),
    refetchInterval: (query) => pollDelay(query.state.data),
  });
}

/** Starts a connect; answers the provider's authorization URL. `returnTo` comes back only if it is a source page. */
export function useStartConnect(provider: ConnectorProvider) {
  return useMutation({
    mutationFn: (returnTo: string) =>
      apiRequest<ConnectResponse>(pathOf(CONNECTORS_API.connect, provider), {
        method: "POST",
        body: CONNECT_RETURN_PATH_RE.test(returnTo) ? { return_to: returnTo } : {},
      }),
  });
}

export function useSyncNow(provider: ConnectorProvider) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest<Connector>(pathOf(CONNECTORS_API.sync, provider), { method: "POST" }),
    onSuccess: (connector) => queryClient.setQueryData(connectorKey(provider), connector),
  });
}

/** The catalogue's and the entry's badges follow the connection (a sync may find the token refused). */
export function useRefreshSources() {
  const queryClient = useQueryClient();
  return useCallback(
    () => void queryClient.invalidateQueries({ queryKey: SOURCES_QUERY_KEY }),
    [queryClient],
  );
}

export function useDisconnect(provider: ConnectorProvider) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiRequest<DisconnectResponse>(pathOf(CONNECTORS_API.one, provider), { method: "DELETE" }),
    onSettled: () => {
      // The catalogue's badges say which accounts are connected (refetched alongside, not awaited).
      void queryClient.invalidateQueries({ queryKey: SOURCES_QUERY_KEY });
      return queryClient.invalidateQueries({ queryKey: connectorKey(provider) });
    },
  });
}

/** Leaving for the provider's authorization page (a full page load); replaced in tests. */
export const leavePage = {
  to: (url: string) => {
    window.location.assign(url);
  },
};
