import type { UserDataSection } from "../../lib/registry.ts";

/**
 * Measurements travel with the archive as what the person recorded (the raw RR series, source, time,
 * feelings, tags). What the server computed is not imported: an imported row has no `result` and the
 * recompute job computes it, so an edited archive cannot plant values the RR does not give.
 */
export const measurementsDataSection: UserDataSection = {
  name: "measurements",
  tables: {
    measurements: {
      policy: "portable",
      // Copies of three numbers of `result`, which the archive carries whole.
      exportOmit: ["baseline_rmssd", "baseline_psi", "baseline_heart_rate"],
      importColumns: [
        "client_id",
        "source",
        "device",
        "started_at",
        "time_zone",
        "rr_ms",
        "rr_breaks",
        "feel",
        "mood",
        "tags",
        "labels",
        "created_at",
      ],
      importWhere:
        "r.source in ('camera', 'strap', 'watch', 'file', 'app') and jsonb_typeof(r.rr_ms) = 'array'" +
        " and jsonb_array_length(r.rr_ms) between 20 and 5000 and length(r.time_zone) <= 64" +
        " and (r.rr_breaks is null or (jsonb_typeof(r.rr_breaks) = 'array' and jsonb_array_length(r.rr_breaks) <= 5000))" +
        " and (r.feel is null or r.feel between 1 and 5) and (r.mood is null or r.mood between 1 and 5)" +
        " and cardinality(r.tags) <= 20 and cardinality(r.labels) <= 20",
    },
  },
};
