import type { ChartPeriod } from "@tonus/contract";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  type CustomRangeError,
  DATE_PRESETS,
  type DatePickerStatus,
  type DateRangeState,
  type DayRange,
  validateCustomRange,
} from "./date-range.ts";
import { setDateRange } from "./date-range-store.ts";
import { formatRange } from "./format.ts";

const PERIODS: readonly ChartPeriod[] = ["day", "week", "month"];

/**
 * The date picker (spec §3 "startDate, endDate, datePickerStatus"): presets, a custom start and end,
 * and the period the charts add up by. Radio groups, so arrow keys move within each.
 */
export function DateRangePicker({
  state,
  range,
  today,
}: {
  state: DateRangeState;
  /** The days the current state covers. */
  range: DayRange;
  today: string;
}) {
  const { t, i18n } = useTranslation();
  const name = useId();
  // Dates typed that the picker refused, kept for the fields over the state they were typed in: the
  // store holds the last good range, and any other change of it (another preset, the no-data notice's
  // "show them") shows its own dates.
  const [refused, setRefused] = useState<{
    draft: DayRange;
    error: CustomRangeError;
    over: DateRangeState;
  } | null>(null);
  const pending = refused?.over === state ? refused : null;
  const draft = pending?.draft ?? range;
  const error = pending?.error ?? null;

  const choose = (status: DatePickerStatus) => {
    setRefused(null);
    if (status === "custom") {
      setDateRange({ ...state, status, startDate: range.startDate, endDate: range.endDate });
      return;
    }
    setDateRange({ ...state, status, startDate: null, endDate: null });
  };

  const changeCustom = (next: DayRange) => {
    const problem = validateCustomRange(next.startDate, next.endDate, today);
    if (problem) {
      setRefused({ draft: next, error: problem, over: state });
      return;
    }
    setRefused(null);
    setDateRange({ ...state, status: "custom", startDate: next.startDate, endDate: next.endDate });
  };

  return (
    <section className="range-picker" aria-labelledby={`${name}-title`}>
      <h2 id={`${name}-title`} className="visually-hidden">
        {t("dashboard.range.title")}
      </h2>
      <fieldset className="segmented">
        <legend>{t("dashboard.range.legend")}</legend>
        <div className="segmented__options">
          {[...DATE_PRESETS, "custom" as const].map((status) => (
            <label key={status} className="segmented__option">
              <input
                type="radio"
                name={`${name}-status`}
                value={status}
                checked={state.status === status}
                onChange={() => choose(status)}
              />
              <span>{t(`dashboard.range.presets.${status}`)}</span>
            </label>
          ))}
        </div>
      </fieldset>
      {state.status === "custom" && (
        <div className="range-picker__custom">
          <div className="field">
            <label className="field__label" htmlFor={`${name}-start`}>
              {t("dashboard.range.start")}
            </label>
            <input
              id={`${name}-start`}
              className="field__input"
              type="date"
              value={draft.startDate}
              max={today}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${name}-error` : undefined}
              onChange={(event) => changeCustom({ ...draft, startDate: event.target.value })}
            />
          </div>
          <div className="field">
            <label className="field__label" htmlFor={`${name}-end`}>
              {t("dashboard.range.end")}
            </label>
            <input
              id={`${name}-end`}
              className="field__input"
              type="date"
              value={draft.endDate}
              max={today}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${name}-error` : undefined}
              onChange={(event) => changeCustom({ ...draft, endDate: event.target.value })}
            />
          </div>
          {error && (
            <p id={`${name}-error`} className="field__error range-picker__error" role="alert">
              {t(`dashboard.range.errors.${error}`)}
            </p>
          )}
        </div>
      )}
      <fieldset className="segmented">
        <legend>{t("dashboard.range.period_legend")}</legend>
        <div className="segmented__options">
          {PERIODS.map((period) => (
            <label key={period} className="segmented__option">
              <input
                type="radio"
                name={`${name}-period`}
                value={period}
                checked={state.period === period}
                onChange={() => setDateRange({ ...state, period })}
              />
              <span>{t(`dashboard.range.periods.${period}`)}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <p className="range-picker__current" aria-live="polite">
        {t("dashboard.range.showing", { range: formatRange(range.startDate, range.endDate, i18n.language) })}
      </p>
    </section>
  );
}
