import type { ChartFlows, ChartItem, MetricKey } from "@tonus/contract";
import { useId, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { ChartCard } from "./ChartCard.tsx";
import type { ChartContext } from "./chart-model.ts";
import type { RangeRequest } from "./dashboard-api.ts";
import { pick } from "./format.ts";
import { StatsTableSection } from "./StatsTableSection.tsx";
import { TagFilter } from "./TagFilter.tsx";

/** Health-data charts (from measurements) that have data, grouped by their first category. */
function healthGroups(flows: ChartFlows) {
  const groups = new Map<string, ChartItem[]>();
  for (const item of flows.items) {
    if (!item.health_data || !item.has_data) continue;
    const category = [...item.categories].sort((a, b) => a.order_category - b.order_category)[0];
    if (!category) continue;
    const list = groups.get(category.id) ?? [];
    list.push(item);
    groups.set(category.id, list);
  }
  return [...flows.categories]
    .sort((a, b) => a.order_category - b.order_category)
    .flatMap((category) => {
      const items = groups.get(category.id);
      return items ? [{ category, items }] : [];
    });
}

/**
 * "My health data": charts of the scores and HRV parameters from measurements, the tag filter (spec §5:
 * only on this tab) and the stats table.
 */
export function HealthDataTab({
  flows,
  tableParameters,
  range,
  context,
  onTagsChange,
  onProRequired,
}: {
  flows: ChartFlows;
  tableParameters: readonly MetricKey[];
  /** With the chosen tags. */
  range: RangeRequest;
  context: ChartContext;
  onTagsChange: (tags: string[]) => void;
  onProRequired: () => void;
}) {
  const { t } = useTranslation();
  const groups = useMemo(() => healthGroups(flows), [flows]);
  const headingId = useId();
  return (
    <div className="stack">
      <TagFilter tags={flows.tags} selected={range.tags} onChange={onTagsChange} />
      {groups.length === 0 ? (
        <div className="card">
          <p className="empty-state">{t("dashboard.health.empty")}</p>
          {!flows.demo && (
            <Link className="btn btn--primary" to="/measure">
              {t("dashboard.health.measure")}
            </Link>
          )}
        </div>
      ) : (
        groups.map(({ category, items }) => (
          <section key={category.id} className="chart-group" aria-labelledby={`${headingId}-${category.id}`}>
            <h2 id={`${headingId}-${category.id}`} className="chart-group__title">
              {pick(category.title, context.language)}
            </h2>
            <div className="chart-grid">
              {items.map((item) => (
                <ChartCard
                  key={item.id}
                  item={item}
                  range={range}
                  context={context}
                  timeZone={flows.time_zone}
                />
              ))}
            </div>
          </section>
        ))
      )}
      <StatsTableSection
        flows={flows}
        parameters={tableParameters}
        range={range}
        onProRequired={onProRequired}
      />
    </div>
  );
}
