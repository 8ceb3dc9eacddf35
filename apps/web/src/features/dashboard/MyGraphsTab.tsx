import type { ChartFlows, ChartItemKey, DashboardChart, DashboardLayout } from "@tonus/contract";
import { type Ref, useEffect, useId, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError } from "../../shared/api/client.ts";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import { AddChartDialog } from "./AddChartDialog.tsx";
import { ChartCard } from "./ChartCard.tsx";
import type { ChartContext } from "./chart-model.ts";
import { type RangeRequest, useAddChart, useMoveChart, useRemoveChart } from "./dashboard-api.ts";
import { pick } from "./format.ts";
import { ManualEntryCard } from "./ManualEntryCard.tsx";
import { SourcePriorityCard } from "./SourcePriorityCard.tsx";
import { LockedChartCard, UpgradePrompt } from "./Upgrade.tsx";

const UNDO_MS = 6000;
/** Charts a free user sees locked below the demo's: ones they would fill in themselves. */
const LOCKED_PREVIEW: readonly ChartItemKey[] = ["weight", "water", "heart_rate", "resting_heart_rate"];
const LOCKED_COUNT = 3;

const buttonId = (action: string, item: string) => `chart-${action}-${item}`;

/** Focuses a chart's control once the page has re-rendered, or its neighbour when it is disabled now. */
function focusControl(ids: string[]): void {
  requestAnimationFrame(() => {
    for (const id of ids) {
      const element = document.getElementById(id);
      if (element instanceof HTMLButtonElement && !element.disabled) {
        element.focus();
        return;
      }
    }
  });
}

/**
 * "My graphs": the person's charts in order — added from the catalogue, removed (with undo), moved up
 * or down, remembered on the server (spec §4 Dashboard) — and typing values in. Free users and visitors
 * see the demo's charts, locked ones and upgrade prompts instead of the controls (spec §6).
 */
export function MyGraphsTab({
  flows,
  layout,
  range,
  context,
  manualHeadingRef,
  onProRequired,
}: {
  flows: ChartFlows;
  layout: DashboardLayout;
  range: RangeRequest;
  context: ChartContext;
  manualHeadingRef: Ref<HTMLHeadingElement>;
  onProRequired: () => void;
}) {
  const { t } = useTranslation();
  const headingId = useId();
  const isDemo = flows.demo || layout.demo;
  const items = useMemo(() => new Map(flows.items.map((item) => [item.id, item])), [flows]);
  const add = useAddChart();
  const move = useMoveChart();
  const remove = useRemoveChart();
  const [isDialogOpen, setIsDialogOpen] = useState(false);
  const [addError, setAddError] = useState<string | null>(null);
  const [pending, setPending] = useState<DashboardChart | null>(null);
  const timer = useRef<number | undefined>(undefined);

  const failed = (failure: unknown) => {
    if (failure instanceof ApiError && failure.code === "pro_required") onProRequired();
    else showAlert(t("dashboard.graphs.save_failed"), "error");
  };

  // A removal waits a few seconds for Undo; another change or leaving the page carries it out first.
  const commitRemoval = useRef<() => Promise<void>>(async () => {});
  commitRemoval.current = async () => {
    if (!pending) return;
    window.clearTimeout(timer.current);
    const chart = pending;
    setPending(null);
    try {
      await remove.mutateAsync(chart.id);
    } catch (failure) {
      failed(failure);
    }
  };
  useEffect(() => () => void commitRemoval.current(), []);

  const askRemove = async (chart: DashboardChart) => {
    await commitRemoval.current();
    setPending(chart);
    timer.current = window.setTimeout(() => void commitRemoval.current(), UNDO_MS);
    focusControl(["chart-undo"]);
  };
  const undoRemove = () => {
    if (!pending) return;
    window.clearTimeout(timer.current);
    const item = pending.item;
    setPending(null);
    focusControl([buttonId("remove", item)]);
  };
  const moveChart = async (chart: DashboardChart, direction: "up" | "down") => {
    if (move.isPending) return;
    await commitRemoval.current();
    try {
      await move.mutateAsync({ id: chart.id, direction });
      const other = direction === "up" ? "down" : "up";
      focusControl([buttonId(direction, chart.item), buttonId(other, chart.item)]);
    } catch (failure) {
      failed(failure);
    }
  };
  const addChart = async (item: ChartItemKey) => {
    await commitRemoval.current();
    setAddError(null);
    try {
      await add.mutateAsync(item);
      setIsDialogOpen(false);
      const found = items.get(item);
      showAlert(t("dashboard.add.added", { title: found ? pick(found.title, context.language) : item }));
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === "pro_required") {
        setIsDialogOpen(false);
        onProRequired();
      } else setAddError(t("dashboard.add.failed"));
    }
  };

  const charts = layout.charts.filter((chart) => chart.id !== pending?.id && items.has(chart.item));
  const present = new Set(layout.charts.map((chart) => chart.item));
  const locked = isDemo
    ? LOCKED_PREVIEW.filter((key) => !present.has(key))
        .slice(0, LOCKED_COUNT)
        .flatMap((key) => items.get(key) ?? [])
    : [];

  return (
    <div className="stack">
      <section aria-labelledby={headingId} className="stack">
        <div className="graphs-toolbar">
          <h2 id={headingId}>{t("dashboard.graphs.title")}</h2>
          {!isDemo && (
            <Button
              id="chart-add"
              onClick={() => {
                setAddError(null);
                setIsDialogOpen(true);
              }}
            >
              {t("dashboard.add.open")}
            </Button>
          )}
        </div>
        {isDemo && <UpgradePrompt text={t("dashboard.graphs.locked")} />}
        {pending && (
          <div className="undo-bar" role="status">
            <span>
              {t("dashboard.graphs.removed", {
                title: pick(
                  items.get(pending.item)?.title ?? { en: pending.item, ru: pending.item },
                  context.language,
                ),
              })}
            </span>
            <Button id="chart-undo" variant="secondary" onClick={undoRemove}>
              {t("dashboard.undo")}
            </Button>
          </div>
        )}
        {charts.length === 0 && !isDemo ? (
          <p className="empty-state">{t("dashboard.graphs.empty")}</p>
        ) : (
          <ol className="chart-list">
            {charts.map((chart, index) => {
              const item = items.get(chart.item);
              if (!item) return null;
              const title = pick(item.title, context.language);
              return (
                <li key={chart.item}>
                  <ChartCard
                    item={item}
                    range={range}
                    context={context}
                    timeZone={flows.time_zone}
                    actions={
                      isDemo ? undefined : (
                        <>
                          <Button
                            id={buttonId("up", chart.item)}
                            variant="ghost"
                            disabled={index === 0}
                            aria-label={t("dashboard.graphs.move_up_named", { title })}
                            onClick={() => void moveChart(chart, "up")}
                          >
                            {t("dashboard.graphs.move_up")}
                          </Button>
                          <Button
                            id={buttonId("down", chart.item)}
                            variant="ghost"
                            disabled={index === charts.length - 1}
                            aria-label={t("dashboard.graphs.move_down_named", { title })}
                            onClick={() => void moveChart(chart, "down")}
                          >
                            {t("dashboard.graphs.move_down")}
                          </Button>
                          <Button
                            id={buttonId("remove", chart.item)}
                            variant="ghost"
                            aria-label={t("dashboard.graphs.remove_named", { title })}
                            onClick={() => void askRemove(chart)}
                          >
                            {t("dashboard.graphs.remove")}
                          </Button>
                        </>
                      )
                    }
                  />
                </li>
              );
            })}
            {locked.map((item) => (
              <li key={item.id}>
                <LockedChartCard item={item} language={context.language} />
              </li>
            ))}
          </ol>
        )}
      </section>
      {isDemo ? (
        <section className="card" aria-labelledby={`${headingId}-manual`}>
          <h2 id={`${headingId}-manual`} ref={manualHeadingRef} tabIndex={-1} className="card__title">
            {t("dashboard.manual.title")}
          </h2>
          <UpgradePrompt text={t("dashboard.manual.locked")} />
        </section>
      ) : (
        <>
          <ManualEntryCard flows={flows} onProRequired={onProRequired} headingRef={manualHeadingRef} />
          <SourcePriorityCard flows={flows} layout={layout} onProRequired={onProRequired} />
        </>
      )}
      {!isDemo && (
        <AddChartDialog
          flows={flows}
          present={present}
          isOpen={isDialogOpen}
          busyItem={add.isPending ? (add.variables ?? null) : null}
          error={addError}
          onAdd={(item) => void addChart(item)}
          onClose={() => setIsDialogOpen(false)}
        />
      )}
    </div>
  );
}
