import type { ChartItem } from "@tonus/contract";
import { type ReactNode, useEffect, useId, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { ChartView } from "./ChartView.tsx";
import { buildDailyModel, buildIntradayModel, type ChartContext, wantsIntraday } from "./chart-model.ts";
import { type RangeRequest, useChartChunks, useIntraday } from "./dashboard-api.ts";
import { formatBucket, pick } from "./format.ts";
import { markChartData, markChartDrawn } from "./perf-marks.ts";

/**
 * One chart: every chunk of its data (with progress until the last arrives), then the plot, its legend
 * and a text alternative; "No data for the period" when the range holds nothing.
 */
export function ChartCard({
  item,
  range,
  context,
  timeZone,
  actions,
}: {
  item: ChartItem;
  range: RangeRequest;
  context: ChartContext;
  timeZone: string;
  /** Controls shown beside the title (move, remove). */
  actions?: ReactNode;
}) {
  const { t } = useTranslation();
  const titleId = useId();
  const title = pick(item.title, context.language);
  const { state, retry } = useChartChunks(item.id, range);
  const isIntraday = wantsIntraday(item, range);
  const intraday = useIntraday(item.series[0]?.metric ?? "heart_rate", range, isIntraday);
  const isFetched = state.status === "fetched" && (!isIntraday || !intraday.isPending);

  useEffect(() => {
    if (isFetched) markChartData(item.id);
  }, [isFetched, item.id]);

  const model = useMemo(() => {
    if (state.status !== "fetched") return null;
    const intradayData = isIntraday ? intraday.data : undefined;
    if (intradayData && intradayData.points.length > 0) {
      const time = new Intl.DateTimeFormat(context.language, {
        day: "numeric",
        month: "short",
        hour: "2-digit",
        minute: "2-digit",
        timeZone,
      });
      return buildIntradayModel(item, intradayData, { ...context, timeZone }, (at) =>
        time.format(Date.parse(at)),
      );
    }
    return buildDailyModel(item, state.series, range, context, (day) =>
      formatBucket(day, range.period, context.language),
    );
  }, [state, isIntraday, intraday.data, item, range, context, timeZone]);

  return (
    <article className="chart-card" aria-labelledby={titleId}>
      <header className="chart-card__header">
        <h3 id={titleId} className="chart-card__title">
          {title}
        </h3>
        {actions && <div className="chart-card__actions">{actions}</div>}
      </header>
      {state.status === "error" ? (
        <Alert status="error">
          <p>{t("dashboard.chart.load_failed")}</p>
          <Button variant="secondary" onClick={retry}>
            {t("common.retry")}
          </Button>
        </Alert>
      ) : !isFetched || !model ? (
        <ChunkProgress received={state.progress.received} total={state.progress.total} title={title} />
      ) : model.withData === 0 ? (
        <p className="empty-state chart-card__empty">{t("dashboard.no_data_period")}</p>
      ) : (
        <ChartView
          model={model}
          title={title}
          period={range.period}
          onDrawn={() => markChartDrawn(item.id)}
        />
      )}
    </article>
  );
}

function ChunkProgress({ received, total, title }: { received: number; total: number; title: string }) {
  const { t } = useTranslation();
  return (
    <div className="chart-card__loading">
      <progress
        className="chart-progress"
        max={total}
        value={received}
        aria-label={t("dashboard.chart.loading_label", { title })}
      />
      <span className="muted">{t("dashboard.chart.loading_parts", { received, count: total })}</span>
    </div>
  );
}
