import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { Select } from "../../shared/ui/Select.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { formatStartedAt } from "./format-date.ts";
import { detailPagePath, LIST_PAGE_SIZE, type ListFilter, useMeasurementList } from "./measure-api.ts";
import { parseTags, TagsField } from "./TagsField.tsx";
import { formatNumber } from "./values.ts";
import "./measure.css";

export const PERIODS = ["7", "30", "90", "365", "all"] as const;
export type Period = (typeof PERIODS)[number];

/** The `from` bound of a period ending now: `days` days back from the start of today. */
export function periodStart(period: Period, now: Date = new Date()): string | undefined {
  if (period === "all") return undefined;
  const start = new Date(now);
  start.setHours(0, 0, 0, 0);
  start.setDate(start.getDate() - Number(period) + 1);
  return start.toISOString();
}

/** /measurements: the person's measurements, newest first, filtered by period and tags. */
export default function MeasurementsPage() {
  const { t } = useTranslation();
  const [period, setPeriod] = useState<Period>("30");
  const [tagText, setTagText] = useState("");
  const [filter, setFilter] = useState<ListFilter>({ from: periodStart("30"), tags: [], offset: 0 });
  const list = useMeasurementList(filter);
  const localeTag = t("locale_tag");

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilter({ from: periodStart(period), tags: parseTags(tagText), offset: 0 });
  };

  return (
    <>
      <form className="card measure-filters" onSubmit={apply} aria-label={t("measure.history.filters")}>
        <Select
          label={t("measure.history.period")}
          value={period}
          onChange={(event) => setPeriod(event.target.value as Period)}
          options={PERIODS.map((value) => ({ value, label: t(`measure.history.periods.${value}`) }))}
        />
        <TagsField
          label={t("measure.history.tags")}
          hint={t("measure.history.tags_hint")}
          text={tagText}
          onTextChange={setTagText}
        />
        <Button type="submit">{t("measure.history.apply")}</Button>
      </form>
      <p>
        <Link to="/measure">{t("measure.history.new")}</Link>
      </p>
      {list.isPending ? (
        <LoadingState />
      ) : list.isError ? (
        <Alert status="error">
          <p>{t("measure.history.load_failed")}</p>
          <Button variant="secondary" onClick={() => void list.refetch()}>
            {t("common.retry")}
          </Button>
        </Alert>
      ) : list.data.results.length === 0 ? (
        <p className="empty-state">{t("measure.history.empty")}</p>
      ) : (
        <>
          <p className="muted" aria-live="polite">
            {t("measure.history.count", { count: list.data.count })}
          </p>
          <ul className="measure-history">
            {list.data.results.map((m) => (
              <li key={m.id} className="card measure-history__item">
                <Link to={detailPagePath(m.id)}>{formatStartedAt(m.started_at, m.time_zone, localeTag)}</Link>
                <span className="muted">{t(`measure.sources.${m.source}`)}</span>
                <span>
                  {m.heart_rate === null
                    ? "—"
                    : t("measure.units.bpm", { value: formatNumber(m.heart_rate, 0, localeTag) })}
                </span>
                <span>
                  {t("measure.values.rmssd.short")}{" "}
                  {m.rmssd === null
                    ? "—"
                    : t("measure.units.ms", { value: formatNumber(m.rmssd, 1, localeTag) })}
                </span>
                {m.tags.length > 0 && (
                  <ul className="measure-tags">
                    {m.tags.map((tag) => (
                      <li key={tag}>{tag}</li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
          <div className="measure-actions">
            <Button
              variant="secondary"
              disabled={filter.offset === 0}
              onClick={() => setFilter({ ...filter, offset: Math.max(0, filter.offset - LIST_PAGE_SIZE) })}
            >
              {t("measure.history.newer")}
            </Button>
            <Button
              variant="secondary"
              disabled={filter.offset + LIST_PAGE_SIZE >= list.data.count}
              onClick={() => setFilter({ ...filter, offset: filter.offset + LIST_PAGE_SIZE })}
            >
              {t("measure.history.older")}
            </Button>
          </div>
        </>
      )}
    </>
  );
}
