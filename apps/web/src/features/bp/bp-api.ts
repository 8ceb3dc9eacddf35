import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  API,
  BP_LOG_SHARE_TARGET,
  type BpAverages,
  type BpPeriod,
  type BpReading,
  type BpReadingCreate,
  type BpReadingList,
  type BpReadingUpdate,
  type ShareLink,
  type ShareLinkCreated,
} from "@tonus/contract";
import { apiRequest } from "../../shared/api/client.ts";

export const BP_QUERY_KEY = ["bp"] as const;
/** Enough for a doctor's view of several months; older readings load on demand. */
export const PAGE_SIZE = 200;

const readingPath = (id: string) => API.bpReading.replace(":id", encodeURIComponent(id));

export function useReadings(limit: number) {
  return useQuery({
    queryKey: [...BP_QUERY_KEY, "readings", limit],
    queryFn: () => apiRequest<BpReadingList>(API.bpReadings, { query: { limit: String(limit) } }),
    placeholderData: (previous) => previous,
  });
}

function useInvalidate() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: BP_QUERY_KEY });
}

export function useCreateReading() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (reading: BpReadingCreate) =>
      apiRequest<BpReading>(API.bpReadings, { method: "POST", body: reading }),
    onSuccess: invalidate,
  });
}

export function useUpdateReading() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, update }: { id: string; update: BpReadingUpdate }) =>
      apiRequest<BpReading>(readingPath(id), { method: "PATCH", body: update }),
    onSuccess: invalidate,
  });
}

export function deleteReading(id: string): Promise<unknown> {
  return apiRequest(readingPath(id), { method: "DELETE" });
}

/** The owner's active links to the log (revoked ones are history and not shown). */
export function useLogShareLinks() {
  return useQuery({
    queryKey: [...BP_QUERY_KEY, "shares"],
    queryFn: async () => {
      const { results } = await apiRequest<{ results: ShareLink[] }>(API.shareLinks);
      return results.filter((link) => link.kind === "bp_log" && link.revoked === null);
    },
  });
}

export function useCreateLogShare() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: () =>
      apiRequest<ShareLinkCreated>(API.shareLinks, {
        method: "POST",
        body: { kind: "bp_log", target_id: BP_LOG_SHARE_TARGET },
      }),
    onSuccess: invalidate,
  });
}

export function useRevokeShare() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest(API.shareLink.replace(":id", encodeURIComponent(id)), { method: "DELETE" }),
    onSuccess: invalidate,
  });
}

/** The address a viewer opens: the token rides in the fragment, which browsers never send to servers. */
export function shareUrl(token: string, origin: string = window.location.origin): string {
  return `${origin}/share-bp-log#${token}`;
}

/** A share viewer's read of the log with the link's token (no cookies involved). */
export function useSharedLog(token: string | null, limit: number) {
  return useQuery({
    queryKey: ["shared-bp-log", token, limit],
    enabled: token !== null,
    retry: false,
    queryFn: () =>
      apiRequest<BpReadingList>(API.sharedBpLog, {
        query: { limit: String(limit) },
        authToken: token ?? undefined,
        isDataCall: false,
      }),
  });
}

/** Whose averages: the signed-in owner's, or the log a share link opens (its token, no cookies). */
export type AveragesSource = { kind: "own" } | { kind: "shared"; token: string };

export type AveragesQuery = { from: string; to: string; period: BpPeriod; weekStart: 0 | 1 };

/** The log's averages by period over local days [from, to], and the 7 and 30 days ending on `to`. */
export function useAverages(source: AveragesSource, q: AveragesQuery) {
  const query = { from: q.from, to: q.to, period: q.period, week_start: String(q.weekStart) };
  return useQuery({
    queryKey:
      source.kind === "own"
        ? [...BP_QUERY_KEY, "averages", query]
        : ["shared-bp-log", source.token, "averages", query],
    placeholderData: (previous) => previous,
    retry: source.kind === "own" ? undefined : false,
    queryFn: () =>
      source.kind === "own"
        ? apiRequest<BpAverages>(API.bpAverages, { query })
        : apiRequest<BpAverages>(API.sharedBpLogAverages, {
            query,
            authToken: source.token,
            isDataCall: false,
          }),
  });
}
