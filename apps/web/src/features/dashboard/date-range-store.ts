import { useSyncExternalStore } from "react";
import { type DateRangeState, INITIAL_DATE_RANGE, LOGOUT_DATE_RANGE } from "./date-range.ts";

/**
 * The date picker's state lives outside React Query and outside the page, so it survives tab switches
 * and navigation within the app; logout resets it (auth-api's forgetEverything calls
 * `resetDateRangeOnLogout`). Kept in memory only: nothing of it is stored in the browser.
 */
let state: DateRangeState = INITIAL_DATE_RANGE;
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of listeners) listener();
}

export function getDateRange(): DateRangeState {
  return state;
}

export function setDateRange(next: DateRangeState): void {
  if (next === state) return;
  state = next;
  emit();
}

/** Spec §4: logout clears chart caches and "the date picker resets to the last 7 days". */
export function resetDateRangeOnLogout(): void {
  setDateRange(LOGOUT_DATE_RANGE);
}

export function useDateRange(): DateRangeState {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
    () => state,
  );
}
