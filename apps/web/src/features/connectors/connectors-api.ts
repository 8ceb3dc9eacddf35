import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  CONNECT_RETURN_PATH_RE,
  CONNECTORS_API,
  type Connector,
  type ConnectorProvider,
  type ConnectResponse,
  type DisconnectResponse,
} from "@tonus/contract";
import { apiRequest } from "../../shared/api/client.ts";
import { SOURCES_QUERY_KEY } from "../sources/sources-api.ts";

export const connectorKey = (provider: ConnectorProvider) => ["connectors", provider] as const;

const pathOf = (template: string, provider: ConnectorProvider) => template.replace(":provider", provider);

/** True while a sync is asked for or running: the state is polled until it settles. */
export function isSyncBusy(connector: Connector | undefined): boolean {
  const state = connector?.connection?.sync_state;
  return state === "queued" || state === "running";
}

/** The person's connection to one provider; polled every 2 s while a sync is under way. */
export function useConnector(provider: ConnectorProvider) {
  return useQuery({
    queryKey: connectorKey(provider),
    queryFn: () => apiRequest<Connector>(pathOf(CONNECTORS_API.one, provider)),
    refetchInterval: (query) => (isSyncBusy(query.state.data) ? 2000 : false),
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
