import type { QueryClient } from "@tanstack/react-query";
import type { SessionState } from "@tonus/contract";
import { API } from "@tonus/contract";
import { rememberLanguage } from "../../i18n/index.ts";
import { ApiError, apiRequest } from "../../shared/api/client.ts";
import { resetDateRangeOnLogout } from "../dashboard/date-range-store.ts";
import { setQueueOwner } from "../measure/measure-api.ts";
import { QUEUE_STORAGE_KEY } from "../measure/upload-queue.ts";

/** Logout (spec §4): a 403 means the session is already gone, which is the same outcome. */
export async function logout(queryClient: QueryClient): Promise<void> {
  try {
    await apiRequest(API.logout, { isDataCall: false });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 403) throw error;
  } finally {
    forgetEverything(queryClient);
  }
}

/**
 * Drops every cached answer (chart data included) and stored value; only the chosen language survives.
 * The dashboard's date picker goes back to the last 7 days (spec §4 Logout). `keepUploadQueue` keeps
 * the offline queue of measurements when the session ended without the person logging out (it expired
 * or was revoked elsewhere): its items belong to their account and are sent only when it signs in again.
 */
export function forgetEverything(
  queryClient: QueryClient,
  options: { keepUploadQueue?: boolean } = {},
): void {
  setQueueOwner(null);
  queryClient.clear();
  try {
    const queue = options.keepUploadQueue ? localStorage.getItem(QUEUE_STORAGE_KEY) : null;
    localStorage.clear();
    sessionStorage.clear();
    if (queue !== null) localStorage.setItem(QUEUE_STORAGE_KEY, queue);
  } catch {
    // Storage may be unavailable (private mode); nothing was stored then.
  }
  rememberLanguage();
  // After the clearing: the reset's marker must outlive it, so a reload still opens on 7 days.
  resetDateRangeOnLogout();
  queryClient.setQueryData<SessionState>(["session"], { authenticated: false, user_type: "anonymous" });
}
