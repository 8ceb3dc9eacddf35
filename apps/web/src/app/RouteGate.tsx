import { type ComponentType, type LazyExoticComponent, lazy, Suspense, useEffect } from "react";
import { useTranslation } from "react-i18next";
import { Navigate, useLocation } from "react-router";
import { hasPendingDirectLogin } from "../features/auth/direct-login-params.ts";
import { useAuth } from "../features/auth/use-auth.ts";
import { useNamedPageSubject } from "../shared/ui/page-subject.ts";
import { LoadingState } from "../shared/ui/Spinner.tsx";
import { announceMobileRedirect, clearMobileRedirect, isWebView } from "../shared/webview/webview.ts";
import { decideRoute } from "./access.ts";
import { FullShell, SimpleShell } from "./layout/Shells.tsx";
import { useFocusMainOnNavigate } from "./layout/use-focus-on-navigate.ts";
import type { RouteRow } from "./routes.ts";

const pages = new Map<string, LazyExoticComponent<ComponentType>>();

function getPage(row: RouteRow): LazyExoticComponent<ComponentType> | null {
  if (!row.load) return null;
  let page = pages.get(row.path);
  if (!page) {
    page = lazy(row.load);
    pages.set(row.path, page);
  }
  return page;
}

/** Needs the real session before deciding: these rows send people elsewhere depending on sign-in. */
function dependsOnSession(row: RouteRow | null): boolean {
  if (!row) return false;
  return row.access === "auth" || row.access === "signed-out-only" || row.forward === "root";
}

/** Applies the route table to the current location and renders the page inside its shell. */
export function RouteGate() {
  const location = useLocation();
  const auth = useAuth();
  const { t } = useTranslation();
  useFocusMainOnNavigate();
  const decision = decideRoute({
    pathname: location.pathname,
    search: location.search,
    hash: location.hash,
    origin: window.location.origin,
    userType: auth.userType,
    isWebView: isWebView(),
    hasPendingDirectLogin: hasPendingDirectLogin(),
  });
  const waitsForSession =
    auth.isLoading &&
    (decision.kind !== "render" || dependsOnSession(decision.row)) &&
    !hasPendingDirectLogin();

  const title = decision.kind === "render" ? t(decision.row.titleKey) : t("app.name");
  const subject = useNamedPageSubject();
  useEffect(() => {
    const named = subject ?? title;
    document.title = named === t("app.name") ? named : `${named} · ${t("app.name")}`;
  }, [subject, title, t]);

  const isMobileRedirect = decision.kind === "render" && decision.isMobileRedirect && !waitsForSession;
  useEffect(() => {
    if (isMobileRedirect) announceMobileRedirect(location.pathname);
    else clearMobileRedirect();
  }, [isMobileRedirect, location.pathname]);

  useEffect(() => {
    if (!waitsForSession && decision.kind === "external") window.location.replace(decision.href);
  }, [decision, waitsForSession]);

  if (waitsForSession || decision.kind === "external") return <LoadingState />;
  if (decision.kind === "navigate") return <Navigate to={decision.to} replace />;

  const Page = getPage(decision.row);
  const content = Page ? (
    <Suspense fallback={<LoadingState />}>
      <Page />
    </Suspense>
  ) : null;
  if (decision.row.layout === "simple") return <SimpleShell title={title}>{content}</SimpleShell>;
  return (
    <FullShell title={title} hasSideMenu={decision.row.hasSideMenu ?? false}>
      {content}
    </FullShell>
  );
}
