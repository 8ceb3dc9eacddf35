import { type ChartPeriod, DASHBOARD_LIMITS } from "@tonus/contract";
import { addDays, addMonths, daysBetween, isIsoDay } from "./dates.ts";

/**
 * The dashboard's date picker (spec §3 "Dashboard date picker: startDate, endDate, datePickerStatus"):
 * a preset relative to today, or a custom start and end. It opens on the last 30 days and goes back to
 * the last 7 days on logout (spec §4, §9).
 */
export const DATE_PRESETS = [
  "last_7_days",
  "last_30_days",
  "last_3_months",
  "last_year",
  "all_time",
] as const;
export type DatePreset = (typeof DATE_PRESETS)[number];
export type DatePickerStatus = DatePreset | "custom";

export type DateRangeState = {
  status: DatePickerStatus;
  /** Only for `custom`; presets are resolved against today when read, so they follow midnight. */
  startDate: string | null;
  endDate: string | null;
  period: ChartPeriod;
};

export const INITIAL_DATE_RANGE: DateRangeState = {
  status: "last_30_days",
  startDate: null,
  endDate: null,
  period: "day",
};

/** Spec §4: "The date picker resets to the last 7 days (isWeek)". */
export const LOGOUT_DATE_RANGE: DateRangeState = {
  status: "last_7_days",
  startDate: null,
  endDate: null,
  period: "day",
};

export type DayRange = { startDate: string; endDate: string };

/** The oldest start any range may have (the server refuses ranges over 20 years). */
function earliestStart(today: string): string {
  return addDays(today, -(DASHBOARD_LIMITS.maxRangeDays - 1));
}

/** The days a picker state covers, both ends included, on `today` (the person's local day). */
export function resolveRange(
  state: DateRangeState,
  context: { today: string; firstDataDay: string | null },
): DayRange {
  const { today } = context;
  switch (state.status) {
    case "last_7_days":
      return { startDate: addDays(today, -(DASHBOARD_LIMITS.resetRangeDays - 1)), endDate: today };
    case "last_30_days":
      return { startDate: addDays(today, -(DASHBOARD_LIMITS.initialRangeDays - 1)), endDate: today };
    case "last_3_months":
      return { startDate: addDays(addMonths(today, -3), 1), endDate: today };
    case "last_year":
      return { startDate: addDays(addMonths(today, -12), 1), endDate: today };
    case "all_time": {
      const first = context.firstDataDay ?? today;
      const earliest = earliestStart(today);
      const start = first < earliest ? earliest : first > today ? today : first;
      return { startDate: start, endDate: today };
    }
    case "custom":
      if (state.startDate && state.endDate) return { startDate: state.startDate, endDate: state.endDate };
      return resolveRange(INITIAL_DATE_RANGE, context);
  }
}

export type CustomRangeError = "invalid" | "order" | "future" | "too_long";

/** Checks a typed custom range the way the server will; null when it can be asked for. */
export function validateCustomRange(
  startDate: string,
  endDate: string,
  today: string,
): CustomRangeError | null {
  if (!isIsoDay(startDate) || !isIsoDay(endDate)) return "invalid";
  if (startDate > endDate) return "order";
  if (endDate > today) return "future";
  if (daysBetween(startDate, endDate) + 1 > DASHBOARD_LIMITS.maxRangeDays) return "too_long";
  return null;
}
