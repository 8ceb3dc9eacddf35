import type { UserDataSection } from "../../lib/registry.ts";

/** Blood-pressure readings travel with the archive; implausible rows are skipped on import. */
export const bpDataSection: UserDataSection = {
  name: "bp",
  tables: {
    bp_readings: {
      policy: "portable",
      importColumns: [
        "client_id",
        "systolic",
        "diastolic",
        "pulse",
        "measured_at",
        "time_zone",
        "arm",
        "note",
        "created_at",
        "updated_at",
      ],
      importWhere:
        "r.systolic between 60 and 300 and r.diastolic between 30 and 200 and r.systolic > r.diastolic" +
        " and (r.pulse is null or r.pulse between 25 and 250) and (r.arm is null or r.arm in ('left', 'right'))" +
        " and length(r.note) <= 500 and length(r.time_zone) <= 64",
    },
  },
};
