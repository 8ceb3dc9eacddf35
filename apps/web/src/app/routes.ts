import type { ComponentType } from "react";

/** Who may see a route (spec §2): `auth` needs a full session; `open`, `free` and `any` render for everyone. */
export type Access = "open" | "signed-out-only" | "auth" | "free" | "any";
export type Layout = "full" | "simple";
/** Routes that only forward somewhere; `decideRoute` resolves them, nothing renders. */
export type Forward = "root" | "login" | "register" | "server-error" | "not-found";

export type PageModule = { default: ComponentType };

export type RouteRow = {
  path: string;
  access: Access;
  layout: Layout;
  /** i18n key of the page title (document title and h1). */
  titleKey: string;
  load?: () => Promise<PageModule>;
  forward?: Forward;
  /** Shows the profile side menu on wide screens. */
  hasSideMenu?: boolean;
};

/** The one route table: later features add a row here. */
export const ROUTES: readonly RouteRow[] = [
  { path: "/", access: "open", layout: "full", titleKey: "app.name", forward: "root" },
  {
    path: "/user/login",
    access: "signed-out-only",
    layout: "simple",
    titleKey: "auth.signin.title",
    forward: "login",
  },
  {
    path: "/user/register",
    access: "signed-out-only",
    layout: "simple",
    titleKey: "auth.registration.title",
    forward: "register",
  },
  {
    path: "/user/login-direct",
    access: "open",
    layout: "simple",
    titleKey: "auth.direct.title",
    load: () => import("../features/auth/LoginDirectPage.tsx"),
  },
  {
    path: "/user/logout",
    access: "any",
    layout: "simple",
    titleKey: "auth.logout.title",
    load: () => import("../features/auth/LogoutPage.tsx"),
  },
  {
    path: "/user/profile",
    access: "auth",
    layout: "full",
    titleKey: "profile.title",
    hasSideMenu: true,
    load: () => import("../features/profile/ProfilePage.tsx"),
  },
  {
    path: "/user/personal",
    access: "auth",
    layout: "full",
    titleKey: "profile.personal.title",
    hasSideMenu: true,
    load: () => import("../features/profile/PersonalPage.tsx"),
  },
  {
    path: "/user/units",
    access: "auth",
    layout: "full",
    titleKey: "profile.units.title",
    hasSideMenu: true,
    load: () => import("../features/profile/UnitsPage.tsx"),
  },
  {
    path: "/user/notifications",
    access: "auth",
    layout: "full",
    titleKey: "notifications.title",
    hasSideMenu: true,
    load: () => import("../features/notifications/NotificationsPage.tsx"),
  },
  {
    path: "/privacy-policy",
    access: "open",
    layout: "full",
    titleKey: "legal.privacy.title",
    load: () => import("../features/static-pages/PrivacyPolicyPage.tsx"),
  },
  {
    path: "/terms",
    access: "open",
    layout: "full",
    titleKey: "legal.terms.title",
    load: () => import("../features/static-pages/TermsPage.tsx"),
  },
  {
    path: "/save-data",
    access: "open",
    layout: "full",
    titleKey: "legal.save_data.title",
    load: () => import("../features/static-pages/SaveDataPage.tsx"),
  },
  {
    path: "/dashboard",
    access: "free",
    layout: "full",
    titleKey: "dashboard.title",
    load: () => import("../features/dashboard/DashboardPage.tsx"),
  },
  {
    path: "/error",
    access: "free",
    layout: "full",
    titleKey: "errors.server_down.title",
    forward: "server-error",
  },
  {
    path: "/page-404",
    access: "any",
    layout: "full",
    titleKey: "errors.not_found.title",
    forward: "not-found",
  },
  {
    path: "/500/",
    access: "any",
    layout: "full",
    titleKey: "errors.server_down.title",
    load: () => import("../features/errors/ServerErrorPage.tsx"),
  },
  {
    path: "/404/",
    access: "any",
    layout: "full",
    titleKey: "errors.not_found.title",
    load: () => import("../features/errors/NotFoundPage.tsx"),
  },
  {
    path: "/operator/analytics",
    access: "auth",
    layout: "full",
    titleKey: "operator_analytics.title",
    load: () => import("../features/analytics/OperatorAnalyticsPage.tsx"),
  },
  {
    path: "/oauth2/authorize/ifttt",
    access: "any",
    layout: "simple",
    titleKey: "oauth.consent.title",
    load: () => import("../features/oauth/ConsentPage.tsx"),
  },
  {
    path: "/help-redirect",
    access: "any",
    layout: "simple",
    titleKey: "help.title",
    load: () => import("../features/static-pages/HelpRedirectPage.tsx"),
  },
  {
    path: "/help-auth-redirect",
    access: "any",
    layout: "simple",
    titleKey: "help.title",
    load: () => import("../features/static-pages/HelpRedirectPage.tsx"),
  },
  {
    path: "/auth/signin",
    access: "signed-out-only",
    layout: "simple",
    titleKey: "auth.signin.title",
    load: () => import("../features/auth/SigninPage.tsx"),
  },
  {
    path: "/auth/registration/",
    access: "signed-out-only",
    layout: "simple",
    titleKey: "auth.registration.title",
    load: () => import("../features/auth/RegistrationPage.tsx"),
  },
  {
    path: "/auth/password-recovery",
    access: "open",
    layout: "simple",
    titleKey: "auth.recovery.title",
    load: () => import("../features/auth/PasswordRecoveryPage.tsx"),
  },
  {
    path: "/auth/password-reset",
    access: "open",
    layout: "simple",
    titleKey: "auth.reset.title",
    load: () => import("../features/auth/PasswordResetPage.tsx"),
  },
  {
    path: "/lms",
    access: "auth",
    layout: "full",
    titleKey: "academy.title",
    load: () => import("../features/academy/CoursesPage.tsx"),
  },
  {
    path: "/lms/courses",
    access: "auth",
    layout: "full",
    titleKey: "academy.title",
    load: () => import("../features/academy/CoursesPage.tsx"),
  },
  {
    path: "/lms/courses/:courseId",
    access: "free",
    layout: "full",
    titleKey: "academy.title",
    load: () => import("../features/academy/CoursePage.tsx"),
  },
  {
    path: "/lms/courses/:courseId/:materialId",
    access: "free",
    layout: "full",
    titleKey: "academy.title",
    load: () => import("../features/academy/MaterialPage.tsx"),
  },
  {
    path: "/lms/materials/:materialId",
    access: "free",
    layout: "full",
    titleKey: "academy.title",
    load: () => import("../features/academy/MaterialPage.tsx"),
  },
  {
    path: "/measure",
    access: "auth",
    layout: "full",
    titleKey: "measure.title",
    load: () => import("../features/measure/MeasurePage.tsx"),
  },
  {
    path: "/measurements",
    access: "auth",
    layout: "full",
    titleKey: "measure.history.title",
    load: () => import("../features/measure/MeasurementsPage.tsx"),
  },
  {
    // "measure-details" in the path hides header and footer (spec §2).
    path: "/measure-details/:id",
    access: "auth",
    layout: "full",
    titleKey: "measure.detail.title",
    load: () => import("../features/measure/MeasurementDetailPage.tsx"),
  },
  {
    path: "/blood-pressure",
    access: "auth",
    layout: "full",
    titleKey: "bp.title",
    load: () => import("../features/bp/BpLogPage.tsx"),
  },
  {
    path: "/share-bp-log",
    access: "any",
    layout: "full",
    titleKey: "bp.shared_title",
    load: () => import("../features/bp/SharedBpLogPage.tsx"),
  },
  {
    path: "/payments/plans/main/",
    access: "open",
    layout: "full",
    titleKey: "payments.plans_title",
    load: () => import("../features/payments/PlansPage.tsx"),
  },
  {
    path: "/payment",
    access: "open",
    layout: "full",
    titleKey: "payments.upgrade_title",
    load: () => import("../features/payments/PaymentPage.tsx"),
  },
  {
    path: "/payment-history",
    access: "auth",
    layout: "full",
    titleKey: "payments.history.title",
    hasSideMenu: true,
    load: () => import("../features/payments/PaymentHistoryPage.tsx"),
  },
  {
    path: "/payment-method",
    access: "any",
    layout: "full",
    titleKey: "payments.method.title",
    load: () => import("../features/payments/PaymentMethodRedirect.tsx"),
  },
  {
    path: "/profile/payment-method",
    access: "auth",
    layout: "full",
    titleKey: "payments.method.title",
    hasSideMenu: true,
    load: () => import("../features/payments/PaymentMethodPage.tsx"),
  },
  {
    path: "/payment-cancel",
    access: "any",
    layout: "full",
    titleKey: "payments.cancel.title",
    load: () => import("../features/payments/PaymentCancelPage.tsx"),
  },
  {
    path: "/payment-cancel-info",
    access: "any",
    layout: "full",
    titleKey: "payments.cancel.info_title",
    load: () => import("../features/payments/PaymentCancelInfoPage.tsx"),
  },
  {
    path: "/user/account-delete",
    access: "auth",
    layout: "full",
    titleKey: "account_delete.title",
    hasSideMenu: true,
    load: () => import("../features/account/AccountDeletePage.tsx"),
  },
  {
    path: "/user/account-delete-info",
    access: "auth",
    layout: "full",
    titleKey: "account_delete.info.title",
    hasSideMenu: true,
    load: () => import("../features/account/AccountDeleteInfoPage.tsx"),
  },
  {
    path: "/user/account-delete-finish",
    access: "auth",
    layout: "full",
    titleKey: "account_delete.title",
    hasSideMenu: true,
    load: () => import("../features/account/AccountDeletePage.tsx"),
  },
  {
    path: "/user/account-delete-finish-redirect",
    access: "signed-out-only",
    layout: "full",
    titleKey: "account_delete.finished_title",
    load: () => import("../features/account/AccountDeletedPage.tsx"),
  },
  {
    path: "/referral",
    access: "auth",
    layout: "full",
    titleKey: "referral.title",
    hasSideMenu: true,
    load: () => import("../features/referral/ReferralPage.tsx"),
  },
  {
    // Spec §2: exact paths (a pattern segment matches one segment only); the -mobile-back variants are what
    // the mobile app opens, without header or footer (app/layout/chrome.ts).
    path: "/data-sources",
    access: "auth",
    layout: "full",
    titleKey: "sources.title",
    load: () => import("../features/sources/DataSourcesPage.tsx"),
  },
  {
    path: "/data-sources/:sourceSlug",
    access: "auth",
    layout: "full",
    titleKey: "sources.source_title",
    load: () => import("../features/sources/SourcePage.tsx"),
  },
  {
    path: "/data-sources-mobile-back",
    access: "auth",
    layout: "full",
    titleKey: "sources.title",
    load: () => import("../features/sources/DataSourcesPage.tsx"),
  },
  {
    path: "/data-sources-mobile-back/:sourceSlug",
    access: "auth",
    layout: "full",
    titleKey: "sources.source_title",
    load: () => import("../features/sources/SourcePage.tsx"),
  },
  {
    path: "/share-measurement",
    access: "any",
    layout: "full",
    titleKey: "measure.shared_title",
    load: () => import("../features/measure/SharedMeasurementPage.tsx"),
  },
];

function trimTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

export type RouteMatch = { row: RouteRow; params: Record<string, string> };

/** Matches one path against a row's pattern; `:name` segments capture one non-empty segment each. */
function matchPattern(pattern: string, pathname: string): Record<string, string> | null {
  const want = trimTrailingSlash(pattern).split("/");
  const have = trimTrailingSlash(pathname).split("/");
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const actual = have[index] ?? "";
    if (part.startsWith(":")) {
      if (actual === "") return null;
      try {
        params[part.slice(1)] = decodeURIComponent(actual);
      } catch {
        return null;
      }
    } else if (part !== actual) {
      return null;
    }
  }
  return params;
}

/** The row and path parameters for a pathname; a trailing slash does not matter, fixed paths win. */
export function matchRoute(pathname: string): RouteMatch | null {
  let patternMatch: RouteMatch | null = null;
  for (const row of ROUTES) {
    const params = matchPattern(row.path, pathname);
    if (!params) continue;
    if (!row.path.includes("/:")) return { row, params };
    patternMatch ??= { row, params };
  }
  return patternMatch;
}

/** The row for a pathname; a trailing slash does not matter. */
export function findRoute(pathname: string): RouteRow | null {
  return matchRoute(pathname)?.row ?? null;
}
