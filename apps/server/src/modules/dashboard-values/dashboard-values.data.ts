import type { UserDataSection } from "../../lib/registry.ts";
import { holdValueWrites, rebuildUserSummaries } from "./dashboard-values.service.ts";

/**
 * Dashboard values travel with the archive (manual entries have no other home); rows that fail the
 * sanity check (unknown-looking metric or source) are skipped on import. Values derived from
 * measurements and the blood-pressure log are not imported: those modules write them again for the
 * imported measurements and readings.
 * The daily summaries are derived: never exported, rebuilt after an import.
 * Deleting the account takes the user's dashboard lock before anything else (held until it commits):
 * `dashboard_values` has no foreign key to `users`, and this is what keeps a write in flight (an
 * import's batch) from leaving rows behind — it either commits before the deletion starts, or waits
 * and then finds no user.
 */
export const dashboardValuesDataSection: UserDataSection = {
  name: "dashboard_values",
  tables: {
    dashboard_values: {
      policy: "portable",
      importColumns: ["metric", "at", "value", "source", "client_id", "created_at", "updated_at"],
      importWhere:
        "r.metric ~ '^[a-z][a-z0-9_]{0,63}$' and r.source ~ '^[a-z][a-z0-9_.-]{0,63}$'" +
        " and r.source not in ('measurement', 'bp_log') and length(r.client_id) <= 200",
    },
    dashboard_daily: { policy: "internal" },
  },
  importExtra: (ctx) => rebuildUserSummaries(ctx.tx, ctx.userId),
  beforeDelete: (ctx) => holdValueWrites(ctx.tx, ctx.userId),
};
