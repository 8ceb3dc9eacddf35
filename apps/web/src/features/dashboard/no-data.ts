import { DASHBOARD_LIMITS } from "@tonus/contract";
import { daysBetween } from "./dates.ts";

/**
 * Spec §8 "No data for the last 12 days": shown when the newest value is older than that, or when there
 * is none at all — then the page also says how to get some (measure, type values in, connect gadgets).
 */
export type NoDataNotice = "never" | "stale" | null;

export function noDataNotice(lastDataDay: string | null, today: string): NoDataNotice {
  if (lastDataDay === null) return "never";
  return daysBetween(lastDataDay, today) > DASHBOARD_LIMITS.noDataDays ? "stale" : null;
}
