import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  type ConnectedServiceList,
  OAUTH_API,
  type OAuthDecision,
  type OAuthRequestInfo,
} from "@tonus/contract";
import { apiRequest } from "../../shared/api/client.ts";

export const CONNECTED_SERVICES_KEY = ["oauth", "connected-services"] as const;

const withId = (template: string, id: string) => template.replace(":id", encodeURIComponent(id));

/**
 * The pending authorization the consent page shows. Not a "data call": a 403 here is handled by the page
 * (it sends the person to sign-in with the whole consent URL as destination, request id included).
 */
export function useAuthorizationRequest(id: string, enabled: boolean) {
  return useQuery({
    queryKey: ["oauth", "request", id],
    queryFn: () => apiRequest<OAuthRequestInfo>(withId(OAUTH_API.request, id), { isDataCall: false }),
    enabled: enabled && id !== "",
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function decideAuthorization(id: string, approve: boolean): Promise<OAuthDecision> {
  return apiRequest<OAuthDecision>(withId(OAUTH_API.decision, id), { method: "POST", body: { approve } });
}

export function useConnectedServices() {
  return useQuery({
    queryKey: CONNECTED_SERVICES_KEY,
    queryFn: async () => (await apiRequest<ConnectedServiceList>(OAUTH_API.connectedServices)).results,
  });
}

export function useRevokeService() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest(withId(OAUTH_API.connectedService, id), { method: "DELETE" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: CONNECTED_SERVICES_KEY }),
  });
}
