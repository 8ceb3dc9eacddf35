import type { BpAverage, BpAverages, BpPeriod } from "@tonus/contract";
import { lazy, Suspense, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { getWeekStartDay } from "../../shared/format/week.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { Select } from "../../shared/ui/Select.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { todayIn } from "../dashboard/dates.ts";
import { formatBucket, formatRange } from "../dashboard/format.ts";
import { type AveragesSource, useAverages } from "./bp-api.ts";
import {
  averagesPlotSpec,
  BP_PERIODS,
  BP_RANGES,
  type BpRange,
  pressureText,
  rangeDays,
} from "./bp-averages.ts";
import { CategoryBadge } from "./ReadingsTable.tsx";

// uPlot and the chart code load only when a chart is drawn.
const BpChart = lazy(() => import("./BpChart.tsx"));

function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/**
 * Averages of the log (spec issue 5 "charts and averages by period"): the last 7 and 30 days, then a
 * range by day, week or month as a chart (on screen) and a table (on screen and in print), each period
 * with its count and the ESC/ESH category of its average. The owner's and the shared log's alike.
 */
export function BpAveragesSection({ source }: { source: AveragesSource }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const [range, setRange] = useState<BpRange>("last_30_days");
  const [period, setPeriod] = useState<BpPeriod>("day");
  const today = todayIn(browserTimeZone());
  const days = rangeDays(range, today);
  const averages = useAverages(source, { ...days, period, weekStart: getWeekStartDay(language) });

  return (
    <Card title={t("bp.averages_title")} className="bp-averages-card">
      {averages.isPending ? (
        <LoadingState />
      ) : averages.isError ? (
        <Alert status="error">
          <p>{t("bp.averages.load_failed")}</p>
          <Button variant="secondary" onClick={() => void averages.refetch()}>
            {t("common.retry")}
          </Button>
        </Alert>
      ) : (
        <>
          <div className="bp-averages">
            <AverageBlock title={t("bp.last_7_days")} average={averages.data.last_7_days} />
            <AverageBlock title={t("bp.last_30_days")} average={averages.data.last_30_days} />
          </div>
          <div className="bp-averages__controls no-print">
            <Select
              label={t("bp.averages.range_label")}
              value={range}
              options={BP_RANGES.map((r) => ({ value: r, label: t(`bp.averages.range.${r}`) }))}
              onChange={(event) => setRange(event.target.value as BpRange)}
            />
            <fieldset>
              <legend>{t("bp.averages.period_legend")}</legend>
              {BP_PERIODS.map((p) => (
                <label key={p} className="choice">
                  <input
                    type="radio"
                    name={`bp-period-${source.kind}`}
                    value={p}
                    checked={period === p}
                    onChange={() => setPeriod(p)}
                  />
                  {t(`bp.averages.period.${p}`)}
                </label>
              ))}
            </fieldset>
          </div>
          <RangeAverages averages={averages.data} />
        </>
      )}
      <p className="muted">{t("bp.not_a_diagnosis")}</p>
    </Card>
  );
}

function RangeAverages({ averages }: { averages: BpAverages }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const rangeText = formatRange(averages.from, averages.to, language);
  const spec = useMemo(
    () =>
      averagesPlotSpec(
        averages,
        {
          systolic: t("bp.averages.series.systolic"),
          diastolic: t("bp.averages.series.diastolic"),
          pulse: t("bp.averages.series.pulse"),
        },
        language,
      ),
    [averages, t, language],
  );
  if (!averages.overall) return <p className="empty-state">{t("bp.averages.empty", { range: rangeText })}</p>;
  const periodText = (bucketT: string) =>
    averages.period === "week"
      ? t("bp.averages.week_of", { day: formatBucket(bucketT, "day", language) })
      : formatBucket(bucketT, averages.period, language);
  return (
    <>
      <AverageBlock title={t("bp.averages.range_title", { range: rangeText })} average={averages.overall} />
      <Suspense fallback={<LoadingState />}>
        <BpChart spec={spec} label={t("bp.averages.chart_label", { range: rangeText })} />
      </Suspense>
      <div className="bp-table-wrap">
        <table className="bp-table bp-averages-table">
          <caption>{t(`bp.averages.table_caption_${averages.period}`, { range: rangeText })}</caption>
          <thead>
            <tr>
              <th scope="col">{t("bp.averages.col.period")}</th>
              <th scope="col">{t("bp.averages.col.readings")}</th>
              <th scope="col">{t("bp.averages.col.pressure")}</th>
              <th scope="col">{t("bp.averages.col.spread")}</th>
              <th scope="col">{t("bp.averages.col.pulse")}</th>
              <th scope="col">{t("bp.averages.col.category")}</th>
            </tr>
          </thead>
          <tbody>
            {[...averages.buckets].reverse().map((b) => (
              <tr key={b.t}>
                <th scope="row">{periodText(b.t)}</th>
                <td>{b.count}</td>
                <td className="bp-table__pressure">{pressureText(b)}</td>
                <td>
                  {b.systolic.min}–{b.systolic.max} / {b.diastolic.min}–{b.diastolic.max}
                </td>
                <td>{b.pulse ? Math.round(b.pulse.mean) : "—"}</td>
                <td>
                  <CategoryBadge category={b.category} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function AverageBlock({ title, average }: { title: string; average: BpAverage | null }) {
  const { t } = useTranslation();
  return (
    <section className="bp-average">
      <h3>{title}</h3>
      {average ? (
        <>
          <p className="bp-average__value">
            {pressureText(average)}
            {average.pulse !== null && (
              <span className="muted">
                {" "}
                · {t("bp.pulse_value", { pulse: Math.round(average.pulse.mean) })}
              </span>
            )}
          </p>
          <CategoryBadge category={average.category} />
          <p className="muted">{t("bp.readings_count", { count: average.count })}</p>
        </>
      ) : (
        <p className="muted">{t("bp.no_readings_period")}</p>
      )}
    </section>
  );
}
