import type { ChartFlows, DashboardLayout, MetricKey } from "@tonus/contract";
import { useId, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { ApiError } from "../../shared/api/client.ts";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import { useSetSourcePriority } from "./dashboard-api.ts";
import { pick } from "./format.ts";
import { moveSource, priorityRows } from "./source-priority.ts";

/**
 * "Which source counts" (issue 5: a per-metric source priority the person sets): for each chart fed by
 * two or more sources, its sources in the order they win, with buttons to move one up or down and to
 * go back to the default order. Each change is saved at once and the charts are read again.
 */
export function SourcePriorityCard({
  flows,
  layout,
  onProRequired,
}: {
  flows: ChartFlows;
  layout: DashboardLayout;
  onProRequired: () => void;
}) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const headingId = useId();
  const save = useSetSourcePriority();
  const rows = useMemo(() => priorityRows(flows, layout.source_priority), [flows, layout.source_priority]);
  const sourceName = (key: string) => {
    for (const item of flows.items)
      for (const s of item.sources) if (s.source.key === key) return pick(s.source.name, language);
    return key;
  };

  const apply = (metrics: readonly MetricKey[], sources: readonly string[]) =>
    save.mutate(
      { metrics, sources },
      {
        onSuccess: () => showAlert(t("dashboard.priority.saved")),
        onError: (failure) => {
          if (failure instanceof ApiError && failure.code === "pro_required") onProRequired();
          else showAlert(t("dashboard.priority.save_failed"), "error");
        },
      },
    );

  return (
    <section className="card source-priority" aria-labelledby={headingId} aria-busy={save.isPending}>
      <h2 id={headingId} className="card__title">
        {t("dashboard.priority.title")}
      </h2>
      <p className="muted">{t("dashboard.priority.intro")}</p>
      {rows.length === 0 ? (
        <p className="empty-state">{t("dashboard.priority.none")}</p>
      ) : (
        <ul className="source-priority__charts">
          {rows.map((row) => {
            const title = pick(row.item.title, language);
            return (
              <li key={row.item.id} className="source-priority__chart">
                <h3 id={`${headingId}-${row.item.id}`}>{title}</h3>
                <p className="muted">
                  {row.isCustom ? t("dashboard.priority.custom") : t("dashboard.priority.default")}
                </p>
                <ol
                  className="source-priority__sources"
                  aria-label={t("dashboard.priority.list_label", { title })}
                >
                  {row.order.map((key, index) => {
                    const source = sourceName(key);
                    return (
                      <li key={key} className="source-priority__source">
                        <span>{source}</span>
                        <span className="source-priority__actions">
                          <Button
                            variant="ghost"
                            disabled={index === 0 || save.isPending}
                            aria-label={t("dashboard.priority.move_up_named", { source, title })}
                            onClick={() => apply(row.metrics, moveSource(row.order, index, -1))}
                          >
                            {t("dashboard.priority.move_up")}
                          </Button>
                          <Button
                            variant="ghost"
                            disabled={index === row.order.length - 1 || save.isPending}
                            aria-label={t("dashboard.priority.move_down_named", { source, title })}
                            onClick={() => apply(row.metrics, moveSource(row.order, index, 1))}
                          >
                            {t("dashboard.priority.move_down")}
                          </Button>
                        </span>
                      </li>
                    );
                  })}
                </ol>
                {row.isCustom && (
                  <Button
                    variant="secondary"
                    disabled={save.isPending}
                    aria-label={t("dashboard.priority.reset_named", { title })}
                    onClick={() => apply(row.metrics, [])}
                  >
                    {t("dashboard.priority.reset")}
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
