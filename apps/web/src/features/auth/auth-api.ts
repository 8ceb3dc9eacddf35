import type { QueryClient } from "@tanstack/react-query";
import type { SessionState } from "@tonus/contract";
import { API } from "@tonus/contract";
import { rememberLanguage } from "../../i18n/index.ts";
import { ApiError, apiRequest } from "../../shared/api/client.ts";
import { resetDateRangeOnLogout } from "../dashboard/date-range-store.ts";

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
 * The dashboard's date picker goes back to the last 7 days (spec §4 Logout).
 */
export function forgetEverything(queryClient: QueryClient): void {
  queryClient.clear();
  try {
    localStorage.clear();
    sessionStorage.clear();
  } catch {
    // Storage may be unavailable (private mode); nothing was stored then.
  }
  rememberLanguage();
  // After the clearing: the reset's marker must outlive it, so a reload still opens on 7 days.
  resetDateRangeOnLogout();
  queryClient.setQueryData<SessionState>(["session"], { authenticated: false, user_type: "anonymous" });
}
