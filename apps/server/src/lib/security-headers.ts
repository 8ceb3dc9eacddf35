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

/** CSP allowing only our own origin plus the configured chat widget. */
export function contentSecurityPolicy(config: Config): string {
  const chat = originOf(config.CHAT_WIDGET_URL);
  const extra = chat ? ` ${chat}` : "";
  return [
    "default-src 'self'",
    `script-src 'self'${extra}`,
    `connect-src 'self'${extra}`,
    `img-src 'self' data: blob:${extra}`,
    "style-src 'self' 'unsafe-inline'",
    "media-src 'self' blob:",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
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
