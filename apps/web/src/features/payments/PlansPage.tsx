import { organizeProducts } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useProducts } from "./billing-api.ts";
import { PlanList } from "./PlanList.tsx";
import "./payments.css";

/** /payments/plans/main/: the plans page a visitor lands on from `/` (spec §2). */
export default function PlansPage() {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const products = useProducts(language);
  if (products.isPending) return <LoadingState />;
  const { plans } = organizeProducts(products.data ?? []);
  return (
    <>
      <p className="muted">{t("payments.plans_intro")}</p>
      <PlanList plans={plans} language={language} />
    </>
  );
}
