import { useTranslation } from "react-i18next";
import { NavLink } from "react-router";

const ITEMS = [
  { to: "/user/profile", labelKey: "nav.profile" },
  { to: "/user/personal", labelKey: "nav.personal" },
  { to: "/user/units", labelKey: "nav.units" },
  { to: "/user/notifications", labelKey: "nav.notifications" },
  { to: "/referral", labelKey: "nav.referral" },
  { to: "/user/account-delete", labelKey: "nav.account_data" },
  { to: "/data-sources", labelKey: "nav.data_sources" },
  { to: "/user/logout", labelKey: "nav.logout" },
];

export function SideMenu() {
  const { t } = useTranslation();
  return (
    <nav aria-label={t("nav.profile_menu_label")}>
      <ul className="side-menu">
        {ITEMS.map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} end>
              {t(item.labelKey)}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
