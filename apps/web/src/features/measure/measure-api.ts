import { type QueryClient, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  API,
  MEASUREMENT_LIMITS,
  type Measurement,
  type MeasurementDetail,
  type MeasurementList,
  type MeasurementUpdate,
  type MeasurementUpload,
  type Profile,
} from "@tonus/contract";
import { ApiError, apiRequest } from "../../shared/api/client.ts";
import { trackEvent } from "../analytics/track.ts";
import { PROFILE_QUERY_KEY } from "../profile/use-profile.ts";
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

/**
 * One upload attempt, in the background (no page changes on failure): the server's id on success;
 * "retry" offline, on 5xx, 429, 403 (signed out meanwhile: kept for when the person signs in again) and
 * on a 409 the server says may be retried (a concurrent store of the same measurement); "rejected" on
 * other 4xx, including a client id that already names another measurement.
 */
export async function sendUpload(upload: MeasurementUpload): Promise<SendOutcome> {
  try {
    const saved = await apiRequest<Measurement>(API.measurements, {
      method: "POST",
      body: upload,
      isBackground: true,
    });
    return { kind: "sent", id: saved.id };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const isRetryableConflict =
      error.status === 409 &&
      (error.code === "idempotency_in_progress" ||
        (error.code === "conflict" && error.body?.reason !== "client_id_taken"));
    if (
      error.status === 0 ||
      error.status >= 500 ||
      error.status === 429 ||
      error.status === 403 ||
      isRetryableConflict
    ) {
      return { kind: "retry" };
    }
    return { kind: "rejected", reason: error.code };
  }
}

type SettledListener = (clientId: string, outcome: Exclude<SendOutcome, { kind: "retry" }>) => void;
const settledListeners = new Set<SettledListener>();
const changeListeners = new Set<() => void>();
let queue: UploadQueue<MeasurementUpload> | null = null;
let ownerId: string | null = null;

/**
 * The app's one offline queue of measurement uploads. It sends only the signed-in account's items
 * (`setQueueOwner`), flushes whenever the browser goes online, and after a failed try again later
 * (5 s, doubling, at most 5 minutes) while online.
 */
export function getUploadQueue(): UploadQueue<MeasurementUpload> {
  if (queue) return queue;
  const created = createUploadQueue<MeasurementUpload>({
    storage: window.localStorage,
    send: (item) => sendUpload(item.payload),
    owner: () => ownerId,
    withLock: browserLock,
    scheduleRetry: (delayMs, flush) => window.setTimeout(flush, delayMs),
    isOnline: () => navigator.onLine,
    onSettled: (item, outcome) => {
      // The client id names the measurement: a retried upload is the same analytics event.
      if (outcome.kind === "sent")
        trackEvent("measurement_completed", { source: item.payload.source }, { eventId: item.clientId });
      for (const listener of settledListeners) listener(item.clientId, outcome);
      for (const listener of changeListeners) listener();
    },
  });
  window.addEventListener("online", () => void created.flush());
  queue = created;
  return created;
}

/**
 * Who is signed in (the profile's id), or null: set by the app shell on every page, so the queue sends
 * that account's waiting measurements as soon as the app starts.
 */
export function setQueueOwner(id: string | null): void {
  if (id === ownerId) return;
  ownerId = id;
  for (const listener of changeListeners) listener();
  if (id) void getUploadQueue().flush();
}

/** The account the queue works for now. */
export function queueOwner(): string | null {
  return ownerId;
}

/**
 * The signed-in account, for the queue: already known, in the profile cache, or read from the server
 * (in the background: signed out, it answers null rather than leaving the page). Null offline when the
 * profile was never loaded, or when nobody is signed in.
 */
export async function resolveQueueOwner(queryClient: QueryClient): Promise<string | null> {
  const known = ownerId ?? queryClient.getQueryData<Profile>(PROFILE_QUERY_KEY)?.id;
  if (known) {
    setQueueOwner(known);
    return known;
  }
  try {
    const profile = await queryClient.fetchQuery({
      queryKey: PROFILE_QUERY_KEY,
      queryFn: () => apiRequest<Profile>(API.profile, { isBackground: true }),
    });
    setQueueOwner(profile.id);
    return profile.id;
  } catch {
    return null;
  }
}

/** Tells `listener` when a queued upload reached the server (or was refused); returns the unsubscribe. */
export function onUploadSettled(listener: SettledListener): () => void {
  settledListeners.add(listener);
  return () => settledListeners.delete(listener);
}

/** Tells `listener` when the signed-in account's waiting list may have changed; returns the unsubscribe. */
export function onQueueChange(listener: () => void): () => void {
  changeListeners.add(listener);
  return () => changeListeners.delete(listener);
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
