import type { UserDataSection } from "../../lib/registry.ts";

/** Academy progress travels; rows for materials this installation does not have are skipped on import. */
export const academyDataSection: UserDataSection = {
  name: "academy",
  tables: {
    academy_progress: {
      policy: "portable",
      importColumns: ["material_id", "state", "answers", "updated_at"],
      importWhere:
        "r.state in (0, 1, 4) and exists (select 1 from academy_materials m where m.id = r.material_id)",
    },
  },
};
