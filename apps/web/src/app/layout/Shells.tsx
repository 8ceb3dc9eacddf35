import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { isWebView } from "../../shared/webview/webview.ts";
import { FailedPaymentBanner, ShareBanner } from "./Banners.tsx";
import { getChrome } from "./chrome.ts";
import { Footer } from "./Footer.tsx";
import { Header } from "./Header.tsx";
import { LanguageSwitch } from "./LanguageSwitch.tsx";
import { Logo } from "./Logo.tsx";
import { SideMenu } from "./SideMenu.tsx";

function SkipLink() {
  const { t } = useTranslation();
  return (
    <a className="skip-link" href="#main">
      {t("nav.skip_to_content")}
    </a>
  );
}

/** Header, title, share banner, failed-payment notice, optional side menu (3 of 12 columns) and footer. */
export function FullShell({
  title,
  hasSideMenu,
  children,
}: {
  title: string;
  hasSideMenu: boolean;
  children: ReactNode;
}) {
  const { pathname } = useLocation();
  const chrome = getChrome(pathname, isWebView());
  return (
    <div className="app">
      <SkipLink />
      {chrome.hasHeader && <Header />}
      <ShareBanner />
      <FailedPaymentBanner />
      <main id="main" className="main" tabIndex={-1}>
        <div className="main__inner grid">
          {hasSideMenu && !isWebView() && (
            <aside className="grid__side">
              <SideMenu />
            </aside>
          )}
          <div
            className={hasSideMenu && !isWebView() ? "grid__content" : "grid__content grid__content--wide"}
          >
            <h1>{title}</h1>
            {children}
          </div>
        </div>
      </main>
      {chrome.hasFooter && <Footer />}
    </div>
  );
}

/** No header: a centred panel for sign-in and other one-task pages. */
export function SimpleShell({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="app">
      <SkipLink />
      <main id="main" className="main main--simple" tabIndex={-1}>
        <div className="simple-panel">
          <div className="simple-panel__brand">
            <Link to="/" className="logo" aria-label={t("nav.home_label")}>
              <Logo size={36} />
              <span aria-hidden="true">{t("app.name")}</span>
            </Link>
          </div>
          <div className="card">
            <h1>{title}</h1>
            {children}
          </div>
          <div className="actions">
            <LanguageSwitch />
          </div>
        </div>
      </main>
    </div>
  );
}
