import type { UserDataSection } from "../../lib/registry.ts";

/**
 * Linked social sign-in identities: exported so the person sees them, never imported (an edited
 * archive naming someone else's provider subject would take over their sign-in).
 */
export const socialDataSection: UserDataSection = {
  name: "social",
  tables: { social_identities: { policy: "exported" } },
};
