import { useTranslation } from "react-i18next";

/** "N of M lectures" with a progress bar (spec §3 Academy: all materials of the course count). */
export function ProgressLine({ finished, total }: { finished: number; total: number }) {
  const { t } = useTranslation();
  const label = t("academy.progress", { count: total, finished });
  return (
    <div className="academy-progress">
      <progress max={Math.max(total, 1)} value={Math.min(finished, total)} aria-label={label} />
      <span>{label}</span>
    </div>
  );
}
