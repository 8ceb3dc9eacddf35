import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { API, type MeasurementDetail, type ShareLink, type ShareLinkCreated } from "@tonus/contract";
import { apiRequest } from "../../shared/api/client.ts";

const SHARES_KEY = ["measurement-shares"] as const;

/** The active links to one measurement. */
export function useMeasurementShares(id: string) {
  return useQuery({
    queryKey: [...SHARES_KEY, id],
    queryFn: async () => {
      const { results } = await apiRequest<{ results: ShareLink[] }>(API.shareLinks);
      return results.filter(
        (link) => link.kind === "measurement" && link.target_id === id && link.revoked === null,
      );
    },
  });
}

export function useShareMeasurement(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiRequest<ShareLinkCreated>(API.shareLinks, {
        method: "POST",
        body: { kind: "measurement", target_id: id },
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SHARES_KEY }),
  });
}

export function useRevokeMeasurementShare() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (linkId: string) =>
      apiRequest(API.shareLink.replace(":id", encodeURIComponent(linkId)), { method: "DELETE" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SHARES_KEY }),
  });
}

/** The viewer's address: the token rides in the fragment, which browsers never send to servers. */
export function measurementShareUrl(token: string, origin: string = window.location.origin): string {
  return `${origin}/share-measurement#${token}`;
}

/** A share viewer's read of the one measurement its link opens (token, no cookies). */
export function useSharedMeasurement(token: string | null) {
  return useQuery({
    queryKey: ["shared-measurement", token],
    enabled: token !== null,
    retry: false,
    queryFn: () =>
      apiRequest<MeasurementDetail>(API.sharedMeasurement, {
        authToken: token ?? undefined,
        isDataCall: false,
      }),
  });
}
