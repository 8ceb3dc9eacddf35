import { REFERRAL_QUERY_PARAM, type UserType } from "@tonus/contract";
import { getHashRedirectTarget, safeRedirectTarget } from "../shared/navigation/safe-redirect.ts";
import { findRoute, type RouteRow } from "./routes.ts";

export const SIGN_IN_PATH = "/user/login";
export const AUTH_SIGN_IN_PATH = "/auth/signin";
export const REGISTRATION_PATH = "/auth/registration/";
export const HOME_PATH = "/dashboard";
export const PLANS_PATH = "/payments/plans/main/";
export const IFTTT_AUTHORIZE_PATH = "/oauth2/authorize/";
export const LOGIN_DIRECT_PATH = "/user/login-direct";

/** Pages a mobile web view may keep showing; every other page is flagged for the app to take over. */
const WEBVIEW_KEEPS = [
  "/privacy-policy",
  "/terms",
  "/user/account-delete",
  "/user/login-direct",
  "/share-measurement",
  "/referral",
];

export type Situation = {
  pathname: string;
  search: string;
  hash: string;
  origin: string;
  userType: UserType;
  isWebView: boolean;
  /** True while credentials taken from the URL wait for the direct-login page. */
  hasPendingDirectLogin?: boolean;
};

export type Decision =
  | { kind: "render"; row: RouteRow; isMobileRedirect: boolean }
  /** Client-side navigation that replaces the current history entry. */
  | { kind: "navigate"; to: string }
  /** Full page load (server-owned paths). */
  | { kind: "external"; href: string };

/** Applies the spec's route rules (§2) to one location; pure, so every rule is tested without a browser. */
export function decideRoute(situation: Situation): Decision {
  const { pathname, search, origin, userType } = situation;
  const query = new URLSearchParams(search);
  if (query.get("scope") === "ifttt") return { kind: "external", href: `${IFTTT_AUTHORIZE_PATH}${search}` };
  if (situation.hasPendingDirectLogin && !isSamePath(pathname, LOGIN_DIRECT_PATH)) {
    return {
      kind: "navigate",
      to: withQuery(LOGIN_DIRECT_PATH, { destination: `${pathname}${stripParams(search)}` }),
    };
  }
  const row = findRoute(pathname);
  if (!row) return { kind: "navigate", to: "/404/" };
  const isSignedIn = userType === "full";
  const destination = safeRedirectTarget(query.get("destination"), origin)?.path ?? null;

  switch (row.forward) {
    case "root":
      return decideRoot(situation, isSignedIn);
    case "server-error":
      return { kind: "navigate", to: "/500/" };
    case "not-found":
      return { kind: "navigate", to: "/404/" };
    case "login":
      if (isSignedIn) return { kind: "navigate", to: destination ?? HOME_PATH };
      return {
        kind: "navigate",
        to: withQuery(AUTH_SIGN_IN_PATH, { destination: destination ?? undefined }),
      };
    case "register":
      if (isSignedIn) return { kind: "navigate", to: destination ?? HOME_PATH };
      return {
        kind: "navigate",
        // A referral link's code rides along to the registration page.
        to: withQuery(REGISTRATION_PATH, {
          destination: destination ?? HOME_PATH,
          [REFERRAL_QUERY_PARAM]: query.get(REFERRAL_QUERY_PARAM) ?? undefined,
        }),
      };
  }

  if (row.access === "auth" && !isSignedIn) {
    return { kind: "navigate", to: buildSignInPath(pathname, search) };
  }
  if (row.access === "signed-out-only" && isSignedIn) {
    return { kind: "navigate", to: destination ?? HOME_PATH };
  }
  return { kind: "render", row, isMobileRedirect: isMobileRedirect(situation) };
}

function decideRoot(situation: Situation, isSignedIn: boolean): Decision {
  const target = getHashRedirectTarget(situation.hash, situation.origin);
  if (target) return { kind: "navigate", to: target };
  if (isSignedIn) return { kind: "navigate", to: HOME_PATH };
  // The plans page belongs to the billing feature; until its row exists a visitor would land on a 404.
  if (findRoute(PLANS_PATH) === null) return { kind: "navigate", to: AUTH_SIGN_IN_PATH };
  return { kind: "navigate", to: PLANS_PATH };
}

/** Sign-in keeping the current query and adding destination = current path (spec §2 route rules). */
export function buildSignInPath(pathname: string, search: string): string {
  const query = new URLSearchParams(search);
  query.set("destination", pathname);
  return `${SIGN_IN_PATH}?${query.toString()}`;
}

function isMobileRedirect(situation: Situation): boolean {
  if (!situation.isWebView) return false;
  return !WEBVIEW_KEEPS.some((path) => isSamePath(situation.pathname, path));
}

function isSamePath(a: string, b: string): boolean {
  const trim = (p: string) => (p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p);
  return trim(a) === trim(b);
}

function stripParams(search: string): string {
  const query = new URLSearchParams(search);
  for (const key of ["token", "session_id", "auth_token"]) query.delete(key);
  const text = query.toString();
  return text === "" ? "" : `?${text}`;
}

export function withQuery(path: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, value);
  const text = query.toString();
  return text === "" ? path : `${path}?${text}`;
}
