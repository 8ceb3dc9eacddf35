import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { getWeekStartDay } from "../../shared/format/week.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useAuth } from "../auth/use-auth.ts";
import { useProfile } from "../profile/use-profile.ts";
import type { ChartContext } from "./chart-model.ts";
import { DashboardTabs } from "./DashboardTabs.tsx";
import { DateRangePicker } from "./DateRangePicker.tsx";
import { DASHBOARD_QUERY_KEY, type RangeRequest, useFlows, useLayout } from "./dashboard-api.ts";
import { resolveRange } from "./date-range.ts";
import { useDateRange } from "./date-range-store.ts";
import { todayIn } from "./dates.ts";
import { unitLabelsOf } from "./format.ts";
import { HealthDataTab } from "./HealthDataTab.tsx";
import { MyGraphsTab } from "./MyGraphsTab.tsx";
import { NoDataNotice } from "./NoDataNotice.tsx";
import { noDataNotice } from "./no-data.ts";
import { DemoBanner, UPGRADE_PATH } from "./Upgrade.tsx";
import "./dashboard.css";

type TabKey = "health" | "graphs";
const NO_TAGS: readonly string[] = [];

/**
 * /dashboard (spec §2, free access): the person's charts, or the demo for anyone who is not a customer
 * (spec §6; the server decides and says so with `demo`). Tabs "My health data" and "My graphs", one date
 * picker for both.
 */
export default function DashboardPage() {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const auth = useAuth();
  const queryClient = useQueryClient();
  const flows = useFlows();
  const layout = useLayout();
  const dateState = useDateRange();
  const [searchParams, setSearchParams] = useSearchParams();
  const tab: TabKey = searchParams.get("tab") === "graphs" ? "graphs" : "health";
  const [tags, setTags] = useState<string[]>([]);
  const [isProPrompt, setIsProPrompt] = useState(false);
  const [wantsManualEntry, setWantsManualEntry] = useState(false);
  const manualHeadingRef = useRef<HTMLHeadingElement>(null);

  const timeZone = flows.data?.time_zone ?? "UTC";
  const today = todayIn(timeZone);
  const { startDate, endDate } = resolveRange(dateState, {
    today,
    firstDataDay: flows.data?.first_data_day ?? null,
  });
  const weekStart = getWeekStartDay(language);
  const range = useMemo<RangeRequest>(
    () => ({ startDate, endDate, period: dateState.period, weekStart, tags: NO_TAGS }),
    [startDate, endDate, dateState.period, weekStart],
  );
  const healthRange = useMemo<RangeRequest>(() => ({ ...range, tags }), [range, tags]);
  const flowsData = flows.data;
  const context = useMemo<ChartContext>(
    () => ({ language, unitLabels: flowsData ? unitLabelsOf(flowsData) : new Map() }),
    [language, flowsData],
  );

  // Units and time zone are the profile's: after a change elsewhere, answers cached before it are stale.
  const profile = useProfile();
  const profileSettings = profile.data
    ? `${profile.data.units}|${profile.data.energy_unit ?? "kcal"}|${profile.data.timezone}`
    : null;
  const answeredSettings = flows.data
    ? `${flows.data.units}|${flows.data.energy_unit}|${flows.data.time_zone}`
    : null;
  const refreshedFor = useRef<string | null>(null);
  useEffect(() => {
    if (!profileSettings || !answeredSettings || profileSettings === answeredSettings) return;
    if (refreshedFor.current === profileSettings) return;
    refreshedFor.current = profileSettings;
    void queryClient.invalidateQueries({ queryKey: DASHBOARD_QUERY_KEY });
  }, [profileSettings, answeredSettings, queryClient]);

  useEffect(() => {
    if (!wantsManualEntry || tab !== "graphs") return;
    manualHeadingRef.current?.focus();
    manualHeadingRef.current?.scrollIntoView({ block: "start" });
    setWantsManualEntry(false);
  }, [wantsManualEntry, tab]);

  const selectTab = (key: TabKey) =>
    setSearchParams(
      (params) => {
        const next = new URLSearchParams(params);
        if (key === "graphs") next.set("tab", "graphs");
        else next.delete("tab");
        return next;
      },
      { replace: true },
    );

  /** A 402 `pro_required` (say, the subscription ended meanwhile): the upgrade prompt, never sign-in. */
  const onProRequired = () => {
    setIsProPrompt(true);
    void queryClient.invalidateQueries({ queryKey: DASHBOARD_QUERY_KEY });
  };

  if (flows.isPending || layout.isPending) return <LoadingState />;
  if (flows.isError || layout.isError || !flowsData || !layout.data) {
    return (
      <Alert status="error">
        <p>{t("dashboard.load_failed")}</p>
        <Button
          variant="secondary"
          onClick={() => {
            void flows.refetch();
            void layout.refetch();
          }}
        >
          {t("common.retry")}
        </Button>
      </Alert>
    );
  }

  const notice = flowsData.demo ? null : noDataNotice(flowsData.last_data_day, today);
  return (
    <div className="dashboard stack">
      {isProPrompt && (
        <Alert status="error">
          <p>{t("errors.codes.pro_required")}</p>
          <Link to={UPGRADE_PATH}>{t("dashboard.upgrade.action")}</Link>
        </Alert>
      )}
      {flowsData.demo && <DemoBanner isSignedIn={auth.userType === "full"} />}
      {notice && (
        <NoDataNotice
          notice={notice}
          lastDataDay={flowsData.last_data_day}
          onManualEntry={() => {
            selectTab("graphs");
            setWantsManualEntry(true);
          }}
        />
      )}
      <DateRangePicker state={dateState} range={{ startDate, endDate }} today={today} />
      <DashboardTabs
        label={t("dashboard.tabs.label")}
        tabs={[
          { key: "health", label: t("dashboard.tabs.health") },
          { key: "graphs", label: t("dashboard.tabs.graphs") },
        ]}
        selected={tab}
        onSelect={selectTab}
      >
        {tab === "health" ? (
          <HealthDataTab
            flows={flowsData}
            tableParameters={layout.data.table_parameters}
            range={healthRange}
            context={context}
            onTagsChange={setTags}
            onProRequired={onProRequired}
          />
        ) : (
          <MyGraphsTab
            flows={flowsData}
            layout={layout.data}
            range={range}
            context={context}
            manualHeadingRef={manualHeadingRef}
            onProRequired={onProRequired}
          />
        )}
      </DashboardTabs>
    </div>
  );
}
