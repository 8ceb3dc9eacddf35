import { useTranslation } from "react-i18next";
import { Navigate } from "react-router";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { usePurchases } from "./billing-api.ts";

/** /profile/payment-method: the card of a connected package; without a card there is nothing to show (spec §2). */
export default function PaymentMethodPage() {
  const { t } = useTranslation();
  const purchases = usePurchases();
  if (purchases.isPending) return <LoadingState />;
  const withCard = purchases.data?.find((p) => p.card !== null && p.state !== "store");
  if (!withCard?.card) return <Navigate to="/payment-history" replace />;
  const card = withCard.card;
  return (
    <section className="card">
      <p>
        {t("payments.subscription.card", {
          brand: card.brand.toUpperCase(),
          last4: card.last4,
          month: String(card.exp_month).padStart(2, "0"),
          year: card.exp_year,
        })}
      </p>
      <p className="muted">{t("payments.method.change")}</p>
    </section>
  );
}
