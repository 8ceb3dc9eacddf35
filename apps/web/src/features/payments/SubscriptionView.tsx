import type { Purchase } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { formatDate } from "./billing-format.ts";

/** Spec §3 Subscription in each state: active, cancelled, outdated tariff, app-store purchase, none. */
export function SubscriptionView({
  purchase,
  language,
  showCancelLink = true,
}: {
  purchase: Purchase | undefined;
  language: string;
  showCancelLink?: boolean;
}) {
  const { t } = useTranslation();
  if (!purchase) return <p className="empty-state">{t("payments.subscription.none")}</p>;
  const card = purchase.card;
  return (
    <section className="card subscription" aria-label={t("payments.subscription.title")}>
      <h2 className="card__title">{t("payments.subscription.title")}</h2>
      <dl className="subscription__facts">
        <dt>{t("payments.subscription.plan")}</dt>
        <dd>{purchase.title}</dd>
        {purchase.next_payment && (
          <>
            <dt>{t("payments.subscription.next_payment")}</dt>
            <dd>{formatDate(purchase.next_payment, language)}</dd>
          </>
        )}
        {purchase.last_payment && (
          <>
            <dt>{t("payments.subscription.last_payment")}</dt>
            <dd>{formatDate(purchase.last_payment, language)}</dd>
          </>
        )}
        {card && (
          <>
            <dt>{t("payments.subscription.payment_method")}</dt>
            <dd>
              {t("payments.subscription.card", {
                brand: card.brand.toUpperCase(),
                last4: card.last4,
                month: String(card.exp_month).padStart(2, "0"),
                year: card.exp_year,
              })}
            </dd>
          </>
        )}
      </dl>
      {purchase.state === "active" && showCancelLink && (
        <Link to="/payment-cancel">{t("payments.subscription.cancel_link")}</Link>
      )}
      {purchase.state === "cancelled" && (
        <p>
          {purchase.current_period_end
            ? t("payments.subscription.cancelled_until", {
                date: formatDate(purchase.current_period_end, language),
              })
            : t("payments.subscription.cancelled")}
        </p>
      )}
      {purchase.state === "outdated" && <Alert status="error">{t("payments.subscription.outdated")}</Alert>}
      {purchase.state === "store" && <p>{t("payments.subscription.store")}</p>}
    </section>
  );
}
