import type { UserDataSection } from "../../lib/registry.ts";

/**
 * Share links: listed in the export without their token hash; never imported (a link is a capability
 * the owner creates again on the new installation); deleted with the account, so old links stop working.
 */
export const sharesDataSection: UserDataSection = {
  name: "shares",
  tables: { share_links: { policy: "exported", exportOmit: ["token_hash"] } },
};
