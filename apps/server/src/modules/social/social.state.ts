import { z } from "zod";
import { hmac, safeEqual } from "../../lib/crypto.ts";

export const SOCIAL_STATE_COOKIE = "tonus_oidc";
export const SOCIAL_STATE_TTL_MS = 10 * 60_000;

const PendingSignInSchema = z.object({
  provider: z.string(),
  state: z.string(),
  nonce: z.string(),
  codeVerifier: z.string(),
  destination: z.string(),
  expiresAtMs: z.number(),
});
export type PendingSignIn = z.infer<typeof PendingSignInSchema>;

/** The cookie value: the pending sign-in as base64url JSON plus an HMAC so the browser cannot alter it. */
export function sealPendingSignIn(secretKey: string, pending: PendingSignIn): string {
  const payload = Buffer.from(JSON.stringify(pending)).toString("base64url");
  return `${payload}.${hmac(secretKey, `oidc|${payload}`)}`;
}

/** The pending sign-in, or null when the cookie is missing, forged, for another provider or expired. */
export function openPendingSignIn(
  secretKey: string,
  value: string | undefined,
  provider: string,
  nowMs = Date.now(),
): PendingSignIn | null {
  if (!value) return null;
  const [payload = "", mac = ""] = value.split(".");
  if (!safeEqual(mac, hmac(secretKey, `oidc|${payload}`))) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  const pending = PendingSignInSchema.safeParse(parsed);
  if (!pending.success || pending.data.provider !== provider || pending.data.expiresAtMs < nowMs) return null;
  return pending.data;
}

/**
 * Where to send the browser after sign-in: a path on our own host, or an absolute URL on one of the
 * app's configured origins (PUBLIC_URL, TRUSTED_ORIGINS); anything else becomes `/dashboard`.
 * Protocol-relative `//host`, backslash tricks and control characters are refused (no open redirects).
 */
export function safeDestination(
  raw: string | undefined,
  allowedOrigins: ReadonlySet<string> = new Set(),
): string {
  const fallback = "/dashboard";
  if (!raw || raw.length > 2000) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters in a redirect target are refused
  if (/[\u0000-\u001f\u007f\\]/.test(raw)) return fallback;
  if (/^https?:\/\//i.test(raw)) {
    const url = URL.parse(raw);
    const ok = url && !url.username && !url.password && allowedOrigins.has(url.origin);
    return ok ? url.href : fallback;
  }
  if (!raw.startsWith("/") || raw.startsWith("//")) return fallback;
  const base = "http://tonus.invalid";
  const url = new URL(raw, base);
  if (url.origin !== base) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
