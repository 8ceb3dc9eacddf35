import { useTranslation } from "react-i18next";
import { Link } from "react-router";

export default function ServerErrorPage() {
  const { t } = useTranslation();
  return (
    <div className="card stack" role="alert">
      <p>{t("errors.server_down.text")}</p>
      <div className="actions">
        <Link className="btn btn--primary" to="/dashboard">
          {t("errors.go_home")}
        </Link>
      </div>
    </div>
  );
}
