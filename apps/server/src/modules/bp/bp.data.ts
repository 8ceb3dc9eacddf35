import { eq } from "drizzle-orm";
import { bpReadings } from "../../db/schema.ts";
import type { UserDataSection } from "../../lib/registry.ts";
import { syncReadingsToDashboard } from "./bp.service.ts";

/**
 * Blood-pressure readings travel with the archive; implausible rows are skipped on import. Imported
 * readings get new ids, so their dashboard values are written again from them (the archive's copies
 * of those values are not imported).
 */
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
  importExtra: async (ctx) => {
    const rows = await ctx.tx.select().from(bpReadings).where(eq(bpReadings.userId, ctx.userId));
    await syncReadingsToDashboard(ctx.tx, ctx.userId, rows);
  },
};
