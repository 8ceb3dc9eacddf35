import type { UserDataSection } from "../../lib/registry.ts";

/**
 * IFTTT: trigger identities (which applets poll) and the copies of new measurements and readings the
 * triggers report. Both are plumbing derived from other sections: not exported, deleted with the account.
 */
export const iftttDataSection: UserDataSection = {
  name: "ifttt",
  tables: {
    ifttt_trigger_identities: { policy: "internal" },
    ifttt_events: { policy: "internal" },
  },
};
