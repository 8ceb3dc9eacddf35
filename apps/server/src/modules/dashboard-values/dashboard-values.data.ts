import type { UserDataSection } from "../../lib/registry.ts";

/**
 * Dashboard values travel with the archive (manual entries have no other home); rows that fail the
 * sanity check (unknown-looking metric or source) are skipped on import. Values derived from
 * measurements are not imported: the recompute job writes them again for the imported measurements.
 */
export const dashboardValuesDataSection: UserDataSection = {
  name: "dashboard_values",
  tables: {
    dashboard_values: {
      policy: "portable",
      importColumns: ["metric", "at", "value", "source", "client_id", "created_at", "updated_at"],
      importWhere:
        "r.metric ~ '^[a-z][a-z0-9_]{0,63}$' and r.source ~ '^[a-z][a-z0-9_.-]{0,63}$'" +
        " and r.source <> 'measurement' and length(r.client_id) <= 200",
    },
  },
};
