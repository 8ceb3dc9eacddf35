import type { UserDataSection } from "../../lib/registry.ts";

/**
 * OAuth: the person's grants (connected services) are exported so they see whom they gave access, never
 * imported (a grant is a capability the person gives again); codes and tokens are secrets, only deleted.
 * Deleting the account deletes all three, so the tokens stop working at once.
 */
export const oauthDataSection: UserDataSection = {
  name: "oauth",
  tables: {
    oauth_grants: { policy: "exported" },
    oauth_codes: { policy: "credentials" },
    oauth_tokens: { policy: "credentials" },
  },
};
