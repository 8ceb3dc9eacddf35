import { useTranslation } from "react-i18next";
import { Link } from "react-router";

export default function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <div className="card stack">
      <p>{t("errors.not_found.text")}</p>
      <div className="actions">
        <Link className="btn btn--primary" to="/dashboard">
          {t("errors.go_home")}
        </Link>
      </div>
    </div>
  );
}
