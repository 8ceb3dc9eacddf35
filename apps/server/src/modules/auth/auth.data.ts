import type { UserDataSection } from "../../lib/registry.ts";

/**
 * The account row and its credentials. The `users` row travels (profile fields only: never the password
 * hash, role, billing state or customer override, which an edited archive must not be able to set);
 * imported into an existing account it keeps that account's e-mail, user name and creation time.
 * Sessions, API tokens and one-time codes are secrets and only ever deleted.
 */
export const accountDataSection: UserDataSection = {
  name: "account",
  tables: {
    users: {
      policy: "portable",
      key: "id",
      exportOmit: ["password_hash"],
      importColumns: [
        "email",
        "username",
        "name",
        "gender",
        "date_of_birth",
        "height_cm",
        "weight_kg",
        "units",
        "energy_unit",
        "newsletter_language",
        "timezone",
        "is_ios_user",
        "is_android_user",
        "created_at",
      ],
      identityColumns: ["email", "username", "created_at"],
    },
    sessions: { policy: "credentials" },
    api_tokens: { policy: "credentials" },
    one_time_codes: { policy: "credentials" },
  },
};
