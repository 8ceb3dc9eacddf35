import { z } from "zod";
import { SCHEMA_MESSAGES } from "./messages.ts";

/**
 * Notification settings (spec §2 "notification settings") and the one-click unsubscribe link every
 * notification e-mail carries (RFC 8058). Paths live here so this domain's wire format reads in one place.
 */
export const NOTIFICATIONS_API = {
  /** The signed-in person's notification settings: GET, and PUT with the fields to change. */
  settings: "/dashboard_api/v1/user/notifications/",
  /**
   * The unsubscribe link of an e-mail, `?token=…` (signed per person and list, no sign-in): GET shows a
   * confirmation page, POST (the page's button, or a mail client's `List-Unsubscribe=One-Click`)
   * unsubscribes.
   */
  unsubscribe: "/api/v1/unsubscribe/",
} as const;

/** The web page where a signed-in person changes these settings. */
export const NOTIFICATIONS_PAGE = "/user/notifications";

/** The mailing lists a person can leave with one click: each has its own unsubscribe token. */
export const NotificationListSchema = z.enum(["weekly_report", "reminders", "news"]);
export type NotificationList = z.infer<typeof NotificationListSchema>;

/** A day of the week, ISO 8601: 1 is Monday, 7 is Sunday. */
export const IsoWeekdaySchema = z.number().int().min(1).max(7);

/** A wall-clock time `HH:MM` (24-hour) in the person's time zone. */
export const LocalTimeSchema = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, SCHEMA_MESSAGES.local_time);

/** The local time the weekly report is sent on its day, in the person's time zone. */
export const WEEKLY_REPORT_LOCAL_TIME = "08:00";

/**
 * What a person receives by e-mail. Everything is off until the person turns it on. Mails are written in
 * the profile's newsletter language and scheduled in the profile's time zone.
 */
export const NotificationSettingsSchema = z.object({
  /** The weekly report: the last seven days' HRV (rMSSD), stress, energy and sleep with a small chart. */
  weekly_report: z.boolean(),
  /** The day the weekly report arrives (at 08:00 local time); it covers the seven days before it. */
  weekly_report_day: IsoWeekdaySchema,
  /** A reminder to measure at `reminder_time` on `reminder_days` (skipped on a day already measured). */
  reminders: z.boolean(),
  reminder_time: LocalTimeSchema,
  /** ISO weekdays, ascending, without repeats. */
  reminder_days: z.array(IsoWeekdaySchema).max(7),
  /** Product news, sent by the operator now and then. */
  product_news: z.boolean(),
});
export type NotificationSettings = z.infer<typeof NotificationSettingsSchema>;

/** The fields to change; any other key is refused. Reminders need at least one day. */
export const NotificationSettingsUpdateSchema = z
  .strictObject({
    weekly_report: z.boolean().optional(),
    weekly_report_day: IsoWeekdaySchema.optional(),
    reminders: z.boolean().optional(),
    reminder_time: LocalTimeSchema.optional(),
    reminder_days: z
      .array(IsoWeekdaySchema)
      .max(7)
      .refine((days) => new Set(days).size === days.length, SCHEMA_MESSAGES.days_once)
      .transform((days) => [...days].sort((a, b) => a - b))
      .optional(),
    product_news: z.boolean().optional(),
  })
  .refine((u) => !(u.reminders === true && u.reminder_days?.length === 0), {
    message: SCHEMA_MESSAGES.reminder_days,
    path: ["reminder_days"],
  });
export type NotificationSettingsUpdate = z.input<typeof NotificationSettingsUpdateSchema>;

/** The unsubscribe link's query: the signed token of one person and list. */
export const UnsubscribeQuerySchema = z.object({ token: z.string().min(1).max(300) });

/** What a one-click POST answers when the client does not ask for the HTML page. */
export const UnsubscribeResultSchema = z.object({ ok: z.literal(true), list: NotificationListSchema });
export type UnsubscribeResult = z.infer<typeof UnsubscribeResultSchema>;
