import { NOTIFICATIONS_API, NOTIFICATIONS_PAGE, type NotificationList } from "@tonus/contract";
import type { Config } from "../../lib/config.ts";
import { type ServerLocale, translate } from "../../lib/i18n.ts";
import type { Mail } from "../../lib/mailer.ts";
import { escapeHtml } from "../academy/markdown.ts";
import { signUnsubscribeToken } from "./notifications.tokens.ts";

/**
 * What every notification mail shares: the address links are built from, the one-click unsubscribe
 * headers (RFC 2369, RFC 8058), the visible unsubscribe and settings links, and a plain HTML frame that
 * mail clients render (tables, inline styles, no scripts, no remote images).
 */

/** The address mail links start with; PUBLIC_URL in production (it must be https for one-click). */
export function publicBase(config: Config): string {
  return (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, "");
}

export type MailContext = {
  config: Config;
  locale: ServerLocale;
  userId: string;
  email: string;
  name: string;
  list: NotificationList;
};

export function unsubscribeUrl(config: Config, userId: string, list: NotificationList): string {
  const token = signUnsubscribeToken(config.secretKey, userId, list);
  return `${publicBase(config)}${NOTIFICATIONS_API.unsubscribe}?token=${encodeURIComponent(token)}`;
}

/**
 * `List-Unsubscribe` with the https link, and `List-Unsubscribe-Post` so mail clients unsubscribe with
 * one POST (RFC 8058 allows one-click only over https, so a plain-http development server omits it).
 */
export function listHeaders(config: Config, userId: string, list: NotificationList): Record<string, string> {
  const url = unsubscribeUrl(config, userId, list);
  return url.startsWith("https://")
    ? { "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }
    : { "List-Unsubscribe": `<${url}>` };
}

export const t = (ctx: MailContext, key: string, params: Record<string, string> = {}) =>
  translate(ctx.locale, `notifications.${key}`, params);

export function greeting(ctx: MailContext): string {
  return ctx.name.trim() ? t(ctx, "greeting", { name: ctx.name.trim() }) : t(ctx, "greeting_anonymous");
}

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
export const STYLE = {
  h1: `margin:0 0 16px;font-size:22px;line-height:1.3;color:#212529;${FONT}`,
  p: `margin:0 0 16px;font-size:16px;line-height:1.5;color:#212529;${FONT}`,
  small: `margin:0 0 8px;font-size:13px;line-height:1.5;color:#495057;${FONT}`,
  button: `display:inline-block;padding:12px 20px;border-radius:6px;background:#0f766e;color:#ffffff;text-decoration:none;font-weight:600;${FONT}`,
  link: "color:#0f766e;",
  th: `padding:6px 8px;text-align:left;font-size:14px;color:#495057;border-bottom:1px solid #dee2e6;${FONT}`,
  td: `padding:6px 8px;font-size:14px;color:#212529;border-bottom:1px solid #f1f3f5;${FONT}`,
};

export function button(href: string, label: string): string {
  return `<p style="margin:8px 0 24px"><a href="${escapeHtml(href)}" style="${STYLE.button}">${escapeHtml(label)}</a></p>`;
}

/** Wraps the content in the mail frame, with the footer every notification carries. */
function frame(ctx: MailContext, subject: string, content: string): string {
  const unsubscribe = unsubscribeUrl(ctx.config, ctx.userId, ctx.list);
  const settings = `${publicBase(ctx.config)}${NOTIFICATIONS_PAGE}`;
  const list = t(ctx, `lists.${ctx.list}`);
  return [
    `<!doctype html><html lang="${ctx.locale}"><head><meta charset="utf-8">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body style="margin:0;padding:0;background:#f4f5f7">',
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7"><tr><td align="center" style="padding:24px 12px">',
    '<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="width:100%;max-width:600px;background:#ffffff;border-radius:8px"><tr><td style="padding:24px">',
    content,
    "</td></tr></table>",
    '<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="width:100%;max-width:600px"><tr><td style="padding:16px 24px">',
    `<p style="${STYLE.small}">${escapeHtml(t(ctx, `footer.${ctx.list}`))}</p>`,
    `<p style="${STYLE.small}"><a href="${escapeHtml(unsubscribe)}" style="${STYLE.link}">${escapeHtml(t(ctx, "footer.unsubscribe", { list }))}</a>`,
    ` · <a href="${escapeHtml(settings)}" style="${STYLE.link}">${escapeHtml(t(ctx, "footer.settings"))}</a></p>`,
    "</td></tr></table>",
    "</td></tr></table></body></html>",
  ].join("");
}

/** The plain-text footer, the same links as the HTML one. */
function textFooter(ctx: MailContext): string {
  const list = t(ctx, `lists.${ctx.list}`);
  return [
    "--",
    t(ctx, `footer.${ctx.list}`),
    t(ctx, "footer.unsubscribe_text", { list, link: unsubscribeUrl(ctx.config, ctx.userId, ctx.list) }),
    t(ctx, "footer.settings_text", { link: `${publicBase(ctx.config)}${NOTIFICATIONS_PAGE}` }),
  ].join("\n");
}

/** A complete notification mail: both parts, the list headers and any inline pictures. */
export function notificationMail(
  ctx: MailContext,
  parts: { subject: string; html: string; text: string; images?: Mail["images"] },
): Mail {
  return {
    to: ctx.email,
    userId: ctx.userId,
    subject: parts.subject,
    html: frame(ctx, parts.subject, parts.html),
    text: `${parts.text}\n\n${textFooter(ctx)}\n`,
    headers: listHeaders(ctx.config, ctx.userId, ctx.list),
    ...(parts.images?.length ? { images: parts.images } : {}),
  };
}
