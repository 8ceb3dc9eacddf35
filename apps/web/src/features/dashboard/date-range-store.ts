import { useSyncExternalStore } from "react";
import { type DateRangeState, INITIAL_DATE_RANGE, LOGOUT_DATE_RANGE } from "./date-range.ts";

/**
 * The date picker's state lives outside React Query and outside the page, so it survives tab switches
 * and navigation within the app; logout resets it (auth-api's forgetEverything calls
 * `resetDateRangeOnLogout` after clearing the browser's storage). The chosen range itself is kept in
 * memory only; the one thing stored is a marker that a logout reset it, so the next sign-in opens on
 * the last 7 days even after the page was reloaded (spec §4), until the person picks another range.
 */
const RESET_MARKER_KEY = "tonus.dashboard.range_reset";

function readResetMarker(): boolean {
  try {
    return localStorage.getItem(RESET_MARKER_KEY) === "1";
  } catch {
    return false;
  }
}

function writeResetMarker(isReset: boolean): void {
  try {
    if (isReset) localStorage.setItem(RESET_MARKER_KEY, "1");
    else localStorage.removeItem(RESET_MARKER_KEY);
  } catch {
    // Storage may be unavailable (private mode): the reset then lasts until the page is reloaded.
  }
}

let state: DateRangeState = readResetMarker() ? LOGOUT_DATE_RANGE : INITIAL_DATE_RANGE;
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of listeners) listener();
}

export function getDateRange(): DateRangeState {
  return state;
}

function replaceState(next: DateRangeState): void {
  if (next === state) return;
  state = next;
  emit();
}

/** The person's choice: from now on the picker keeps it, and a reload no longer brings back the reset. */
export function setDateRange(next: DateRangeState): void {
  writeResetMarker(false);
  replaceState(next);
}

/**
 * Spec §4: logout clears chart caches and "the date picker resets to the last 7 days". Call it after
 * the browser's storage was cleared: it leaves the marker that keeps the reset across a reload.
 */
export function resetDateRangeOnLogout(): void {
  writeResetMarker(true);
  replaceState(LOGOUT_DATE_RANGE);
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
