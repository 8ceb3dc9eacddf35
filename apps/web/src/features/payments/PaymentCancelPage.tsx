import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate } from "react-router";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useCancelSubscription, usePurchases } from "./billing-api.ts";
import { paymentErrorDetail } from "./billing-format.ts";
import { SubscriptionView } from "./SubscriptionView.tsx";
import "./payments.css";

/** /payment-cancel: confirm the cancellation of the active subscription (spec §2, §4 Cancel). */
export default function PaymentCancelPage() {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const navigate = useNavigate();
  const purchases = usePurchases();
  const cancel = useCancelSubscription();
  const [failure, setFailure] = useState<string | null>(null);
  if (purchases.isPending) return <LoadingState />;
  const active = purchases.data?.find((p) => p.state === "active" || p.state === "outdated");
  if (!active) {
    return (
      <div className="stack">
        <p className="empty-state">{t("payments.cancel.nothing")}</p>
        <Link to="/payment-history">{t("payments.cancel.to_history")}</Link>
      </div>
    );
  }
  return (
    <div className="stack">
      <SubscriptionView purchase={active} language={language} showCancelLink={false} />
      <p>{t("payments.cancel.explain")}</p>
      {failure && <Alert status="error">{failure}</Alert>}
      <div className="row">
        <Button
          variant="danger"
          isBusy={cancel.isPending}
          onClick={() =>
            cancel.mutate(active.purchase_id, {
              onSuccess: () => navigate("/payment-cancel-info"),
              onError: (error) => setFailure(paymentErrorDetail(error)),
            })
          }
        >
          {t("payments.cancel.confirm")}
        </Button>
        <Link className="btn btn--secondary" to="/payment-history">
          {t("payments.cancel.keep")}
        </Link>
      </div>
    </div>
  );
}
