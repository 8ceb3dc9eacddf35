import { NOTIFICATIONS_API, NOTIFICATIONS_PAGE } from "@tonus/contract";
import { type ServerLocale, translate } from "../../lib/i18n.ts";
import { escapeHtml } from "../academy/markdown.ts";
import type { UnsubscribeTarget } from "./notifications.service.ts";

/**
 * The small pages behind an e-mail's unsubscribe link. They are the server's, not the web app's: the link
 * must work from any mail client without scripts, and the same address takes the one-click POST
 * (RFC 8058). Texts come from the server catalogue in the person's newsletter language.
 */

const t = (locale: ServerLocale, key: string, params: Record<string, string> = {}) =>
  translate(locale, `notifications.unsubscribe.${key}`, params);

const STYLE = [
  "body{margin:0;background:#f4f5f7;color:#212529;font:16px/1.5 -apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif}",
  "main{max-width:32rem;margin:3rem auto;padding:1.5rem;background:#fff;border-radius:8px}",
  "h1{font-size:1.4rem;margin:0 0 1rem}",
  "button{font:inherit;font-weight:600;padding:.7rem 1.2rem;border:0;border-radius:6px;background:#0f766e;color:#fff;cursor:pointer}",
  "button:focus-visible,a:focus-visible{outline:3px solid #f59f00;outline-offset:2px}",
  "a{color:#0f766e}",
].join("");

function page(locale: ServerLocale, title: string, body: string): string {
  return [
    `<!doctype html><html lang="${locale}"><head><meta charset="utf-8">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex, nofollow">',
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>`,
    `<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
  ].join("");
}

const listName = (target: UnsubscribeTarget) =>
  translate(target.locale, `notifications.lists.${target.list}`);

/** GET: what the link will do, and the button that does it (a POST to the same address). */
export function confirmPage(target: UnsubscribeTarget, token: string): string {
  const { locale } = target;
  const action = `${NOTIFICATIONS_API.unsubscribe}?token=${encodeURIComponent(token)}`;
  return page(
    locale,
    t(locale, "title"),
    [
      `<p>${escapeHtml(t(locale, "confirm", { list: listName(target), email: target.email }))}</p>`,
      `<form method="post" action="${escapeHtml(action)}">`,
      '<input type="hidden" name="List-Unsubscribe" value="One-Click">',
      `<button type="submit">${escapeHtml(t(locale, "button"))}</button></form>`,
    ].join(""),
  );
}

/** After the POST: done, and where the setting lives now. */
export function donePage(target: UnsubscribeTarget): string {
  const { locale } = target;
  return page(
    locale,
    t(locale, "done_title"),
    [
      `<p>${escapeHtml(t(locale, "done", { list: listName(target), email: target.email }))}</p>`,
      `<p>${escapeHtml(t(locale, "settings_hint"))}</p>`,
      `<p><a href="${NOTIFICATIONS_PAGE}">${escapeHtml(t(locale, "settings_link"))}</a></p>`,
    ].join(""),
  );
}

/** A link that is not (or no longer) valid: the same page whatever the reason. */
export function invalidPage(locale: ServerLocale): string {
  return page(
    locale,
    t(locale, "invalid_title"),
    `<p>${escapeHtml(t(locale, "invalid"))}</p><p><a href="/">${escapeHtml(t(locale, "home"))}</a></p>`,
  );
}
