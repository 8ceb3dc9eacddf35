import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { LanguageSwitch } from "./LanguageSwitch.tsx";

export function Footer() {
  const { t } = useTranslation();
  return (
    <footer className="footer">
      <div className="footer__inner">
        <nav aria-label={t("footer.label")}>
          <ul className="footer__links">
            <li>
              <Link to="/privacy-policy">{t("legal.privacy.title")}</Link>
            </li>
            <li>
              <Link to="/terms">{t("legal.terms.title")}</Link>
            </li>
            <li>
              <Link to="/save-data">{t("legal.save_data.title")}</Link>
            </li>
            <li>
              <Link to="/help-redirect">{t("nav.help")}</Link>
            </li>
          </ul>
        </nav>
        <LanguageSwitch />
        <p>{t("footer.tagline")}</p>
      </div>
    </footer>
  );
}
