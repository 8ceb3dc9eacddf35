import { type ChartFlows, DASHBOARD_LIMITS, type LocalizedText, type MetricKey } from "@tonus/contract";
import { useEffect, useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { type RangeRequest, statsExportUrl, useSetTableParameters, useStatsTable } from "./dashboard-api.ts";
import { formatBucket, formatNumber, metricLabelsOf, pick, unitLabelsOf } from "./format.ts";
import { toggleParameter } from "./table-parameters.ts";
import { UpgradePrompt } from "./Upgrade.tsx";

/**
 * The stats table of My health data (spec §3 "Stats table: tableData with results, page, and an export
 * table"): one row per period, newest first, with at most 8 parameters (spec §5), paging and CSV export.
 */
export function StatsTableSection({
  flows,
  parameters,
  range,
  onProRequired,
}: {
  flows: ChartFlows;
  parameters: readonly MetricKey[];
  range: RangeRequest;
  onProRequired: () => void;
}) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const headingId = useId();
  const [page, setPage] = useState(1);
  const table = useStatsTable(range, page);
  const metricLabels = useMemo(() => metricLabelsOf(flows), [flows]);
  const unitLabels = useMemo(() => unitLabelsOf(flows), [flows]);
  // A new range, period, tag filter or set of parameters starts again from the newest rows.
  // biome-ignore lint/correctness/useExhaustiveDependencies: these are the triggers, not inputs
  useEffect(() => setPage(1), [range, parameters]);

  const label = (metric: MetricKey) => {
    const text = metricLabels.get(metric);
    return text ? pick(text, language) : metric;
  };
  const unit = (key: string) => {
    const text = unitLabels.get(key as never);
    return text ? pick(text, language) : "";
  };
  const data = table.data;

  return (
    <section className="stats-section" aria-labelledby={headingId}>
      <h2 id={headingId}>{t("dashboard.table.title")}</h2>
      {flows.demo ? (
        <UpgradePrompt text={t("dashboard.table.locked")} />
      ) : (
        <ParameterChooser
          flows={flows}
          parameters={parameters}
          label={label}
          labels={metricLabels}
          onProRequired={onProRequired}
        />
      )}
      {table.isPending ? (
        <LoadingState />
      ) : table.isError || !data ? (
        <Alert status="error">
          <p>{t("dashboard.table.load_failed")}</p>
          <Button variant="secondary" onClick={() => void table.refetch()}>
            {t("common.retry")}
          </Button>
        </Alert>
      ) : data.results.length === 0 || data.parameters.length === 0 ? (
        <p className="empty-state">
          {data.parameters.length === 0 ? t("dashboard.table.no_parameters") : t("dashboard.no_data_period")}
        </p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="data-table" aria-busy={table.isFetching || undefined}>
              <caption>{t(`dashboard.table.caption_${range.period}`)}</caption>
              <thead>
                <tr>
                  <th scope="col">{t(`dashboard.table.period_${range.period}`)}</th>
                  {data.parameters.map((p) => {
                    const u = unit(p.unit);
                    return (
                      <th key={p.metric} scope="col">
                        {u ? `${label(p.metric)}, ${u}` : label(p.metric)}
                      </th>
                    );
                  })}
                </tr>
              </thead>
              <tbody>
                {data.results.map((row) => (
                  <tr key={row.t}>
                    <th scope="row">{formatBucket(row.t, range.period, language)}</th>
                    {data.parameters.map((p) => {
                      const value = row.values[p.metric];
                      return (
                        <td key={p.metric}>
                          {value === null || value === undefined
                            ? t("dashboard.chart.no_value")
                            : formatNumber(value, p.decimals, language)}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav className="pager" aria-label={t("dashboard.table.pages_label")}>
            <Button variant="secondary" disabled={data.page <= 1} onClick={() => setPage(data.page - 1)}>
              {t("dashboard.table.previous")}
            </Button>
            <span aria-live="polite">
              {t("dashboard.table.page", { page: data.page, pages: data.pages })}
            </span>
            <Button
              variant="secondary"
              disabled={data.page >= data.pages}
              onClick={() => setPage(data.page + 1)}
            >
              {t("dashboard.table.next")}
            </Button>
          </nav>
        </>
      )}
      <p className="actions">
        <a
          className="btn btn--secondary"
          href={statsExportUrl(range, language.startsWith("ru") ? "ru" : "en")}
          download
        >
          {t("dashboard.table.export")}
        </a>
      </p>
    </section>
  );
}

/** Checkboxes of every metric, by category; a 9th is refused with the spec's message. */
function ParameterChooser({
  flows,
  parameters,
  label,
  labels,
  onProRequired,
}: {
  flows: ChartFlows;
  parameters: readonly MetricKey[];
  label: (metric: MetricKey) => string;
  labels: Map<MetricKey, LocalizedText>;
  onProRequired: () => void;
}) {
  const { t, i18n } = useTranslation();
  const save = useSetTableParameters();
  const [error, setError] = useState<string | null>(null);
  const groups = useMemo(() => {
    const seen = new Set<MetricKey>();
    return [...flows.categories]
      .sort((a, b) => a.order_category - b.order_category)
      .map((category) => {
        const metrics: { metric: MetricKey; hasData: boolean }[] = [];
        for (const item of flows.items) {
          if (!item.categories.some((c) => c.id === category.id)) continue;
          for (const s of item.series) {
            if (seen.has(s.metric) || !labels.has(s.metric)) continue;
            seen.add(s.metric);
            metrics.push({ metric: s.metric, hasData: item.has_data });
          }
        }
        return { category, metrics };
      })
      .filter((g) => g.metrics.length > 0);
  }, [flows, labels]);

  // The boxes follow this list, changed in the click's own render (a checkbox never shows its old state
  // after a click while the change travels) and set again from the layout whenever that changes.
  const [chosen, setChosen] = useState<readonly MetricKey[]>(parameters);
  const [shownParameters, setShownParameters] = useState(parameters);
  if (shownParameters !== parameters) {
    setShownParameters(parameters);
    setChosen(parameters);
  }

  const toggle = (metric: MetricKey) => {
    const result = toggleParameter(chosen, metric);
    if ("error" in result) {
      setError(t("errors.codes.table_limit"));
      return;
    }
    setError(null);
    setChosen(result.parameters);
    void save(result.parameters, {
      onError: (failure) => {
        if (failure instanceof ApiError && failure.code === "pro_required") onProRequired();
        else if (failure instanceof ApiError && failure.code === "table_limit")
          setError(t("errors.codes.table_limit"));
        else setError(t("dashboard.table.save_failed"));
      },
    });
  };

  return (
    <details className="parameter-chooser">
      <summary>
        {t("dashboard.table.choose", { chosen: chosen.length, max: DASHBOARD_LIMITS.tableMaxParameters })}
      </summary>
      {error && (
        <p className="field__error parameter-chooser__error" role="alert">
          {error}
        </p>
      )}
      <div className="parameter-chooser__groups">
        {groups.map(({ category, metrics }) => (
          <fieldset key={category.id} className="parameter-chooser__group">
            <legend>{pick(category.title, i18n.language)}</legend>
            {metrics.map(({ metric, hasData }) => (
              <label key={metric} className="choice">
                <input type="checkbox" checked={chosen.includes(metric)} onChange={() => toggle(metric)} />
                <span>{label(metric)}</span>
                {!hasData && <span className="muted">{t("dashboard.table.no_data_yet")}</span>}
              </label>
            ))}
          </fieldset>
        ))}
      </div>
    </details>
  );
}
