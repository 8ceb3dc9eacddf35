import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { NOTIFICATIONS_API } from "@tonus/contract";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import type { Database } from "../../db/client.ts";
import { notificationDeliveries, notificationNews, notificationSettings } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { type ParsedMail, parseMail } from "../../test/mail.ts";
import { startTestSmtp } from "../../test/smtp.ts";
import { createTestUser } from "../../test/users.ts";
import { sendNewsCommand } from "./notifications.cli.ts";
import { runTick, sendDelivery } from "./notifications.jobs.ts";
import { insertDeliveries } from "./notifications.repo.ts";
import { updateNotificationSettings } from "./notifications.service.ts";
import { addMeasurement, addSleep, ledger, settled } from "./notifications.test-support.ts";
import { signUnsubscribeToken } from "./notifications.tokens.ts";

// Every mail here goes through a real SMTP server started by the test and is read back with a MIME
// parser, as a mail client would. The clock of the schedule is the instant each tick is given.

const PUBLIC = "https://tonus.test";
const ENV = { PUBLIC_URL: PUBLIC, NOTIFICATIONS_ENABLED: "0" };
type Smtp = Awaited<ReturnType<typeof startTestSmtp>>;

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A text mail above its footer ("--" on a line of its own): the footer's unsubscribe link carries a
 * random token, which may hold any digits a test looks for. Fails if the mail has no such footer.
 */
function aboveFooter(text: string): string {
  const parts = text.split(/\r?\n--\r?\n/);
  expect(parts.length, "a footer after a line holding only --").toBeGreaterThan(1);
  return parts[0] ?? "";
}

describe.each(BACKENDS)("notification e-mails on %s", (backend) => {
  let database: Database;
  let app: App;
  let smtp: Smtp;
  const extraApps: App[] = [];

  beforeAll(async () => {
    smtp = await startTestSmtp();
    database = await getTestDatabase(backend);
    app = await buildTestApp(database, { ...ENV, SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    for (const other of extraApps) await other.close();
    await app.close();
    await smtp.close();
  });
  beforeEach(async () => {
    smtp.messages.length = 0;
    await resetDatabase(database);
  });

  const tick = async (at: string, on: App = app) => {
    await runTick(on.ctx, new Date(at));
    await settled(on);
  };
  const mails = async (): Promise<ParsedMail[]> => Promise.all(smtp.messages.map(parseMail));
  const mailTo = async (email: string) => (await mails()).filter((m) => m.to.includes(email));
  const db = () => database.db;

  async function person(
    language: "en" | "ru",
    timezone: string,
    settings: Parameters<typeof updateNotificationSettings>[2],
    name = "",
  ) {
    const user = await createTestUser(database, { newsletterLanguage: language, timezone, name });
    await updateNotificationSettings(db(), user.userId, settings);
    return user;
  }

  it("sends the weekly report in English: charts inline by CID, a text part, the dashboard and one-click unsubscribe", async () => {
    const ann = await person("en", "Europe/Berlin", { weekly_report: true, weekly_report_day: 1 }, "Ann");
    // The week before Monday 23 November 2026 in Berlin (UTC+1): 16–22 November.
    await addMeasurement(db(), ann.userId, "2026-11-15T22:59:00Z", { rmssd: 999, stress: 99, energy: 1 });
    await addMeasurement(db(), ann.userId, "2026-11-16T06:00:00Z", { rmssd: 40, stress: 30, energy: 70 });
    await addMeasurement(db(), ann.userId, "2026-11-16T18:00:00Z", { rmssd: 50, stress: 50, energy: 50 });
    await addMeasurement(db(), ann.userId, "2026-11-18T07:00:00Z", { rmssd: 60, stress: 20, energy: 80 });
    await addMeasurement(db(), ann.userId, "2026-11-22T23:00:00Z", { rmssd: 999, stress: 99, energy: 1 });
    // The same night from two apps counts once; a nap adds to the night of the same source.
    await addSleep(db(), ann.userId, "2026-11-17T06:00:00Z", 27_000);
    await addSleep(db(), ann.userId, "2026-11-17T06:00:00Z", 27_000, "apple_health");
    await addSleep(db(), ann.userId, "2026-11-19T06:00:00Z", 25_200);
    await addSleep(db(), ann.userId, "2026-11-19T13:00:00Z", 1_800);

    await tick("2026-11-23T06:59:00Z");
    expect(smtp.messages).toHaveLength(0);
    await tick("2026-11-23T07:00:00Z");
    const [mail, ...others] = await mails();
    expect(others).toHaveLength(0);
    if (!mail) throw new Error("no weekly report");
    expect(mail.to).toEqual([ann.email]);
    expect(mail.subject).toBe("Your Tonus week: November 16 – November 22");

    const token = signUnsubscribeToken(app.ctx.config.secretKey, ann.userId, "weekly_report");
    const unsubscribe = `${PUBLIC}${NOTIFICATIONS_API.unsubscribe}?token=${encodeURIComponent(token)}`;
    expect(mail.header("list-unsubscribe")).toBe(`<${unsubscribe}>`);
    expect(mail.header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");

    expect(mail.text).toContain("Hello, Ann!");
    expect(mail.text).toContain("You measured 3 times this week.");
    expect(mail.text).toContain("HRV (rMSSD): Average 53 ms");
    expect(mail.text).toContain("Stress: Average 30 of 100");
    expect(mail.text).toContain("Energy: Average 70 of 100");
    expect(mail.text).toContain("Sleep: Average 7 h 30 min");
    expect(mail.text).toContain(
      "Mon, Nov 16: HRV (rMSSD) 45 ms; Stress 40 of 100; Energy 60 of 100; Sleep no data",
    );
    expect(mail.text).toContain(
      "Thu, Nov 19: HRV (rMSSD) no data; Stress no data; Energy no data; Sleep 7 h 30 min",
    );
    expect(aboveFooter(mail.text)).not.toContain("999");
    expect(mail.text).toContain(`Open your dashboard: ${PUBLIC}/dashboard`);
    expect(mail.text).toContain(`Unsubscribe from the weekly report: ${unsubscribe}`);

    expect(mail.html).toContain('<html lang="en">');
    expect(mail.html).toContain(`href="${unsubscribe.replaceAll("&", "&amp;")}"`);
    expect(mail.html).toContain(`href="${PUBLIC}/dashboard"`);
    expect(mail.images).toHaveLength(4);
    for (const image of mail.images) {
      expect(image.mimeType).toBe("image/png");
      expect(image.disposition).toBe("inline");
      expect(image.bytes.subarray(0, 8).equals(PNG_MAGIC)).toBe(true);
      expect(mail.html).toContain(`src="cid:${image.contentId}"`);
    }
    expect(mail.html).toContain(
      'alt="HRV (rMSSD) by day: Mon, Nov 16 45 ms, Tue, Nov 17 no data, Wed, Nov 18 60 ms',
    );

    // Later ticks in the same period find it in the ledger.
    await tick("2026-11-23T07:01:00Z");
    await tick("2026-11-23T20:00:00Z");
    expect(smtp.messages).toHaveLength(1);
    expect(await ledger(app)).toEqual([
      { userId: ann.userId, kind: "weekly_report", periodKey: "2026-11-23", status: "sent" },
    ]);
  });

  it("writes the weekly report in Russian with Russian plurals, and says so kindly when a week is empty", async () => {
    const olga = await person("ru", "Europe/Moscow", { weekly_report: true, weekly_report_day: 1 }, "Ольга");
    const quiet = await person("ru", "Europe/Moscow", { weekly_report: true, weekly_report_day: 1 });
    const calm = await person("en", "Europe/Moscow", { weekly_report: true, weekly_report_day: 1 });
    for (const [i, day] of ["16", "17", "18", "19", "20"].entries())
      await addMeasurement(db(), olga.userId, `2026-11-${day}T05:00:00Z`, {
        rmssd: 40 + i,
        stress: 30,
        energy: 60,
      });
    await addSleep(db(), olga.userId, "2026-11-17T04:00:00Z", 8 * 3600 + 5 * 60);

    await tick("2026-11-23T05:00:00Z");
    expect(smtp.messages).toHaveLength(3);
    const [report] = await mailTo(olga.email);
    expect(report?.subject).toBe("Ваша неделя в Tonus: 16 ноября – 22 ноября");
    expect(report?.text).toContain("Вот как прошла ваша неделя с 16 ноября по 22 ноября. За неделю");
    expect(report?.text).toContain("Здравствуйте, Ольга!");
    expect(report?.text).toContain("За неделю вы сделали 5 измерений.");
    expect(report?.text).toContain("ВСР (rMSSD): В среднем 42 мс");
    expect(report?.text).toContain("Сон: В среднем 8 ч 5 мин");
    expect(report?.text).toContain(
      "Отписаться (еженедельный отчёт): https://tonus.test/api/v1/unsubscribe/?token=",
    );
    expect(report?.html).toContain('<html lang="ru">');
    expect(report?.images).toHaveLength(4);

    const [empty] = await mailTo(quiet.email);
    expect(empty?.text).toContain("Здравствуйте!");
    expect(empty?.text).toContain("За эту неделю у нас нет ни измерений, ни данных о сне, и это нормально.");
    expect(empty?.text).toContain(`Сделать измерение: ${PUBLIC}/measure`);
    expect(empty?.images).toEqual([]);
    const [english] = await mailTo(calm.email);
    expect(english?.text).toContain(
      "We have no measurements or sleep data from this week, and that is fine.",
    );
    expect(english?.header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
  });

  it("reminds at the chosen local time on the chosen days, across New York's DST change, not when measured", async () => {
    const ny = await person("en", "America/New_York", {
      reminders: true,
      reminder_time: "07:30",
      reminder_days: [6, 7],
    });
    const msk = await person("ru", "Europe/Moscow", {
      reminders: true,
      reminder_time: "21:00",
      reminder_days: [1, 2, 3, 4, 5, 6, 7],
    });
    // Saturday 7 March 2026, 07:30 EST = 12:30 UTC; Sunday 8 March, 07:30 EDT = 11:30 UTC.
    await tick("2026-03-07T12:29:00Z");
    expect(smtp.messages).toHaveLength(0);
    await tick("2026-03-07T12:30:00Z");
    await tick("2026-03-08T11:30:00Z");
    await tick("2026-03-08T12:29:00Z");
    await tick("2026-03-09T11:30:00Z"); // Monday: not a chosen day
    const sent = await mailTo(ny.email);
    expect(sent.map((m) => m.subject)).toEqual(["Time to measure your HRV", "Time to measure your HRV"]);
    expect(sent[0]?.text).toContain("It is 7:30 AM, the time you chose");
    expect(sent[0]?.text).toContain(`Start measuring: ${PUBLIC}/measure`);
    const token = signUnsubscribeToken(app.ctx.config.secretKey, ny.userId, "reminders");
    expect(sent[0]?.header("list-unsubscribe")).toContain(encodeURIComponent(token));

    // Moscow measured on Saturday morning: no reminder that evening; Sunday's comes, in Russian.
    await addMeasurement(db(), msk.userId, "2026-03-07T05:00:00Z", { rmssd: 50, stress: 30, energy: 60 });
    await tick("2026-03-07T18:00:00Z");
    await tick("2026-03-08T18:05:00Z");
    const russian = await mailTo(msk.email);
    expect(russian).toHaveLength(1);
    expect(russian[0]?.subject).toBe("Пора измерить ВСР");
    expect(russian[0]?.text).toContain("Сейчас 21:00 — время, которое вы выбрали");
    const rows = (await ledger(app)).filter((r) => r.userId === msk.userId);
    expect(rows.map((r) => [r.periodKey, r.status]).sort()).toEqual([
      ["2026-03-07", "skipped"],
      ["2026-03-08", "sent"],
    ]);
  });

  it("covers the DST week in New York with local days: 167 hours, every value on the day it was lived", async () => {
    const ny = await person("en", "America/New_York", { weekly_report: true, weekly_report_day: 1 });
    const m = (at: string, rmssd: number) =>
      addMeasurement(db(), ny.userId, at, { rmssd, stress: 40, energy: 60 });
    await m("2026-03-02T04:30:00Z", 999); // Sunday 1 March, 23:30 EST: the week before
    await m("2026-03-02T05:30:00Z", 30); // Monday 2 March, 00:30 EST
    await m("2026-03-08T06:30:00Z", 40); // Sunday 8 March, 01:30 EST, before the change
    await m("2026-03-08T07:30:00Z", 50); // Sunday 8 March, 03:30 EDT, after it
    await m("2026-03-09T03:30:00Z", 60); // Sunday 8 March, 23:30 EDT
    await m("2026-03-09T04:00:00Z", 999); // Monday 9 March, 00:00 EDT: the next week

    // Monday 9 March, 08:00 EDT is 12:00 UTC (a week earlier 08:00 EST was 13:00 UTC).
    await tick("2026-03-09T11:59:00Z");
    expect(smtp.messages).toHaveLength(0);
    await tick("2026-03-09T12:00:00Z");
    const [report] = await mailTo(ny.email);
    expect(report?.subject).toBe("Your Tonus week: March 2 – March 8");
    expect(report?.text).toContain("You measured 4 times this week.");
    expect(report?.text).toContain("Mon, Mar 2: HRV (rMSSD) 30 ms");
    expect(report?.text).toContain("Sun, Mar 8: HRV (rMSSD) 50 ms");
    expect(report?.text).toContain("Sat, Mar 7: HRV (rMSSD) no data");
    // Neither week's 999 ms counts.
    expect(aboveFooter(report?.text ?? "")).not.toContain("999");
  });

  it("sends the operator's news from a file per language to those who opted in, once", async () => {
    const en = await person("en", "UTC", { product_news: true });
    const ru = await person("ru", "UTC", { product_news: true });
    const silent = await person("en", "UTC", { product_news: false, weekly_report: true });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-news-"));
    const enFile = path.join(dir, "news.en.md");
    const ruFile = path.join(dir, "news.ru.md");
    fs.writeFileSync(
      enFile,
      "# Tonus 1.1 is out\n\nThe **weekly report** is here. [Read more](https://example.org/blog).\n",
    );
    fs.writeFileSync(ruFile, "# Вышел Tonus 1.1\n\nПоявился **еженедельный отчёт**. [Подробнее](/lms).\n");
    try {
      const queued = await sendNewsCommand(db(), ["--en", enFile, "--ru", ruFile]);
      expect(queued.ok).toBe(true);
      expect(queued.message).toContain('en: "Tonus 1.1 is out" to 1 subscriber(s)');
      expect(queued.message).toContain('ru: "Вышел Tonus 1.1" to 1 subscriber(s)');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await tick("2026-11-25T10:00:00Z");
    await tick("2026-11-25T10:01:00Z");
    expect(smtp.messages).toHaveLength(2);
    const [english] = await mailTo(en.email);
    expect(english?.subject).toBe("Tonus 1.1 is out");
    expect(english?.html).toContain("<strong>weekly report</strong>");
    expect(english?.html).toContain('href="https://example.org/blog"');
    expect(english?.text).toContain("The **weekly report** is here.");
    expect(english?.text).toContain(
      "Unsubscribe from product news: https://tonus.test/api/v1/unsubscribe/?token=news.",
    );
    const [russian] = await mailTo(ru.email);
    expect(russian?.subject).toBe("Вышел Tonus 1.1");
    expect(russian?.html).toContain(`href="${PUBLIC}/lms"`);
    expect(await mailTo(silent.email)).toEqual([]);
    const [news] = await db().select().from(notificationNews);
    expect(news?.fannedOutAt).not.toBeNull();
    expect(news?.recipients).toBe(2);
  });

  it("refuses news files without a subject line, and sends nothing for them", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-news-"));
    const file = path.join(dir, "bad.md");
    fs.writeFileSync(file, "No heading here\n");
    try {
      expect(await sendNewsCommand(db(), ["--en", file])).toMatchObject({ ok: false });
      expect(await sendNewsCommand(db(), ["--de", file])).toMatchObject({ ok: false, usage: true });
      expect(await sendNewsCommand(db(), ["--en", path.join(dir, "missing.md")])).toMatchObject({
        ok: false,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(await db().select().from(notificationNews)).toEqual([]);
  });

  it("unsubscribes with one click and without signing in; the link names one person and one list", async () => {
    const ann = await person("en", "UTC", {
      weekly_report: true,
      weekly_report_day: 1,
      reminders: true,
      reminder_days: [1],
      product_news: true,
    });
    const bob = await person("en", "UTC", { weekly_report: true, weekly_report_day: 1 });
    await tick("2026-11-23T08:00:00Z");
    const [weekly] = (await mailTo(ann.email)).filter((m) => m.subject.startsWith("Your Tonus week"));
    const link = /^<(.+)>$/.exec(weekly?.header("list-unsubscribe") ?? "")?.[1] ?? "";
    const url = new URL(link);
    expect(url.origin).toBe(PUBLIC);
    const target = `${url.pathname}${url.search}`;
    const settingsOf = async (userId: string) =>
      (await db().select().from(notificationSettings).where(eq(notificationSettings.userId, userId)))[0];

    // GET only asks (scanners and previews follow links); nothing changes, nobody is signed in.
    const page = await app.inject({ method: "GET", url: target, headers: { accept: "text/html" } });
    expect(page.statusCode).toBe(200);
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    expect(page.body).toContain(`Stop sending the weekly report to ${ann.email}?`);
    expect(page.body).toContain('<form method="post"');
    expect(String(page.headers["set-cookie"] ?? "")).not.toContain("web_user=1");
    expect((await settingsOf(ann.userId))?.weeklyReport).toBe(true);

    // A mail client's one-click POST: no cookies, no Origin, just the RFC 8058 body.
    const click = await app.inject({
      method: "POST",
      url: target,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(click.statusCode).toBe(200);
    expect(click.json()).toEqual({ ok: true, list: "weekly_report" });
    expect(click.headers["set-cookie"]).toBeUndefined();
    expect(await settingsOf(ann.userId)).toMatchObject({
      weeklyReport: false,
      reminders: true,
      productNews: true,
    });
    // Again: still fine, nothing else changes.
    expect(
      (await app.inject({ method: "POST", url: target, payload: "List-Unsubscribe=One-Click" })).statusCode,
    ).toBe(200);

    // The confirmation page's button, sent with Bob's session cookie: it leaves Ann's reminders, touches
    // nothing of Bob's, sets no cookie, and Bob stays signed in.
    const reminders = signUnsubscribeToken(app.ctx.config.secretKey, ann.userId, "reminders");
    const boundary = "----tonus";
    const button = await app.inject({
      method: "POST",
      url: `${NOTIFICATIONS_API.unsubscribe}?token=${encodeURIComponent(reminders)}`,
      headers: {
        accept: "text/html",
        cookie: `tonussessionid=${bob.sessionId}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
      },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`,
    });
    expect(button.statusCode).toBe(200);
    expect(button.body).toContain("You are unsubscribed");
    expect(button.body).toContain(`We will not send measurement reminders to ${ann.email} any more.`);
    expect(button.headers["set-cookie"]).toBeUndefined();
    expect(await settingsOf(ann.userId)).toMatchObject({ reminders: false, productNews: true });
    expect((await settingsOf(bob.userId))?.weeklyReport).toBe(true);
    const session = await bob.client(app).get("/dashboard_api/v1/auth/session/");
    expect(session.json()).toMatchObject({ authenticated: true });

    // Forged or broken links do nothing and say so, the same way.
    const news = signUnsubscribeToken(app.ctx.config.secretKey, ann.userId, "news");
    const forged = [
      `${news.slice(0, -1)}${news.endsWith("A") ? "B" : "A"}`,
      news.replace(ann.userId, bob.userId),
      news.replace("news.", "weekly_report."),
      "",
      "x".repeat(400),
    ];
    for (const token of forged) {
      const url = `${NOTIFICATIONS_API.unsubscribe}?token=${encodeURIComponent(token)}`;
      const html = await app.inject({ method: "POST", url, headers: { accept: "text/html" } });
      expect(html.statusCode, token).toBe(404);
      expect(html.body).toContain("This link does not work");
      const json = await app.inject({ method: "POST", url, payload: "List-Unsubscribe=One-Click" });
      expect(json.statusCode).toBe(404);
      expect(json.json()).toMatchObject({ code: "not_found" });
      expect((await app.inject({ method: "GET", url, headers: { accept: "text/html" } })).statusCode).toBe(
        404,
      );
    }
    expect(await settingsOf(ann.userId)).toMatchObject({ productNews: true });
    expect((await settingsOf(bob.userId))?.weeklyReport).toBe(true);

    // The next Monday: Bob's report comes, Ann's does not.
    smtp.messages.length = 0;
    await tick("2026-11-30T08:00:00Z");
    expect((await mails()).map((m) => m.to[0])).toEqual([bob.email]);
  });

  it("sends each period once across a restart, and never again after a crash mid-send", async () => {
    const ann = await person("en", "UTC", { weekly_report: true, weekly_report_day: 1 });
    await tick("2026-11-23T08:00:00Z");
    expect(smtp.messages).toHaveLength(1);

    // A second instance (or the same one after a restart) ticking in the same period sends nothing.
    const second = await buildTestApp(database, { ...ENV, SMTP_URL: smtp.url });
    extraApps.push(second);
    await tick("2026-11-23T08:05:00Z", second);
    expect(smtp.messages).toHaveLength(1);

    // Queued, then the instance stops before any worker took the job: the next start sends it, once.
    await app.close();
    await second.close();
    extraApps.length = 0;
    const stopping = await buildTestApp(database, { ...ENV, SMTP_URL: smtp.url }, { workJobs: false });
    await runTick(stopping.ctx, new Date("2026-11-30T08:00:00Z"));
    expect((await ledger(stopping)).find((r) => r.periodKey === "2026-11-30")?.status).toBe("pending");
    await stopping.close();
    app = await buildTestApp(database, { ...ENV, SMTP_URL: smtp.url });
    await settled(app);
    expect(smtp.messages).toHaveLength(2);
    await tick("2026-11-30T09:00:00Z");
    expect(smtp.messages).toHaveLength(2);

    // A crash between taking a row and marking it sent leaves it "sending": it is never sent again.
    await db()
      .insert(notificationDeliveries)
      .values({
        userId: ann.userId,
        kind: "weekly_report",
        periodKey: "2026-12-07",
        scheduledAt: new Date("2026-12-07T08:00:00Z"),
        status: "sending",
      });
    await runTick(app.ctx, new Date("2026-12-07T08:00:00Z"));
    const [row] = await db()
      .select()
      .from(notificationDeliveries)
      .where(eq(notificationDeliveries.periodKey, "2026-12-07"));
    expect(await sendDelivery(app.ctx, row?.id ?? 0)).toBeNull();
    expect(smtp.messages).toHaveLength(2);
    expect(row?.status).toBe("sending");
  }, 120_000);

  it("queues again what a lost job left pending, and expires what has become too late", async () => {
    const ann = await person("en", "UTC", {
      weekly_report: true,
      weekly_report_day: 1,
      reminders: true,
      reminder_days: [1],
    });
    const now = new Date();
    const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
    // Rows whose jobs are gone (retries used up, queue lost): written without a job.
    await db()
      .insert(notificationDeliveries)
      .values([
        {
          userId: ann.userId,
          kind: "weekly_report",
          periodKey: "2026-11-23",
          scheduledAt: minutesAgo(60),
          updatedAt: minutesAgo(20),
        },
        {
          userId: ann.userId,
          kind: "reminder",
          periodKey: "2026-11-24",
          scheduledAt: minutesAgo(180),
          updatedAt: minutesAgo(20),
        },
      ]);
    await tick(now.toISOString());
    const rows = await ledger(app);
    expect(rows.find((r) => r.periodKey === "2026-11-23")?.status).toBe("sent");
    expect(rows.find((r) => r.periodKey === "2026-11-24")?.status).toBe("expired");
    expect((await mails()).map((m) => m.subject)).toEqual([expect.stringMatching(/^Your Tonus week/)]);
  });

  it("retries a mail the SMTP server refused, and never resends one whose outcome is unknown", async () => {
    const refused = await person("en", "UTC", { weekly_report: true, weekly_report_day: 1 });
    const lost = await person("en", "UTC", { weekly_report: true, weekly_report_day: 2 });
    // A server that refuses the recipient (550), and one that drops the connection after the message.
    const refusing = await startTestSmtp({ rejectRecipients: [refused.email] });
    const dropping = net.createServer((socket) => {
      socket.write("220 drop.test ESMTP\r\n");
      let inData = false;
      socket.on("data", (chunk: Buffer) => {
        for (const line of chunk.toString().split("\r\n")) {
          if (inData) {
            if (line === ".") socket.destroy();
            continue;
          }
          const verb = line.slice(0, 4).toUpperCase();
          if (verb === "EHLO" || verb === "HELO") socket.write("250 drop.test\r\n");
          else if (verb === "MAIL" || verb === "RCPT") socket.write("250 OK\r\n");
          else if (verb === "DATA") {
            inData = true;
            socket.write("354 go on\r\n");
          }
        }
      });
    });
    await new Promise<void>((resolve) => dropping.listen(0, "127.0.0.1", resolve));
    const droppingUrl = `smtp://127.0.0.1:${(dropping.address() as net.AddressInfo).port}`;
    const viaRefusing = await buildTestApp(database, { ...ENV, SMTP_URL: refusing.url }, { workJobs: false });
    const viaDropping = await buildTestApp(database, { ...ENV, SMTP_URL: droppingUrl }, { workJobs: false });
    try {
      // Ledger rows without queued jobs, so only this test's calls send them.
      const rows = await insertDeliveries(db(), [
        { userId: refused.userId, kind: "weekly_report", periodKey: "2026-11-23", scheduledAt: new Date() },
        { userId: lost.userId, kind: "weekly_report", periodKey: "2026-11-24", scheduledAt: new Date() },
      ]);
      const idOf = (userId: string) => rows.find((r) => r.userId === userId)?.id ?? 0;
      await expect(sendDelivery(viaRefusing.ctx, idOf(refused.userId))).rejects.toThrow();
      expect((await ledger(app)).find((r) => r.userId === refused.userId)?.status).toBe("pending");
      expect(await sendDelivery(viaDropping.ctx, idOf(lost.userId))).toBe("failed");
      expect((await ledger(app)).find((r) => r.userId === lost.userId)?.status).toBe("failed");
      // The refused one goes out once a server takes it; the lost one is never tried again.
      expect(await sendDelivery(app.ctx, idOf(refused.userId))).toBe("sent");
      expect(await sendDelivery(app.ctx, idOf(lost.userId))).toBeNull();
      expect((await mails()).map((m) => m.to[0])).toEqual([refused.email]);
    } finally {
      await viaRefusing.close();
      await viaDropping.close();
      await refusing.close();
      dropping.close();
    }
  }, 120_000);
});
