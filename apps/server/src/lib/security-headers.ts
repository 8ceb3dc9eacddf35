import type { FastifyInstance } from "fastify";
import type { Config } from "./config.ts";

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export const INTERCOM_WIDGET_ORIGIN = "https://widget.intercom.io";

/**
 * What Intercom's Messenger loads, from its CSP guide (intercom.com/help, "Using Intercom with Content
 * Security Policy", source allowlisting), for the default widget of an INTERCOM_KEY.
 */
const INTERCOM_SOURCES = {
  script: ["https://app.intercom.io", INTERCOM_WIDGET_ORIGIN, "https://js.intercomcdn.com"],
  connect: [
    "https://via.intercom.io",
    "https://api.intercom.io",
    "https://api.au.intercom.io",
    "https://api.eu.intercom.io",
    "https://api-iam.intercom.io",
    "https://api-iam.eu.intercom.io",
    "https://api-iam.au.intercom.io",
    "https://api-ping.intercom.io",
    "https://*.intercom-messenger.com",
    "wss://*.intercom-messenger.com",
    "https://nexus-websocket-a.intercom.io",
    "wss://nexus-websocket-a.intercom.io",
    "https://nexus-websocket-b.intercom.io",
    "wss://nexus-websocket-b.intercom.io",
    "https://nexus-europe-websocket.intercom.io",
    "wss://nexus-europe-websocket.intercom.io",
    "https://nexus-australia-websocket.intercom.io",
    "wss://nexus-australia-websocket.intercom.io",
    "https://uploads.intercomcdn.com",
    "https://uploads.intercomcdn.eu",
    "https://uploads.au.intercomcdn.com",
    "https://uploads.eu.intercomcdn.com",
    "https://uploads.intercomusercontent.com",
  ],
  img: [
    "https://js.intercomcdn.com",
    "https://static.intercomassets.com",
    "https://downloads.intercomcdn.com",
    "https://uploads.intercomusercontent.com",
    "https://gifs.intercomcdn.com",
    "https://video-messages.intercomcdn.com",
    "https://messenger-apps.intercom.io",
    "https://*.intercom-attachments-5.com",
    "https://*.intercom-attachments-6.com",
    "https://*.intercom-attachments-9.com",
  ],
  font: ["https://js.intercomcdn.com", "https://fonts.intercomcdn.com"],
  media: ["https://js.intercomcdn.com"],
  frame: [
    "https://intercom-sheets.com",
    "https://www.intercom-reporting.com",
    "https://www.youtube.com",
    "https://player.vimeo.com",
    "https://fast.wistia.net",
  ],
  form: [
    "https://intercom.help",
    "https://api-iam.intercom.io",
    "https://api-iam.eu.intercom.io",
    "https://api-iam.au.intercom.io",
  ],
};

type ChatSources = Record<keyof typeof INTERCOM_SOURCES, string[]>;

/**
 * The chat's extra sources: none without INTERCOM_KEY (no script is loaded then); the origin of
 * CHAT_WIDGET_URL when the operator hosts the script; Intercom's own list otherwise.
 */
function chatSources(config: Config): ChatSources {
  const none: ChatSources = { script: [], connect: [], img: [], font: [], media: [], frame: [], form: [] };
  if (!config.INTERCOM_KEY) return none;
  if (config.CHAT_WIDGET_URL) {
    const origin = originOf(config.CHAT_WIDGET_URL);
    return origin ? { ...none, script: [origin], connect: [origin], img: [origin] } : none;
  }
  return INTERCOM_SOURCES;
}

/**
 * What Stripe.js needs (https://docs.stripe.com/security/guide#content-security-policy): its script,
 * its card and 3-D Secure frames, and its API. Allowed only with BILLING_MODE=stripe.
 */
export const STRIPE_JS_ORIGIN = "https://js.stripe.com";
const STRIPE_FRAMES = [STRIPE_JS_ORIGIN, "https://hooks.stripe.com"];
const STRIPE_API_ORIGIN = "https://api.stripe.com";

/** CSP allowing only our own origin plus the configured chat widget, and Stripe.js in Stripe mode. */
export function contentSecurityPolicy(config: Config): string {
  const chat = chatSources(config);
  const stripe = config.BILLING_MODE === "stripe";
  const extra = (sources: string[]) => (sources.length ? ` ${sources.join(" ")}` : "");
  const frames = [...(stripe ? ["'self'", ...STRIPE_FRAMES] : []), ...chat.frame];
  return [
    "default-src 'self'",
    `script-src 'self'${extra([...chat.script, ...(stripe ? [STRIPE_JS_ORIGIN] : [])])}`,
    `connect-src 'self'${extra([...chat.connect, ...(stripe ? [STRIPE_API_ORIGIN] : [])])}`,
    `img-src 'self' data: blob:${extra(chat.img)}`,
    "style-src 'self' 'unsafe-inline'",
    `media-src 'self' blob:${extra(chat.media)}`,
    `font-src 'self' data:${extra(chat.font)}`,
    ...(frames.length ? [`frame-src${extra(frames)}`] : []),
    "object-src 'none'",
    "base-uri 'none'",
    `form-action 'self'${extra(chat.form)}`,
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Security headers on every response (RELIABILITY.md H1); API answers are never cached. */
export function registerSecurityHeaders(app: FastifyInstance, config: Config): void {
  const csp = contentSecurityPolicy(config);
  const https = config.PUBLIC_URL?.startsWith("https:") === true;
  app.addHook("onSend", async (request, reply, payload) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("x-frame-options", "DENY");
    if (!reply.hasHeader("referrer-policy"))
      reply.header("referrer-policy", "strict-origin-when-cross-origin");
    reply.header("cross-origin-opener-policy", "same-origin");
    reply.header("permissions-policy", "camera=(self), bluetooth=(self), microphone=(), geolocation=()");
    reply.header("content-security-policy", csp);
    if (https) reply.header("strict-transport-security", "max-age=31536000; includeSubDomains");
    const url = request.url;
    if ((url.startsWith("/dashboard_api/") || url.startsWith("/api/")) && !reply.hasHeader("cache-control"))
      reply.header("cache-control", "no-store");
    return payload;
  });
}
