import { useTranslation } from "react-i18next";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { usePurchases, useTransactions } from "./billing-api.ts";
import { formatAmount, formatDate } from "./billing-format.ts";
import { CardVerification } from "./CardVerification.tsx";
import { SubscriptionView } from "./SubscriptionView.tsx";
import "./payments.css";

/** /payment-history, "Transaction history": the subscription, then payments five at a time (spec §4, §9). */
export default function PaymentHistoryPage() {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const purchases = usePurchases();
  const history = useTransactions();
  if (history.isPending || purchases.isPending) return <LoadingState />;
  const failure = history.error ?? purchases.error;
  if (failure) return <Alert status="error">{t("payments.load_failed", { detail: failure.message })}</Alert>;
  const results = history.data?.pages.flatMap((page) => page.results) ?? [];
  return (
    <div className="stack">
      <SubscriptionView purchase={purchases.data?.[0]} language={language} />
      {results.length === 0 ? (
        <p className="empty-state">{t("payments.history.empty")}</p>
      ) : (
        <ul className="history">
          {results.map((tx) => (
            <li key={tx.id} className="history__item">
              <span>{formatDate(tx.date, language)}</span>
              <span>{tx.description}</span>
              <span>{formatAmount(tx.amount, tx.currency, language)}</span>
              <span className={tx.paid ? "" : "muted"}>
                {tx.paid ? t("payments.history.paid") : t(`payments.history.status.${tx.status}`)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {history.hasNextPage && (
        <Button
          variant="secondary"
          isBusy={history.isFetchingNextPage}
          onClick={() => void history.fetchNextPage()}
        >
          {t("payments.history.more")}
        </Button>
      )}
      <CardVerification />
    </div>
  );
}
