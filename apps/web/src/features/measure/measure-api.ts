import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  API,
  MEASUREMENT_LIMITS,
  type Measurement,
  type MeasurementDetail,
  type MeasurementList,
  type MeasurementUpdate,
  type MeasurementUpload,
} from "@tonus/contract";
import { ApiError, apiRequest } from "../../shared/api/client.ts";
import { trackEvent } from "../analytics/track.ts";
import { browserLock, createUploadQueue, type SendOutcome, type UploadQueue } from "./upload-queue.ts";

export const MEASUREMENTS_QUERY_KEY = ["measurements"] as const;

export function measurementPath(id: string): string {
  return API.measurement.replace(":id", encodeURIComponent(id));
}

/** Where the detail page of a measurement lives (its path contains measure-details: no header or footer). */
export function detailPagePath(id: string): string {
  return `/measure-details/${encodeURIComponent(id)}`;
}

const isRrInterval = (rr: number) =>
  Number.isFinite(rr) && rr >= MEASUREMENT_LIMITS.rrMinMs && rr <= MEASUREMENT_LIMITS.rrMaxMs;

/**
 * Keeps only what the contract accepts as an RR interval (the server recomputes everything else).
 * Where a value is left out the series breaks (the intervals either side were not neighbours), and
 * the given breaks (indices into `rrMs`) move to the kept series.
 */
export function cleanSeries(
  rrMs: readonly number[],
  breaks: readonly number[] = [],
): { rrMs: number[]; rrBreaks: number[] } {
  const breakAt = new Set(breaks);
  const kept: number[] = [];
  const rrBreaks: number[] = [];
  let pending = false;
  for (const [i, rr] of rrMs.entries()) {
    if (breakAt.has(i)) pending = true;
    if (!isRrInterval(rr)) {
      pending = true;
      continue;
    }
    if (pending && kept.length > 0) rrBreaks.push(kept.length);
    pending = false;
    kept.push(rr);
  }
  return { rrMs: kept, rrBreaks };
}

/** One upload attempt: the server's id on success, "retry" offline or on 5xx, "rejected" on other 4xx. */
export async function sendUpload(upload: MeasurementUpload): Promise<SendOutcome> {
  try {
    const saved = await apiRequest<Measurement>(API.measurements, { method: "POST", body: upload });
    return { kind: "sent", id: saved.id };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 0 || error.status >= 500 || error.status === 429 || error.status === 403) {
      return { kind: "retry" };
    }
    return { kind: "rejected", reason: error.code };
  }
}

type SettledListener = (clientId: string, outcome: Exclude<SendOutcome, { kind: "retry" }>) => void;
const settledListeners = new Set<SettledListener>();
let queue: UploadQueue<MeasurementUpload> | null = null;

/** The app's one offline queue of measurement uploads, flushed whenever the browser goes online. */
export function getUploadQueue(): UploadQueue<MeasurementUpload> {
  if (queue) return queue;
  const created = createUploadQueue<MeasurementUpload>({
    storage: window.localStorage,
    send: (item) => sendUpload(item.payload),
    withLock: browserLock,
    onSettled: (item, outcome) => {
      // The client id names the measurement: a retried upload is the same analytics event.
      if (outcome.kind === "sent")
        trackEvent("measurement_completed", { source: item.payload.source }, { eventId: item.clientId });
      for (const listener of settledListeners) listener(item.clientId, outcome);
    },
  });
  window.addEventListener("online", () => void created.flush());
  queue = created;
  return created;
}

/** Tells `listener` when a queued upload reached the server (or was refused); returns the unsubscribe. */
export function onUploadSettled(listener: SettledListener): () => void {
  settledListeners.add(listener);
  return () => settledListeners.delete(listener);
}

export function useMeasurement(id: string) {
  return useQuery({
    queryKey: [...MEASUREMENTS_QUERY_KEY, "detail", id],
    queryFn: () => apiRequest<MeasurementDetail>(measurementPath(id)),
  });
}

export type ListFilter = { from?: string; to?: string; tags: string[]; offset: number };
export const LIST_PAGE_SIZE = 20;

export function useMeasurementList(filter: ListFilter) {
  return useQuery({
    queryKey: [...MEASUREMENTS_QUERY_KEY, "list", filter],
    queryFn: () =>
      apiRequest<MeasurementList>(API.measurements, {
        query: {
          from: filter.from,
          to: filter.to,
          tags: filter.tags.length > 0 ? filter.tags.join(",") : undefined,
          limit: String(LIST_PAGE_SIZE),
          offset: String(filter.offset),
        },
      }),
    placeholderData: (previous) => previous,
  });
}

export function useUpdateMeasurement(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (update: MeasurementUpdate) =>
      apiRequest<Measurement>(measurementPath(id), { method: "PATCH", body: update }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: MEASUREMENTS_QUERY_KEY }),
  });
}

export function useDeleteMeasurement(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest<void>(measurementPath(id), { method: "DELETE" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: MEASUREMENTS_QUERY_KEY }),
  });
}
