import { CHART_ITEM_KEYS, DASHBOARD_LIMITS, isMetricKey } from "@tonus/contract";
import type { UserDataSection } from "../../lib/registry.ts";
import { upsertSettings } from "./dashboard.repo.ts";

const items = CHART_ITEM_KEYS.map((k) => `'${k}'`).join(", ");

/**
 * The dashboard's layout travels with the archive. Settings are imported field by field (the row may
 * already exist: other sections' imports write dashboard values, which records the summaries' zone);
 * unknown parameters and malformed priorities are dropped.
 */
export const dashboardDataSection: UserDataSection = {
  name: "dashboard",
  tables: {
    dashboard_charts: {
      policy: "portable",
      importColumns: ["item", "position", "created_at"],
      importWhere: `r.item in (${items}) and r.position between 0 and 1000`,
    },
    dashboard_settings: { policy: "exported", exportOmit: ["summary_tz"] },
  },
  importExtra: async (ctx, data) => {
    const row = data.tables.dashboard_settings?.[0];
    if (!row) return;
    const parameters = Array.isArray(row.table_parameters)
      ? [...new Set(row.table_parameters.filter((p): p is string => typeof p === "string" && isMetricKey(p)))]
      : [];
    const priority: Record<string, string[]> = {};
    const raw = row.source_priority;
    if (raw && typeof raw === "object" && !Array.isArray(raw))
      for (const [metric, list] of Object.entries(raw))
        if (isMetricKey(metric) && Array.isArray(list))
          priority[metric] = list.filter(
            (s): s is string => typeof s === "string" && /^[a-z][a-z0-9_.-]{0,63}$/.test(s),
          );
    await upsertSettings(ctx.tx, ctx.userId, {
      tableParameters: parameters.slice(0, DASHBOARD_LIMITS.tableMaxParameters),
      sourcePriority: priority,
      layoutInitialized: row.layout_initialized === true,
    });
  },
};
