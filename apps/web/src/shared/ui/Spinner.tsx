import { useTranslation } from "react-i18next";

export function Spinner({ size = "normal" }: { size?: "small" | "normal" }) {
  const { t } = useTranslation();
  return <span className={`spinner spinner--${size}`} role="img" aria-label={t("common.loading")} />;
}

/** A centred loading state for a whole page or card. */
export function LoadingState() {
  const { t } = useTranslation();
  return (
    <div className="loading-state" aria-live="polite" aria-busy="true">
      <Spinner />
      <span>{t("common.loading")}</span>
    </div>
  );
}
