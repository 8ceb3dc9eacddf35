import type { UserDataSection } from "../../lib/registry.ts";
import { backfillIftttEvents } from "./ifttt.backfill.ts";

/**
 * IFTTT: trigger identities (which applets poll), the copies of new measurements and readings the
 * triggers report, and the notices waiting for IFTTT's realtime API. All plumbing derived from other
 * sections: not exported, deleted with the account. An archive import restores readings and
 * measurements without domain events, so their trigger events are written once it has.
 */
export const iftttDataSection: UserDataSection = {
  name: "ifttt",
  tables: {
    ifttt_trigger_identities: { policy: "internal" },
    ifttt_events: { policy: "internal" },
    ifttt_realtime_pending: { policy: "internal" },
  },
  afterImport: async (ctx) => void (await backfillIftttEvents(ctx.tx, ctx.userId)),
};
