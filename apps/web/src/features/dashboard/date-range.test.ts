import { QueryClient } from "@tanstack/react-query";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getWeekStartDay } from "../../shared/format/week.ts";
import { forgetEverything } from "../auth/auth-api.ts";
import {
  type DateRangeState,
  INITIAL_DATE_RANGE,
  LOGOUT_DATE_RANGE,
  resolveRange,
  validateCustomRange,
} from "./date-range.ts";
import { getDateRange, resetDateRangeOnLogout, setDateRange } from "./date-range-store.ts";
import {
  addDays,
  addMonths,
  bucketCount,
  bucketStart,
  bucketsOf,
  chunkCount,
  daysBetween,
  isIsoDay,
  todayIn,
} from "./dates.ts";

const TODAY = "2025-03-31";
const at = (status: DateRangeState["status"], extra: Partial<DateRangeState> = {}) =>
  resolveRange({ ...INITIAL_DATE_RANGE, status, ...extra }, { today: TODAY, firstDataDay: "2023-06-10" });

describe("the date picker's ranges", () => {
  it("opens on the last 30 days and resets to the last 7 on logout, both ends included", () => {
    const initial = resolveRange(INITIAL_DATE_RANGE, { today: TODAY, firstDataDay: null });
    expect(initial).toEqual({ startDate: "2025-03-02", endDate: TODAY });
    expect(daysBetween(initial.startDate, initial.endDate) + 1).toBe(30);
    const reset = resolveRange(LOGOUT_DATE_RANGE, { today: TODAY, firstDataDay: null });
    expect(reset).toEqual({ startDate: "2025-03-25", endDate: TODAY });
    expect(LOGOUT_DATE_RANGE.status).toBe("last_7_days");
  });

  it("counts months and years by the calendar, clamping to a month's last day", () => {
    expect(at("last_3_months")).toEqual({ startDate: "2025-01-01", endDate: TODAY });
    expect(at("last_year")).toEqual({ startDate: "2024-04-01", endDate: TODAY });
    expect(addMonths("2025-03-31", -1)).toBe("2025-02-28");
    expect(addMonths("2024-03-31", -1)).toBe("2024-02-29");
    expect(addMonths("2024-12-15", 1)).toBe("2025-01-15");
  });

  it("starts all time at the first day with data, never more than 20 years back, today when there is none", () => {
    expect(at("all_time")).toEqual({ startDate: "2023-06-10", endDate: TODAY });
    const old = resolveRange(
      { ...INITIAL_DATE_RANGE, status: "all_time" },
      { today: TODAY, firstDataDay: "1990-01-01" },
    );
    expect(daysBetween(old.startDate, TODAY) + 1).toBe(7305);
    expect(
      resolveRange({ ...INITIAL_DATE_RANGE, status: "all_time" }, { today: TODAY, firstDataDay: null }),
    ).toEqual({
      startDate: TODAY,
      endDate: TODAY,
    });
  });

  it("keeps a custom range as typed and falls back to 30 days when it is incomplete", () => {
    expect(at("custom", { startDate: "2025-01-10", endDate: "2025-02-01" })).toEqual({
      startDate: "2025-01-10",
      endDate: "2025-02-01",
    });
    expect(at("custom", { startDate: null, endDate: null })).toEqual({
      startDate: "2025-03-02",
      endDate: TODAY,
    });
  });

  it("refuses custom ranges the server would refuse", () => {
    expect(validateCustomRange("2025-01-10", "2025-02-01", TODAY)).toBeNull();
    expect(validateCustomRange("2025-02-30", "2025-03-01", TODAY)).toBe("invalid");
    expect(validateCustomRange("", "2025-03-01", TODAY)).toBe("invalid");
    expect(validateCustomRange("2025-03-02", "2025-03-01", TODAY)).toBe("order");
    expect(validateCustomRange("2025-03-01", "2025-04-01", TODAY)).toBe("future");
    expect(validateCustomRange("2000-01-01", TODAY, TODAY)).toBe("too_long");
    expect(validateCustomRange(addDays(TODAY, -7304), TODAY, TODAY)).toBeNull();
  });
});

describe("the date picker's store", () => {
  afterEach(() => setDateRange(INITIAL_DATE_RANGE));

  it("goes back to the last 7 days when logout forgets everything (spec §4)", () => {
    setDateRange({ status: "custom", startDate: "2025-01-01", endDate: "2025-02-01", period: "month" });
    forgetEverything(new QueryClient());
    expect(getDateRange()).toEqual(LOGOUT_DATE_RANGE);
    setDateRange(INITIAL_DATE_RANGE);
    resetDateRangeOnLogout();
    expect(getDateRange().status).toBe("last_7_days");
  });

  it("keeps the logout reset across a page load, until the person picks a range", async () => {
    localStorage.setItem("unrelated", "x");
    forgetEverything(new QueryClient());
    // Logout cleared the storage, then left the reset's marker behind.
    expect(localStorage.getItem("unrelated")).toBeNull();
    const afterReload = async () => {
      vi.resetModules();
      return (await import("./date-range-store.ts")).getDateRange();
    };
    expect(await afterReload()).toEqual(LOGOUT_DATE_RANGE);
    expect(await afterReload()).toEqual(LOGOUT_DATE_RANGE);
    // The person's own choice ends it: the next load opens on the last 30 days again.
    const fresh = await import("./date-range-store.ts");
    fresh.setDateRange({ ...LOGOUT_DATE_RANGE, status: "last_3_months" });
    expect(await afterReload()).toEqual(INITIAL_DATE_RANGE);
  });
});

describe("calendar days and buckets", () => {
  it("starts weeks on Monday in Russian and on Sunday otherwise (spec §9)", () => {
    // 2025-03-05 is a Wednesday.
    expect(bucketStart("2025-03-05", "week", getWeekStartDay("ru"))).toBe("2025-03-03");
    expect(bucketStart("2025-03-05", "week", getWeekStartDay("en"))).toBe("2025-03-02");
    expect(bucketStart("2025-03-02", "week", 1)).toBe("2025-02-24");
    expect(bucketsOf("2025-03-01", "2025-03-31", "week", 1)).toEqual([
      "2025-02-24",
      "2025-03-03",
      "2025-03-10",
      "2025-03-17",
      "2025-03-24",
      "2025-03-31",
    ]);
    // Sunday 2 March to Saturday 8 March: one week from Sunday, two from Monday.
    expect(bucketsOf("2025-03-02", "2025-03-08", "week", 0)).toEqual(["2025-03-02"]);
    expect(bucketsOf("2025-03-02", "2025-03-08", "week", 1)).toEqual(["2025-02-24", "2025-03-03"]);
  });

  it("covers a range with every bucket, gaps included, by day and by month", () => {
    expect(bucketsOf("2024-02-27", "2024-03-02", "day", 0)).toEqual([
      "2024-02-27",
      "2024-02-28",
      "2024-02-29",
      "2024-03-01",
      "2024-03-02",
    ]);
    expect(bucketsOf("2024-11-15", "2025-02-03", "month", 0)).toEqual([
      "2024-11-01",
      "2024-12-01",
      "2025-01-01",
      "2025-02-01",
    ]);
  });

  it("expects the server's chunks: 400 buckets each", () => {
    expect(chunkCount("2025-01-01", addDays("2025-01-01", 399), "day", 0)).toBe(1);
    expect(chunkCount("2025-01-01", addDays("2025-01-01", 400), "day", 0)).toBe(2);
    expect(chunkCount("2005-04-01", "2025-03-31", "day", 0)).toBe(19);
    expect(chunkCount("2005-04-01", "2025-03-31", "week", 1)).toBe(3);
    expect(chunkCount("2005-04-01", "2025-03-31", "month", 0)).toBe(1);
  });

  it("reads today in the profile's time zone and checks calendar days", () => {
    const instant = new Date("2025-03-31T22:30:00Z");
    expect(todayIn("Europe/Moscow", instant)).toBe("2025-04-01");
    expect(todayIn("America/New_York", instant)).toBe("2025-03-31");
    expect(todayIn("Not/AZone", instant)).toBe("2025-03-31");
    expect(isIsoDay("2024-02-29")).toBe(true);
    expect(isIsoDay("2025-02-29")).toBe(false);
    expect(isIsoDay("2025-3-1")).toBe(false);
  });
});

describe("buckets counted on the calendar", () => {
  it("match day-by-day date arithmetic over leap years, month ends and year ends", () => {
    for (const period of ["day", "week", "month"] as const) {
      for (const weekStart of [0, 1] as const) {
        const from = "2023-12-20";
        const to = "2025-03-03";
        const expected: string[] = [];
        for (let b = bucketStart(from, period, weekStart); b <= to; ) {
          expected.push(b);
          b = period === "day" ? addDays(b, 1) : period === "week" ? addDays(b, 7) : addMonths(b, 1);
        }
        expect(bucketsOf(from, to, period, weekStart), `${period} ${weekStart}`).toEqual(expected);
        expect(bucketCount(from, to, period, weekStart)).toBe(expected.length);
      }
    }
    expect(bucketsOf("2025-03-02", "2025-03-01", "day", 0)).toEqual([]);
    expect(bucketCount("2025-03-02", "2025-03-01", "day", 0)).toBe(0);
  });
});
