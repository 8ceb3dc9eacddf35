import type { NotificationSettings, NotificationSettingsUpdate } from "@tonus/contract";
import { getWeekStartDay } from "../../shared/format/week.ts";

/** The form's state: the settings as edited, not yet saved. */
export type Draft = NotificationSettings;

/** ISO weekdays (1 Monday … 7 Sunday) in the order the person's calendar shows them (spec §9). */
export function orderedWeekdays(language: string): number[] {
  return getWeekStartDay(language) === 1 ? [1, 2, 3, 4, 5, 6, 7] : [7, 1, 2, 3, 4, 5, 6];
}

/** The name of an ISO weekday in `language` (1 January 2024 was a Monday). */
export function weekdayName(isoDay: number, language: string, width: "long" | "short" = "long"): string {
  const date = new Date(Date.UTC(2024, 0, isoDay));
  return new Intl.DateTimeFormat(language, { weekday: width, timeZone: "UTC" }).format(date);
}

/** A wall-clock `HH:MM` as the language writes times (8:00 AM, 08:00). */
export function formatLocalTime(time: string, language: string): string {
  const [hours, minutes] = time.split(":").map(Number);
  const date = new Date(Date.UTC(2024, 0, 1, hours ?? 0, minutes ?? 0));
  return new Intl.DateTimeFormat(language, { hour: "numeric", minute: "2-digit", timeZone: "UTC" }).format(
    date,
  );
}

/** i18n key of what is wrong with the draft, or null. */
export function findDraftProblem(draft: Draft): string | null {
  if (draft.reminders && draft.reminder_days.length === 0) return "notifications.reminders.no_days";
  if (draft.reminders && !/^([01]\d|2[0-3]):[0-5]\d$/.test(draft.reminder_time))
    return "notifications.reminders.bad_time";
  return null;
}

/** Only the fields that differ from what is saved. */
export function changesOf(draft: Draft, saved: NotificationSettings): NotificationSettingsUpdate {
  const changes: NotificationSettingsUpdate = {};
  if (draft.weekly_report !== saved.weekly_report) changes.weekly_report = draft.weekly_report;
  if (draft.weekly_report_day !== saved.weekly_report_day)
    changes.weekly_report_day = draft.weekly_report_day;
  if (draft.reminders !== saved.reminders) changes.reminders = draft.reminders;
  if (draft.reminder_time !== saved.reminder_time) changes.reminder_time = draft.reminder_time;
  if (draft.reminder_days.join() !== saved.reminder_days.join()) changes.reminder_days = draft.reminder_days;
  if (draft.product_news !== saved.product_news) changes.product_news = draft.product_news;
  return changes;
}

/** Adds or removes one day, keeping the list ascending. */
export function toggleDay(days: readonly number[], day: number): number[] {
  return days.includes(day) ? days.filter((d) => d !== day) : [...days, day].sort((a, b) => a - b);
}
