import type { UserDataSection } from "../../lib/registry.ts";

/**
 * Notifications: the person's settings travel with the archive (their own choices, safe to restore); the
 * send ledger is exported so they see what was mailed when, never imported (it is this instance's own
 * record). Both are deleted with the account.
 */
export const notificationsDataSection: UserDataSection = {
  name: "notifications",
  tables: {
    notification_settings: {
      policy: "portable",
      importColumns: [
        "weekly_report",
        "weekly_report_day",
        "reminders",
        "reminder_time",
        "reminder_days",
        "product_news",
        "updated_at",
      ],
      importWhere:
        "r.weekly_report_day between 1 and 7 and r.reminder_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'" +
        " and r.reminder_days <@ array[1,2,3,4,5,6,7]",
    },
    notification_deliveries: { policy: "exported" },
  },
};
