import type { UserDataSection } from "../../lib/registry.ts";
import { IMPORT_AREA } from "./imports.files.ts";
import { storedNamesOf } from "./imports.repo.ts";

/**
 * The person's import history travels in the archive so they see what they imported (the values
 * themselves are the dashboard's); it is never imported back: it describes files this server held.
 * Uploaded files still kept (an import in progress) are removed once the account's rows are gone; a
 * run still going finds its import deleted at its next batch and stops.
 */
export const importsDataSection: UserDataSection = {
  name: "imports",
  tables: {
    imports: {
      policy: "exported",
      exportOmit: ["stored_name", "checkpoint", "options", "preview", "locked_until", "locked_by", "sha256"],
    },
  },
  deleteExtra: async (ctx) => {
    const names = await storedNamesOf(ctx.tx, ctx.userId);
    for (const name of names) await ctx.removeFile(IMPORT_AREA, name);
  },
};
