import type {
  NotificationList,
  NotificationSettings,
  NotificationSettingsUpdateSchema,
} from "@tonus/contract";
import type { FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import { writeAudit } from "../../lib/audit.ts";
import type { Config } from "../../lib/config.ts";
import { asServerLocale, type ServerLocale } from "../../lib/i18n.ts";
import {
  findRecipient,
  findSettings,
  type SettingsRow,
  type SettingsValues,
  upsertSettings,
} from "./notifications.repo.ts";
import { verifyUnsubscribeToken } from "./notifications.tokens.ts";

/** What a person without a settings row gets: nothing by e-mail until they turn it on. */
export const DEFAULT_SETTINGS: NotificationSettings = {
  weekly_report: false,
  weekly_report_day: 1,
  reminders: false,
  reminder_time: "08:00",
  reminder_days: [1, 2, 3, 4, 5, 6, 7],
  product_news: false,
};

export function settingsToWire(row: SettingsRow | null): NotificationSettings {
  if (!row) return DEFAULT_SETTINGS;
  return {
    weekly_report: row.weeklyReport,
    weekly_report_day: row.weeklyReportDay,
    reminders: row.reminders,
    reminder_time: row.reminderTime,
    reminder_days: [...row.reminderDays].sort((a, b) => a - b),
    product_news: row.productNews,
  };
}

export async function getNotificationSettings(db: Db, userId: string): Promise<NotificationSettings> {
  return settingsToWire(await findSettings(db, userId));
}

type Update = z.output<typeof NotificationSettingsUpdateSchema>;

/** Applies an already validated change; reminders on with no day left is refused (nothing written). */
export async function updateNotificationSettings(
  db: Db,
  userId: string,
  update: Update,
): Promise<NotificationSettings> {
  const current = await getNotificationSettings(db, userId);
  const merged = { ...current, ...update };
  if (merged.reminders && merged.reminder_days.length === 0)
    throw new AppError("validation_failed", "Choose at least one day for reminders");
  const values: SettingsValues = {
    weeklyReport: merged.weekly_report,
    weeklyReportDay: merged.weekly_report_day,
    reminders: merged.reminders,
    reminderTime: merged.reminder_time,
    reminderDays: merged.reminder_days,
    productNews: merged.product_news,
  };
  return settingsToWire(await upsertSettings(db, userId, values));
}

const LIST_COLUMN: Record<NotificationList, keyof SettingsValues> = {
  weekly_report: "weeklyReport",
  reminders: "reminders",
  news: "productNews",
};

export type UnsubscribeTarget = {
  userId: string;
  list: NotificationList;
  email: string;
  locale: ServerLocale;
};

/** The person and list of an unsubscribe token (GET shows this); null when the link is not valid. */
export async function readUnsubscribeToken(
  db: Db,
  config: Config,
  token: string | undefined,
): Promise<UnsubscribeTarget | null> {
  const verified = token ? verifyUnsubscribeToken(config.secretKey, token) : null;
  if (!verified) return null;
  const recipient = await findRecipient(db, verified.userId);
  if (!recipient) return null;
  return { ...verified, email: recipient.email, locale: asServerLocale(recipient.language) };
}

/**
 * One click: the list goes off for the token's person, whoever sends the request (no session is read
 * or created). Repeating it changes nothing.
 */
export async function unsubscribe(
  db: Db,
  config: Config,
  token: string | undefined,
  request?: FastifyRequest,
): Promise<UnsubscribeTarget | null> {
  const target = await readUnsubscribeToken(db, config, token);
  if (!target) return null;
  await upsertSettings(db, target.userId, { [LIST_COLUMN[target.list]]: false });
  await writeAudit(db, {
    action: "notifications.unsubscribed",
    userId: target.userId,
    objectId: target.list,
    request,
  });
  return target;
}
