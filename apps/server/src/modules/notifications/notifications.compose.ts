import { translatePlural } from "../../lib/i18n.ts";
import type { Mail } from "../../lib/mailer.ts";
import { escapeHtml, isSafeExternalUrl, renderMarkdown } from "../academy/markdown.ts";
import {
  button,
  greeting,
  type MailContext,
  notificationMail,
  publicBase,
  STYLE,
  t,
} from "./notifications.mail.ts";
import type { NewsContent } from "./notifications.repo.ts";
import { CHART_HEIGHT, CHART_WIDTH, type ChartImage, renderReportCharts } from "./weekly-report.chart.ts";
import { REPORT_METRICS, type ReportMetric, type WeeklyReport } from "./weekly-report.ts";

/** The three kinds of notification mail, written in the person's newsletter language. */

/** A table's day ("Mon, Nov 16", "пн, 16 нояб."), or a date in a sentence ("November 16", "16 ноября"). */
const dayLabel = (ctx: MailContext, date: string, inTable: boolean) =>
  new Intl.DateTimeFormat(ctx.locale, {
    ...(inTable ? { weekday: "short" } : {}),
    day: "numeric",
    month: inTable ? "short" : "long",
    timeZone: "UTC",
  }).format(new Date(`${date}T12:00:00Z`));

/** One value as the person reads it: ms for HRV, "of 100" for scores, hours and minutes for sleep. */
export function formatValue(ctx: MailContext, metric: ReportMetric, value: number | null): string {
  if (value === null) return t(ctx, "weekly.no_value");
  const number = (n: number) => new Intl.NumberFormat(ctx.locale, { maximumFractionDigits: 0 }).format(n);
  if (metric === "rmssd") return t(ctx, "weekly.values.ms", { value: number(value) });
  if (metric === "sleep") {
    const minutes = Math.round(value / 60);
    return t(ctx, "weekly.values.hours_minutes", {
      hours: String(Math.floor(minutes / 60)),
      minutes: String(minutes % 60),
    });
  }
  return t(ctx, "weekly.values.score", { value: number(value) });
}

function summaryTable(ctx: MailContext, report: WeeklyReport, charts: readonly ChartImage[]): string {
  const rows = REPORT_METRICS.map((metric) => {
    const label = t(ctx, `weekly.metrics.${metric}`);
    const values = report.days
      .map((d) => `${dayLabel(ctx, d.date, true)} ${formatValue(ctx, metric, d[metric])}`)
      .join(", ");
    const cid = charts.find((c) => c.metric === metric)?.cid ?? "";
    const alt = t(ctx, "weekly.chart_alt", { metric: label, values });
    return [
      `<tr><th scope="row" style="${STYLE.td};font-weight:600;text-align:left">${escapeHtml(label)}</th>`,
      `<td style="${STYLE.td}"><img src="cid:${cid}" width="${CHART_WIDTH}" height="${CHART_HEIGHT}" alt="${escapeHtml(alt)}" style="display:block;max-width:100%;height:auto;border:0"></td>`,
      `<td style="${STYLE.td};white-space:nowrap">${escapeHtml(formatValue(ctx, metric, report.averages[metric]))}</td></tr>`,
    ].join("");
  });
  return [
    '<table cellpadding="0" cellspacing="0" style="width:100%;border-collapse:collapse;margin:0 0 16px">',
    `<thead><tr><th scope="col" style="${STYLE.th}">${escapeHtml(t(ctx, "weekly.metric"))}</th>`,
    `<th scope="col" style="${STYLE.th}">${escapeHtml(t(ctx, "weekly.chart"))}</th>`,
    `<th scope="col" style="${STYLE.th}">${escapeHtml(t(ctx, "weekly.average"))}</th></tr></thead>`,
    `<tbody>${rows.join("")}</tbody></table>`,
  ].join("");
}

function daysTable(ctx: MailContext, report: WeeklyReport): string {
  const head = REPORT_METRICS.map(
    (m) => `<th scope="col" style="${STYLE.th}">${escapeHtml(t(ctx, `weekly.metrics.${m}`))}</th>`,
  ).join("");
  const rows = report.days.map(
    (d) =>
      `<tr><th scope="row" style="${STYLE.td};font-weight:600;text-align:left;white-space:nowrap">${escapeHtml(dayLabel(ctx, d.date, true))}</th>${REPORT_METRICS.map(
        (m) => `<td style="${STYLE.td}">${escapeHtml(formatValue(ctx, m, d[m]))}</td>`,
      ).join("")}</tr>`,
  );
  return [
    '<table cellpadding="0" cellspacing="0" style="width:100%;border-collapse:collapse;margin:0 0 16px">',
    `<caption style="text-align:left;${STYLE.small}">${escapeHtml(t(ctx, "weekly.days_caption"))}</caption>`,
    `<thead><tr><th scope="col" style="${STYLE.th}">${escapeHtml(t(ctx, "weekly.day"))}</th>${head}</tr></thead>`,
    `<tbody>${rows.join("")}</tbody></table>`,
  ].join("");
}

function daysText(ctx: MailContext, report: WeeklyReport): string {
  const lines = REPORT_METRICS.map(
    (m) =>
      `${t(ctx, `weekly.metrics.${m}`)}: ${t(ctx, "weekly.average")} ${formatValue(ctx, m, report.averages[m])}`,
  );
  const days = report.days.map(
    (d) =>
      `${dayLabel(ctx, d.date, true)}: ${REPORT_METRICS.map((m) => `${t(ctx, `weekly.metrics.${m}`)} ${formatValue(ctx, m, d[m])}`).join("; ")}`,
  );
  return [...lines, "", ...days].join("\n");
}

/** The weekly report: summary with a small chart per series, the days, and a link to the dashboard. */
export async function composeWeeklyReport(
  ctx: MailContext,
  report: WeeklyReport,
  sendDate: string,
): Promise<Mail> {
  const first = report.days[0]?.date ?? sendDate;
  const last = report.days.at(-1)?.date ?? sendDate;
  const range = { from: dayLabel(ctx, first, false), to: dayLabel(ctx, last, false) };
  const subject = t(ctx, "weekly.subject", range);
  const base = publicBase(ctx.config);
  const intro = t(ctx, "weekly.intro", range);
  if (report.isEmpty) {
    const measure = `${base}/measure`;
    return notificationMail(ctx, {
      subject,
      html: [
        `<h1 style="${STYLE.h1}">${escapeHtml(t(ctx, "weekly.title"))}</h1>`,
        `<p style="${STYLE.p}">${escapeHtml(greeting(ctx))}</p>`,
        `<p style="${STYLE.p}">${escapeHtml(intro)}</p>`,
        `<p style="${STYLE.p}">${escapeHtml(t(ctx, "weekly.empty"))}</p>`,
        button(measure, t(ctx, "weekly.start_measuring")),
      ].join(""),
      text: [
        greeting(ctx),
        "",
        intro,
        "",
        t(ctx, "weekly.empty"),
        "",
        t(ctx, "weekly.start_measuring_text", { link: measure }),
      ].join("\n"),
    });
  }
  const charts = await renderReportCharts(report, `${sendDate}.${ctx.userId}`);
  const dashboard = `${base}/dashboard`;
  const measured =
    report.measurementCount > 0
      ? translatePlural(ctx.locale, "notifications.weekly.measured", report.measurementCount)
      : t(ctx, "weekly.no_measurements");
  return notificationMail(ctx, {
    subject,
    html: [
      `<h1 style="${STYLE.h1}">${escapeHtml(t(ctx, "weekly.title"))}</h1>`,
      `<p style="${STYLE.p}">${escapeHtml(greeting(ctx))}</p>`,
      `<p style="${STYLE.p}">${escapeHtml(intro)} ${escapeHtml(measured)}</p>`,
      summaryTable(ctx, report, charts),
      daysTable(ctx, report),
      button(dashboard, t(ctx, "weekly.open_dashboard")),
    ].join(""),
    text: [
      greeting(ctx),
      "",
      `${intro} ${measured}`,
      "",
      daysText(ctx, report),
      "",
      t(ctx, "weekly.open_dashboard_text", { link: dashboard }),
    ].join("\n"),
    images: charts.map((c) => ({
      cid: c.cid,
      filename: `${c.metric}.png`,
      contentType: "image/png",
      content: c.png,
    })),
  });
}

/** The measurement reminder, naming the local time the person chose. */
export function composeReminder(ctx: MailContext, localTime: string): Mail {
  const subject = t(ctx, "reminder.subject");
  const measure = `${publicBase(ctx.config)}/measure`;
  const body = t(ctx, "reminder.body", { time: localTime });
  return notificationMail(ctx, {
    subject,
    html: [
      `<h1 style="${STYLE.h1}">${escapeHtml(t(ctx, "reminder.title"))}</h1>`,
      `<p style="${STYLE.p}">${escapeHtml(greeting(ctx))}</p>`,
      `<p style="${STYLE.p}">${escapeHtml(body)}</p>`,
      button(measure, t(ctx, "reminder.start")),
    ].join(""),
    text: [greeting(ctx), "", body, "", t(ctx, "reminder.start_text", { link: measure })].join("\n"),
  });
}

/** A news issue in the person's language: the operator's Markdown as HTML, and as it was for text. */
export function composeNews(ctx: MailContext, content: NewsContent[string]): Mail {
  const base = publicBase(ctx.config);
  const html = renderMarkdown(content.markdown, {
    // Links may leave for the web; a relative link is one of our pages. Images are not sent.
    resolveLink: (target) =>
      isSafeExternalUrl(target) ? target : target.startsWith("/") ? `${base}${target}` : null,
    resolveImage: () => null,
  });
  return notificationMail(ctx, {
    subject: content.subject,
    html: `<div style="${STYLE.p}">${html}</div>`,
    text: content.markdown.trim(),
  });
}
