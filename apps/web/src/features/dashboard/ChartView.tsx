import type { ChartPeriod } from "@tonus/contract";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { ChartModel } from "./chart-model.ts";
import { formatNumber, formatValue } from "./format.ts";
import { UPlotChart } from "./UPlotChart.tsx";

/** The index of the newest value of any series: what the legend shows while nothing is hovered. */
function latestIndex(model: ChartModel): number | null {
  for (let i = model.size - 1; i >= 0; i--)
    if (model.series.some((s) => s.values[i] !== null && s.values[i] !== undefined)) return i;
  return null;
}

/** A drawn chart with its legend (values and units at the pointer, else the latest), summary and table. */
export function ChartView({
  model,
  title,
  period,
  onDrawn,
}: {
  model: ChartModel;
  title: string;
  period: ChartPeriod;
  onDrawn: () => void;
}) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const summaryId = useId();
  const [hovered, setHovered] = useState<number | null>(null);
  const index = hovered ?? latestIndex(model);
  const unitKey = model.isIntraday ? "samples" : period;

  return (
    <>
      <div className="chart-legend">
        {index !== null && <span className="chart-legend__when">{model.labelAt(index)}</span>}
        <ul className="chart-legend__list">
          {model.series.map((s) => {
            const value = index === null ? null : (s.values[index] ?? null);
            const total = index === null ? null : (s.totals[index] ?? null);
            return (
              <li key={s.label} className="chart-legend__item">
                <span className="chart-legend__swatch" style={{ background: s.color }} aria-hidden="true" />
                <span>{s.label}</span>
                <strong className="chart-legend__value">
                  {value === null
                    ? t("dashboard.chart.no_value")
                    : model.isPerDay
                      ? t("dashboard.chart.per_day", {
                          value: formatValue(value, s.decimals, s.unitLabel, language),
                          total: formatValue(total ?? 0, s.decimals, s.unitLabel, language),
                        })
                      : formatValue(value, s.decimals, s.unitLabel, language)}
                </strong>
              </li>
            );
          })}
        </ul>
      </div>
      <div role="img" aria-label={t("dashboard.chart.image_label", { title })} aria-describedby={summaryId}>
        <UPlotChart
          options={model.plot.options}
          data={model.plot.data}
          onCursor={setHovered}
          onDrawn={onDrawn}
        />
      </div>
      <div id={summaryId} className="chart-summary">
        <p className="muted">
          {t(`dashboard.chart.coverage_${unitKey}`, {
            withData: formatNumber(model.withData, 0, language),
            total: formatNumber(model.total, 0, language),
            count: model.total,
          })}
        </p>
        {model.series.map((s) =>
          s.summary ? (
            <p key={s.label} className="chart-summary__line">
              {t("dashboard.chart.summary", {
                label: s.label,
                mean: formatValue(s.summary.mean, s.decimals, s.unitLabel, language),
                lowest: formatValue(s.summary.lowest.value, s.decimals, s.unitLabel, language),
                lowestWhen: model.formatT(s.summary.lowest.t),
                highest: formatValue(s.summary.highest.value, s.decimals, s.unitLabel, language),
                highestWhen: model.formatT(s.summary.highest.t),
                latest: formatValue(s.summary.latest.value, s.decimals, s.unitLabel, language),
                latestWhen: model.formatT(s.summary.latest.t),
              })}
            </p>
          ) : null,
        )}
      </div>
      <ChartTable model={model} title={title} />
    </>
  );
}

/** The chart's numbers as a table, built only when opened (a year by day is 365 rows). */
function ChartTable({ model, title }: { model: ChartModel; title: string }) {
  const { t, i18n } = useTranslation();
  const [isOpen, setIsOpen] = useState(false);
  return (
    <details className="chart-table" onToggle={(event) => setIsOpen(event.currentTarget.open)}>
      <summary>{t("dashboard.chart.show_table")}</summary>
      {isOpen && (
        <div className="table-wrap">
          <table className="data-table">
            <caption className="visually-hidden">{t("dashboard.chart.table_caption", { title })}</caption>
            <thead>
              <tr>
                <th scope="col">{t(model.isIntraday ? "dashboard.chart.time" : "dashboard.chart.period")}</th>
                {model.series.map((s) => (
                  <th key={s.label} scope="col">
                    {s.unitLabel ? `${s.label}, ${s.unitLabel}` : s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {Array.from({ length: model.size }, (_, i) =>
                model.series.every((s) => s.values[i] === null) ? null : (
                  // biome-ignore lint/suspicious/noArrayIndexKey: rows are the chart's fixed x positions
                  <tr key={i}>
                    <th scope="row">{model.labelAt(i)}</th>
                    {model.series.map((s) => {
                      const value = s.values[i];
                      return (
                        <td key={s.label}>
                          {value === null || value === undefined
                            ? t("dashboard.chart.no_value")
                            : formatNumber(value, s.decimals, i18n.language)}
                        </td>
                      );
                    })}
                  </tr>
                ),
              )}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}
