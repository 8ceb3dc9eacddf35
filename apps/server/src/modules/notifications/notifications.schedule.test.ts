import { describe, expect, it } from "vitest";
import {
  addDays,
  dueNotifications,
  isoWeekday,
  localDate,
  REMINDER_GRACE_MS,
  reportWeek,
  type ScheduleSettings,
  zonedTimeToUtc,
} from "./notifications.schedule.ts";

const NY = "America/New_York";
const OFF: ScheduleSettings = {
  weeklyReport: false,
  weeklyReportDay: 1,
  reminders: false,
  reminderTime: "08:00",
  reminderDays: [],
};

describe("zonedTimeToUtc", () => {
  it("follows New York's offset on each side of the March 2026 change (8 March, 02:00 → 03:00)", () => {
    expect(zonedTimeToUtc("2026-03-07", "07:30", NY).toISOString()).toBe("2026-03-07T12:30:00.000Z");
    expect(zonedTimeToUtc("2026-03-08", "07:30", NY).toISOString()).toBe("2026-03-08T11:30:00.000Z");
    expect(zonedTimeToUtc("2026-03-08", "00:00", NY).toISOString()).toBe("2026-03-08T05:00:00.000Z");
    expect(zonedTimeToUtc("2026-03-09", "00:00", NY).toISOString()).toBe("2026-03-09T04:00:00.000Z");
  });

  it("moves a time that does not exist forward by the gap, and takes the first of a doubled time", () => {
    // 02:30 on 8 March 2026 does not exist in New York: 03:30 daylight time.
    expect(zonedTimeToUtc("2026-03-08", "02:30", NY).toISOString()).toBe("2026-03-08T07:30:00.000Z");
    // 01:30 on 1 November 2026 happens twice (EDT, then EST): the first one.
    expect(zonedTimeToUtc("2026-11-01", "01:30", NY).toISOString()).toBe("2026-11-01T05:30:00.000Z");
    expect(zonedTimeToUtc("2026-11-01", "03:00", NY).toISOString()).toBe("2026-11-01T08:00:00.000Z");
  });

  it("handles zones without DST and east of UTC", () => {
    expect(zonedTimeToUtc("2026-03-08", "08:00", "Europe/Moscow").toISOString()).toBe(
      "2026-03-08T05:00:00.000Z",
    );
    expect(zonedTimeToUtc("2026-07-01", "00:15", "Asia/Kolkata").toISOString()).toBe(
      "2026-06-30T18:45:00.000Z",
    );
    expect(zonedTimeToUtc("2026-07-01", "23:59", "UTC").toISOString()).toBe("2026-07-01T23:59:00.000Z");
  });
});

describe("local calendar helpers", () => {
  it("reads local dates and ISO weekdays", () => {
    expect(localDate(new Date("2026-03-09T03:30:00Z"), NY)).toBe("2026-03-08");
    expect(localDate(new Date("2026-03-09T04:00:00Z"), NY)).toBe("2026-03-09");
    expect(isoWeekday("2026-03-09")).toBe(1);
    expect(isoWeekday("2026-03-08")).toBe(7);
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
  });

  it("gives the DST week its true length: 7 local days of 167 hours", () => {
    const week = reportWeek("2026-03-09", NY);
    expect(week.days).toEqual([
      "2026-03-02",
      "2026-03-03",
      "2026-03-04",
      "2026-03-05",
      "2026-03-06",
      "2026-03-07",
      "2026-03-08",
    ]);
    expect(week.from.toISOString()).toBe("2026-03-02T05:00:00.000Z");
    expect(week.to.toISOString()).toBe("2026-03-09T04:00:00.000Z");
    expect((week.to.getTime() - week.from.getTime()) / 3_600_000).toBe(167);
  });
});

describe("dueNotifications", () => {
  const weekly: ScheduleSettings = { ...OFF, weeklyReport: true, weeklyReportDay: 1 };

  it("makes the weekly report due at 08:00 local on its day, through the next 24 hours, across DST", () => {
    // Monday 9 March 2026, 08:00 EDT = 12:00 UTC (the Monday before, 08:00 EST was 13:00 UTC).
    expect(dueNotifications(weekly, NY, new Date("2026-03-09T11:59:00Z"))).toEqual([]);
    expect(dueNotifications(weekly, NY, new Date("2026-03-09T12:00:00Z"))).toEqual([
      { kind: "weekly_report", periodKey: "2026-03-09", scheduledAt: new Date("2026-03-09T12:00:00Z") },
    ]);
    expect(dueNotifications(weekly, NY, new Date("2026-03-10T11:59:00Z"))).toHaveLength(1);
    expect(dueNotifications(weekly, NY, new Date("2026-03-10T12:00:00Z"))).toEqual([]);
    expect(dueNotifications(weekly, NY, new Date("2026-03-02T12:59:00Z"))).toEqual([]);
    expect(dueNotifications(weekly, NY, new Date("2026-03-02T13:00:00Z"))[0]?.periodKey).toBe("2026-03-02");
  });

  it("makes reminders due on the chosen days at the chosen local time, for two hours", () => {
    const reminders: ScheduleSettings = { ...OFF, reminders: true, reminderTime: "23:30", reminderDays: [7] };
    // Sunday 8 March 23:30 EDT = Monday 03:30 UTC; still due at 00:10 local on Monday.
    const at = new Date("2026-03-09T03:30:00Z");
    expect(dueNotifications(reminders, NY, new Date(at.getTime() - 60_000))).toEqual([]);
    expect(dueNotifications(reminders, NY, new Date("2026-03-09T04:10:00Z"))).toEqual([
      { kind: "reminder", periodKey: "2026-03-08", scheduledAt: at },
    ]);
    expect(dueNotifications(reminders, NY, new Date(at.getTime() + REMINDER_GRACE_MS))).toEqual([]);
    // Saturday is not a chosen day.
    expect(dueNotifications(reminders, NY, new Date("2026-03-08T04:40:00Z"))).toEqual([]);
  });

  it("finds nothing when everything is off, and treats an unknown zone as UTC", () => {
    expect(dueNotifications(OFF, NY, new Date("2026-03-09T12:00:00Z"))).toEqual([]);
    expect(dueNotifications(weekly, "Mars/Olympus", new Date("2026-03-09T08:00:00Z"))).toHaveLength(1);
  });
});
