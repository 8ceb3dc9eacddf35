import type { UserDataSection } from "../../lib/registry.ts";
import { holdValueWrites, rebuildUserSummaries } from "./dashboard-values.service.ts";

/**
 * Dashboard values travel with the archive (manual entries have no other home), the bulk store's blocks
 * too; rows that fail the sanity check (unknown-looking metric or source) are skipped on import. Values derived from
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
    // An import's samples, a block per source, metric and UTC day; a block an edited archive could not
    // have come from (arrays of unequal length, holes, times outside its day, a key twice) is skipped.
    dashboard_samples: {
      policy: "portable",
      importColumns: ["source", "metric", "day", "n", "at_ms", "vals", "keys", "updated_at"],
      importWhere:
        "r.metric ~ '^[a-z][a-z0-9_]{0,63}$' and r.source ~ '^[a-z][a-z0-9_.-]{0,63}$'" +
        " and r.source not in ('measurement', 'bp_log') and r.n > 0 and cardinality(r.at_ms) = r.n" +
        " and cardinality(r.vals) = r.n and cardinality(r.keys) = r.n and array_position(r.at_ms, null) is null" +
        " and array_position(r.vals, null) is null and array_position(r.keys, null) is null" +
        " and not exists (select 1 from unnest(r.at_ms, r.vals, r.keys) as u(a, v, k)" +
        "   where u.a < (r.day - date '1970-01-01')::int8 * 86400000" +
        "     or u.a >= (r.day - date '1970-01-01' + 1)::int8 * 86400000" +
        "     or u.v = 'NaN'::float8 or u.v in ('Infinity'::float8, '-Infinity'::float8)" +
        "     or length(u.k) > 200)" +
        " and (select count(distinct k) from unnest(r.keys) as k) = r.n",
    },
    dashboard_daily: { policy: "internal" },
  },
  importExtra: (ctx) => rebuildUserSummaries(ctx.tx, ctx.userId),
  beforeDelete: (ctx) => holdValueWrites(ctx.tx, ctx.userId),
};
