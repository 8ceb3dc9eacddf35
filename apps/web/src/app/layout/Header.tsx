import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, NavLink, useLocation } from "react-router";
import { useAuth } from "../../features/auth/use-auth.ts";
import { useProfile } from "../../features/profile/use-profile.ts";
import { Logo } from "./Logo.tsx";

type MenuItem = { to: string; labelKey: string; isAccent?: boolean };

function useIsScrolled(): boolean {
  const [isScrolled, setIsScrolled] = useState(() => window.scrollY > 0);
  useEffect(() => {
    const onScroll = () => setIsScrolled(window.scrollY > 0);
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, []);
  return isScrolled;
}

export function Header() {
  const { t } = useTranslation();
  const auth = useAuth();
  const profile = useProfile();
  const { pathname } = useLocation();
  const isScrolled = useIsScrolled();
  const [isMenuOpen, setIsMenuOpen] = useState(false);
  const menuId = useId();
  const isSignedIn = auth.userType === "full";

  // biome-ignore lint/correctness/useExhaustiveDependencies: the menu closes whenever the page changes
  useEffect(() => setIsMenuOpen(false), [pathname]);
  useEffect(() => {
    if (!isMenuOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setIsMenuOpen(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [isMenuOpen]);

  const desktopItems: MenuItem[] = [];
  if (profile.data?.upgradable)
    desktopItems.push({ to: "/payment", labelKey: "nav.upgrade", isAccent: true });
  if (isSignedIn) {
    desktopItems.push(
      { to: "/dashboard", labelKey: "nav.dashboard" },
      { to: "/lms", labelKey: "nav.academy" },
    );
  } else {
    desktopItems.push({ to: "/auth/signin", labelKey: "nav.signin" });
  }

  const mobileItems: MenuItem[] = isSignedIn
    ? [
        { to: "/user/profile", labelKey: "nav.profile" },
        ...(pathname.startsWith("/user/")
          ? [
              { to: "/user/personal", labelKey: "nav.personal" },
              { to: "/user/units", labelKey: "nav.units" },
            ]
          : []),
        { to: "/payment-history", labelKey: "nav.payments" },
        { to: "/help-auth-redirect", labelKey: "nav.help" },
        { to: "/user/logout", labelKey: "nav.logout" },
      ]
    : [
        { to: "/auth/signin", labelKey: "nav.signin" },
        { to: "/help-redirect", labelKey: "nav.help" },
      ];

  return (
    <header className={isScrolled ? "header scrolled" : "header"}>
      <div className="header__inner">
        <Link to="/user/profile" className="logo" aria-label={t("nav.logo_label")}>
          <Logo />
          <span aria-hidden="true">{t("app.name")}</span>
        </Link>
        <nav className="nav nav--desktop" aria-label={t("nav.main_label")}>
          <ul className="nav__list">
            {desktopItems.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} className={item.isAccent ? "nav__link nav__link--accent" : "nav__link"}>
                  {t(item.labelKey)}
                </NavLink>
              </li>
            ))}
            {isSignedIn && (
              <li>
                <NavLink to="/user/profile" className="nav__link">
                  {t("nav.profile")}
                </NavLink>
              </li>
            )}
          </ul>
        </nav>
        <button
          type="button"
          className="btn btn--secondary menu-toggle"
          aria-expanded={isMenuOpen}
          aria-controls={menuId}
          onClick={() => setIsMenuOpen((open) => !open)}
        >
          {t(isMenuOpen ? "nav.close_menu" : "nav.open_menu")}
        </button>
      </div>
      <nav id={menuId} className="mobile-menu" data-open={isMenuOpen} aria-label={t("nav.mobile_label")}>
        <ul className="nav__list">
          {[...desktopItems.filter((item) => item.to !== "/auth/signin"), ...mobileItems].map((item) => (
            <li key={item.to}>
              <NavLink to={item.to} className="nav__link">
                {t(item.labelKey)}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  );
}
