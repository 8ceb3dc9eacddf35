import { findRoute } from "../../app/routes.ts";

export type DirectLoginParams = { token: string | null; sessionId: string | null };

const DIRECT_LOGIN_KEYS = ["token", "session_id", "auth_token"];
// The password-reset link carries its own one-time `token`; it is not a sign-in.
const OWN_TOKEN_PATHS = ["/auth/password-reset"];

/**
 * Reads the direct-login pair from a URL: `token` (or `auth_token` in the simple shell) and `session_id`.
 * Answers the URL without them so nothing later (history, chat widget, analytics) ever sees them.
 */
export function extractDirectLoginParams(href: string): {
  params: DirectLoginParams | null;
  cleanHref: string;
} {
  const url = new URL(href);
  if (OWN_TOKEN_PATHS.some((path) => url.pathname.replace(/\/$/, "") === path)) {
    return { params: null, cleanHref: `${url.pathname}${url.search}${url.hash}` };
  }
  const isSimpleShell = findRoute(url.pathname)?.layout === "simple";
  const token = url.searchParams.get("token") ?? (isSimpleShell ? url.searchParams.get("auth_token") : null);
  const sessionId = url.searchParams.get("session_id");
  const hasAny = DIRECT_LOGIN_KEYS.some((key) => url.searchParams.has(key));
  for (const key of DIRECT_LOGIN_KEYS) url.searchParams.delete(key);
  const cleanHref = `${url.pathname}${url.search}${url.hash}`;
  if (!hasAny) return { params: null, cleanHref };
  return { params: token || sessionId ? { token, sessionId } : null, cleanHref };
}

let pending: DirectLoginParams | null = null;

/** Runs before React mounts: strips the credentials from the address bar with history.replaceState. */
export function takeDirectLoginParamsFromLocation(): void {
  const { params, cleanHref } = extractDirectLoginParams(window.location.href);
  if (
    params === null &&
    cleanHref === `${window.location.pathname}${window.location.search}${window.location.hash}`
  ) {
    return;
  }
  window.history.replaceState(window.history.state, "", cleanHref);
  if (params) pending = params;
}

export function hasPendingDirectLogin(): boolean {
  return pending !== null;
}

/** Hands the captured pair to the direct-login page exactly once. */
export function consumeDirectLoginParams(): DirectLoginParams | null {
  const params = pending;
  pending = null;
  return params;
}
