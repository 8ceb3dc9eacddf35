import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { INITIAL_DATE_RANGE } from "./date-range.ts";
import { setDateRange } from "./date-range-store.ts";
import { addDays } from "./dates.ts";
import { formatDay } from "./format.ts";
import type { NoDataNotice as Notice } from "./no-data.ts";

/** How many days, up to the newest data, "show them" opens. */
const DAYS_UP_TO_LAST = 30;

/** Spec §8 "No data for the last 12 days"; with nothing at all yet, where data comes from. */
export function NoDataNotice({
  notice,
  lastDataDay,
  onManualEntry,
}: {
  notice: Exclude<Notice, null>;
  lastDataDay: string | null;
  /** Opens the form for typing values in (on the My graphs tab). */
  onManualEntry: () => void;
}) {
  const { t, i18n } = useTranslation();
  return (
    <div className="no-data-notice" role="status">
      <p className="no-data-notice__title">{t("dashboard.no_data_12_days")}</p>
      {notice === "stale" && lastDataDay && (
        <p>
          <span>{t("dashboard.no_data.last_day", { day: formatDay(lastDataDay, i18n.language) })}</span>{" "}
          {/* Data imported from an old export lies before the picker's range: one click shows it. */}
          <button
            type="button"
            className="link-button"
            onClick={() =>
              setDateRange({
                status: "custom",
                startDate: addDays(lastDataDay, -(DAYS_UP_TO_LAST - 1)),
                endDate: lastDataDay,
                period: INITIAL_DATE_RANGE.period,
              })
            }
          >
            {t("dashboard.no_data.show_last", { count: DAYS_UP_TO_LAST })}
          </button>
        </p>
      )}
      <p>{t("dashboard.no_data.how")}</p>
      <ul className="no-data-notice__links">
        <li>
          <Link to="/measure">{t("dashboard.no_data.measure")}</Link>
        </li>
        <li>
          <button type="button" className="link-button" onClick={onManualEntry}>
            {t("dashboard.no_data.manual")}
          </button>
        </li>
        <li>
          <Link to="/data-sources">{t("dashboard.no_data.sources")}</Link>
        </li>
      </ul>
    </div>
  );
}
