import { hmac, randomToken, safeEqual } from "./crypto.ts";

const TOKEN_RE = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/;

/**
 * The `csrftoken` value: a fresh nonce and an HMAC binding it to the session id. The spec's wire format
 * (header equals cookie) stays, but a pair minted for another session, or planted from a sibling
 * subdomain without the victim's HttpOnly session id, does not verify (RELIABILITY.md §0.1).
 */
export function mintCsrfToken(secretKey: string, sessionId: string): string {
  const nonce = randomToken(16);
  return `${nonce}.${hmac(secretKey, `csrf|${sessionId}|${nonce}`)}`;
}

export function isCsrfTokenValid(secretKey: string, sessionId: string, token: string): boolean {
  if (!TOKEN_RE.test(token)) return false;
  const [nonce = "", mac = ""] = token.split(".");
  return safeEqual(mac, hmac(secretKey, `csrf|${sessionId}|${nonce}`));
}

export type OriginCheck = { ok: true } | { ok: false; reason: string };

/**
 * Django-style origin checks for unsafe methods: `Sec-Fetch-Site: cross-site` is refused; a present
 * `Origin` must be one of the allowed origins; without `Origin`, an https request needs a same-origin
 * `Referer`.
 */
export function checkRequestOrigin(opts: {
  origin: string | undefined;
  referer: string | undefined;
  secFetchSite: string | undefined;
  isHttps: boolean;
  allowedOrigins: ReadonlySet<string>;
}): OriginCheck {
  if (opts.secFetchSite === "cross-site") return { ok: false, reason: "cross-site request" };
  if (opts.origin !== undefined) {
    if (opts.origin === "null") return { ok: false, reason: "null origin" };
    let parsed: URL;
    try {
      parsed = new URL(opts.origin);
    } catch {
      return { ok: false, reason: "unparsable origin" };
    }
    if (!opts.allowedOrigins.has(parsed.origin)) return { ok: false, reason: "untrusted origin" };
    return { ok: true };
  }
  if (!opts.isHttps) return { ok: true };
  if (!opts.referer) return { ok: false, reason: "missing referer" };
  try {
    const ref = new URL(opts.referer);
    if (ref.protocol !== "https:") return { ok: false, reason: "insecure referer" };
    if (!opts.allowedOrigins.has(ref.origin)) return { ok: false, reason: "untrusted referer" };
  } catch {
    return { ok: false, reason: "malformed referer" };
  }
  return { ok: true };
}
