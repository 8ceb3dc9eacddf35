import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { usePurchases } from "./billing-api.ts";
import { formatDate } from "./billing-format.ts";

/** /payment-cancel-info: what a cancellation means (PRO stays until the paid period ends). */
export default function PaymentCancelInfoPage() {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const purchases = usePurchases();
  if (purchases.isPending) return <LoadingState />;
  const cancelled = purchases.data?.find((p) => p.state === "cancelled");
  return (
    <div className="stack">
      <p>
        {cancelled?.current_period_end
          ? t("payments.cancel.done_until", { date: formatDate(cancelled.current_period_end, language) })
          : t("payments.cancel.done")}
      </p>
      <p>{t("payments.cancel.come_back")}</p>
      <div className="row">
        <Link className="btn btn--secondary" to="/payment-history">
          {t("payments.cancel.to_history")}
        </Link>
        <Link className="btn btn--primary" to="/payment">
          {t("nav.upgrade")}
        </Link>
      </div>
    </div>
  );
}
