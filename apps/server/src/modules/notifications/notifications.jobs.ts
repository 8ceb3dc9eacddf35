import type { NotificationList } from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import type { AppContext } from "../../lib/context.ts";
import { asServerLocale } from "../../lib/i18n.ts";
import type { Mail } from "../../lib/mailer.ts";
import { listMeasurements } from "../measurements/measurements.service.ts";
import { composeNews, composeReminder, composeWeeklyReport } from "./notifications.compose.ts";
import type { MailContext } from "./notifications.mail.ts";
import {
  claimDelivery,
  type DeliveryKind,
  type DeliveryRow,
  type DeliveryStatus,
  existingDeliveryKeys,
  expireOverdue,
  findNews,
  findRecipient,
  insertDeliveries,
  listNewsSubscribers,
  listScheduled,
  listStalePending,
  listUnsentNews,
  markNewsFannedOut,
  type NewDelivery,
  type Recipient,
  setDeliveryStatus,
  touchDeliveries,
} from "./notifications.repo.ts";
import {
  addDays,
  dueNotifications,
  graceOf,
  safeTimeZone,
  zonedTimeToUtc,
} from "./notifications.schedule.ts";
import { buildWeeklyReport } from "./weekly-report.ts";

/**
 * The notification jobs on the shared pg-boss runner. A tick (every minute, once across instances)
 * writes what has fallen due into the send ledger and queues one send job per row, in the same
 * transaction; the send job takes its row (pending → sending) before the mail goes out and marks it sent
 * after, so each person gets each period's mail at most once, also across crashes and restarts.
 */
export const TICK_JOB = "notifications.tick";
export const SEND_JOB = "notifications.send";
/** A pending row whose job has not taken it after this long is queued again (its job may be lost). */
export const REQUEUE_AFTER_MS = 15 * 60_000;
const BATCH = 500;

export type SendJobData = { deliveryId: number; userId: string };
type Ctx = Pick<AppContext, "config" | "database" | "services" | "log">;

const LIST_OF: Record<DeliveryKind, NotificationList> = {
  weekly_report: "weekly_report",
  reminder: "reminders",
  news: "news",
};

const queueSend = (ctx: Ctx, data: SendJobData, tx?: Db) =>
  ctx.services.jobs.send(SEND_JOB, data, tx ? { tx } : {});

/** Writes new ledger rows and queues their send jobs in one transaction: both exist, or neither. */
async function record(ctx: Ctx, rows: NewDelivery[]): Promise<number> {
  if (rows.length === 0) return 0;
  return ctx.database.db.transaction(async (tx) => {
    const created = await insertDeliveries(tx as unknown as Db, rows);
    for (const row of created)
      await queueSend(ctx, { deliveryId: row.id, userId: row.userId }, tx as unknown as Db);
    return created.length;
  });
}

/** Weekly reports and reminders due at `now`, page by page over the people who turned one on. */
async function scheduleDue(ctx: Ctx, now: Date): Promise<number> {
  let queued = 0;
  let after: string | null = null;
  for (;;) {
    const page = await listScheduled(ctx.database.db, after, BATCH);
    if (page.length === 0) return queued;
    after = page.at(-1)?.userId ?? null;
    const due = page.flatMap((row) =>
      dueNotifications(row, row.timezone, now).map((d) => ({ ...d, userId: row.userId })),
    );
    const existing = await existingDeliveryKeys(
      ctx.database.db,
      [...new Set(due.map((d) => d.userId))],
      [...new Set(due.map((d) => d.periodKey))],
    );
    queued += await record(
      ctx,
      due.filter((d) => !existing.has(`${d.userId}|${d.kind}|${d.periodKey}`)),
    );
    if (page.length < BATCH) return queued;
  }
}

/** Each news issue the operator queued goes to the people who want news in one of its languages. */
async function fanOutNews(ctx: Ctx): Promise<number> {
  let queued = 0;
  for (const news of await listUnsentNews(ctx.database.db)) {
    const recipients = await listNewsSubscribers(ctx.database.db, Object.keys(news.content));
    for (let i = 0; i < recipients.length; i += BATCH) {
      queued += await record(
        ctx,
        recipients.slice(i, i + BATCH).map((userId) => ({
          userId,
          kind: "news" as const,
          periodKey: `news-${news.id}`,
          scheduledAt: news.createdAt,
          newsId: news.id,
        })),
      );
    }
    await markNewsFannedOut(ctx.database.db, news.id, recipients.length);
  }
  return queued;
}

/**
 * Pending rows past their kind's grace period are expired (a reminder two hours late is no reminder);
 * the rest that nobody took for a while (their job failed for good, or was lost) are queued again.
 */
async function requeueStale(ctx: Ctx, now: Date): Promise<number> {
  for (const kind of ["weekly_report", "reminder", "news"] as const)
    await expireOverdue(ctx.database.db, kind, new Date(now.getTime() - graceOf(kind)));
  const stale = await listStalePending(ctx.database.db, new Date(now.getTime() - REQUEUE_AFTER_MS), BATCH);
  for (const row of stale) await queueSend(ctx, { deliveryId: row.id, userId: row.userId });
  await touchDeliveries(
    ctx.database.db,
    stale.map((r) => r.id),
  );
  return stale.length;
}

/** One tick at `now` (the cron job passes the clock; tests pass the instant they reason about). */
export async function runTick(ctx: Ctx, now: Date): Promise<number> {
  const scheduled = await scheduleDue(ctx, now);
  const news = await fanOutNews(ctx);
  await requeueStale(ctx, now);
  return scheduled + news;
}

type Prepared = { mail: Mail } | { status: Extract<DeliveryStatus, "skipped"> };

/** Whether the person still wants this list (an unsubscribe after queuing wins). */
function stillWanted(kind: DeliveryKind, recipient: Recipient): boolean {
  const s = recipient.settings;
  if (!s) return false;
  if (kind === "weekly_report") return s.weeklyReport;
  if (kind === "reminder") return s.reminders;
  return s.productNews;
}

async function hasMeasured(ctx: Ctx, userId: string, day: { from: Date; to: Date }): Promise<boolean> {
  const page = await listMeasurements(ctx, userId, {
    from: day.from.toISOString(),
    to: day.to.toISOString(),
    limit: 1,
    offset: 0,
  });
  return page.count > 0;
}

/**
 * The mail for a claimed row, or why it is not sent; reads the person's current settings and zone. It
 * reads no clock: lateness is the tick's business (it expires rows past their grace period).
 */
async function prepare(ctx: Ctx, row: DeliveryRow): Promise<Prepared> {
  const recipient = await findRecipient(ctx.database.db, row.userId);
  const kind = row.kind as DeliveryKind;
  if (!recipient || !stillWanted(kind, recipient)) return { status: "skipped" };
  const timeZone = safeTimeZone(recipient.timezone);
  const mc: MailContext = {
    config: ctx.config,
    locale: asServerLocale(recipient.language),
    userId: row.userId,
    email: recipient.email,
    name: recipient.name,
    list: LIST_OF[kind],
  };
  if (kind === "weekly_report") {
    const report = await buildWeeklyReport(ctx, row.userId, row.periodKey, timeZone);
    return { mail: await composeWeeklyReport(mc, report, row.periodKey) };
  }
  if (kind === "reminder") {
    // Already measured that day: no reminder needed.
    const day = {
      from: zonedTimeToUtc(row.periodKey, "00:00", timeZone),
      to: zonedTimeToUtc(addDays(row.periodKey, 1), "00:00", timeZone),
    };
    if (await hasMeasured(ctx, row.userId, day)) return { status: "skipped" };
    const time = new Intl.DateTimeFormat(mc.locale, { hour: "numeric", minute: "2-digit", timeZone }).format(
      row.scheduledAt,
    );
    return { mail: composeReminder(mc, time) };
  }
  const news = row.newsId === null ? null : await findNews(ctx.database.db, row.newsId);
  const content = news?.content[mc.locale];
  if (!content) return { status: "skipped" };
  return { mail: composeNews(mc, content) };
}

/** Errors that mean the SMTP server was never reached. */
const NEVER_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EDNS",
]);

/**
 * The SMTP server refused the mail (a 4xx/5xx reply), the envelope or login failed, or the server was
 * never reached: the mail certainly did not leave. A connection that broke during the conversation is
 * not certain (the server may have accepted the message just before), so it does not count.
 */
export function isCertainlyUnsent(error: unknown): boolean {
  const e = error as { code?: unknown; originalCode?: unknown; responseCode?: unknown };
  if (typeof e.responseCode === "number" && e.responseCode >= 400) return true;
  if (e.code === "EAUTH" || e.code === "EENVELOPE") return true;
  return [e.code, e.originalCode].some((c) => typeof c === "string" && NEVER_CONNECTED.has(c));
}

/**
 * The send job: at most once per ledger row. Anything that fails before the mail is handed to SMTP puts
 * the row back to pending and lets the job retry; a failure whose outcome is unknown (the connection
 * broke during the message) marks it failed and is never retried, since the mail may have arrived.
 */
export async function sendDelivery(ctx: Ctx, deliveryId: number): Promise<DeliveryStatus | null> {
  const { db } = ctx.database;
  const row = await claimDelivery(db, deliveryId);
  if (!row) return null;
  let prepared: Prepared;
  try {
    prepared = await prepare(ctx, row);
  } catch (error) {
    await setDeliveryStatus(db, row.id, "pending", "sending");
    throw error;
  }
  if ("status" in prepared) {
    await setDeliveryStatus(db, row.id, prepared.status, "sending");
    return prepared.status;
  }
  try {
    await ctx.services.mailer.send(prepared.mail);
  } catch (error) {
    if (isCertainlyUnsent(error)) {
      await setDeliveryStatus(db, row.id, "pending", "sending");
      throw error;
    }
    ctx.log.error({ err: error, deliveryId: row.id, kind: row.kind }, "notification mail outcome unknown");
    await setDeliveryStatus(db, row.id, "failed", "sending");
    return "failed";
  }
  await setDeliveryStatus(db, row.id, "sent", "sending");
  return "sent";
}

/** Defines both jobs on the runner; the tick's cron stays idle with NOTIFICATIONS_ENABLED=false. */
export function defineNotificationJobs(ctx: Ctx): void {
  // Batches drain a Monday morning's reports quickly; the ledger makes a retried batch harmless.
  ctx.services.jobs.defineJob<SendJobData>(
    SEND_JOB,
    async ({ deliveryId }) => {
      await sendDelivery(ctx, deliveryId);
    },
    { batchSize: 20 },
  );
  ctx.services.jobs.defineJob(
    TICK_JOB,
    async () => {
      if (ctx.config.NOTIFICATIONS_ENABLED) await runTick(ctx, new Date());
    },
    { cron: "* * * * *", retryLimit: 1, expireInSeconds: 600 },
  );
}
