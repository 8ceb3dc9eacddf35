import type { Product } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { formatAmount, periodKey } from "./billing-format.ts";

/** The plans on sale as cards, each leading to the Upgrade page with that plan chosen. */
export function PlanList({ plans, language }: { plans: readonly Product[]; language: string }) {
  const { t } = useTranslation();
  if (plans.length === 0) return <p className="empty-state">{t("payments.no_plans")}</p>;
  return (
    <ul className="plan-list">
      {plans.map((plan) => (
        <li key={plan.id} className="card plan-card">
          <h2 className="card__title">{plan.title}</h2>
          {plan.discount_percent !== null && (
            <span className="plan-card__badge">
              {t("payments.discount", { percent: plan.discount_percent })}
            </span>
          )}
          <p className="plan-card__price">
            {plan.amount === 0
              ? t("payments.free_trial", { days: plan.trial_days ?? 7 })
              : formatAmount(plan.amount, plan.currency, language)}{" "}
            <span className="muted">{t(periodKey(plan), { count: plan.interval_count })}</span>
          </p>
          <Link className="btn btn--primary" to={`/payment?plan=${plan.id}`}>
            {t("payments.choose")}
          </Link>
        </li>
      ))}
    </ul>
  );
}
