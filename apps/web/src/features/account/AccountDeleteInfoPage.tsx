import { useTranslation } from "react-i18next";
import { Link } from "react-router";

/** /user/account-delete-info (and -finish): what deletion removes and what stays. */
export default function AccountDeleteInfoPage() {
  const { t } = useTranslation();
  return (
    <div className="stack">
      <p>{t("account_delete.info.rows")}</p>
      <p>{t("account_delete.info.payments")}</p>
      <p>{t("account_delete.info.subscription")}</p>
      <Link to="/user/account-delete">{t("account_delete.title")}</Link>
    </div>
  );
}
