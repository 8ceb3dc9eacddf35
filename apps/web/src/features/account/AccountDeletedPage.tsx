import { useTranslation } from "react-i18next";
import { Link } from "react-router";

/** /user/account-delete-finish-redirect: the logged-out screen after deletion. */
export default function AccountDeletedPage() {
  const { t } = useTranslation();
  return (
    <div className="stack">
      <p>{t("account_delete.done")}</p>
      <Link to="/auth/registration/">{t("account_delete.register_again")}</Link>
    </div>
  );
}
