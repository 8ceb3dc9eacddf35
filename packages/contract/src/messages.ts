/**
 * The schemas' own messages (refinements and patterns), by a stable key. The server answers a Russian
 * browser with the text its catalogue holds under `validation.custom.<key>`; zod's built-in checks
 * (too small, wrong type, …) are worded by the server from the issue itself.
 */
export const SCHEMA_MESSAGES = {
  email: "Enter a valid email address",
  time_zone: "Unknown time zone",
  ingest_source: "Lower-case letters, digits, '_', '.', '-'; starting with a letter",
  ingest_source_reserved: "'measurement' is reserved for Tonus's own measurements",
  systolic_above_diastolic: "Systolic pressure must be above diastolic",
  card_token: "Send a card token or a 3-D Secure token",
  date_of_birth: "Date of birth must be between 1900 and today",
  local_time: "Use the 24-hour form HH:MM",
  days_once: "Each day once",
  reminder_days: "Choose at least one day for reminders",
  tag_characters: "No commas or control characters",
  rr_too_long: "The RR series is longer than one hour",
  rr_breaks_order: "Breaks must be in increasing order",
  period_range: "Use a time between the years 1900 and 9999",
  tag_filter_characters: "No control characters",
  no_nul: "Must not contain a NUL character",
} as const;

export type SchemaMessageKey = keyof typeof SCHEMA_MESSAGES;

/** The key of one of the schemas' own messages, or undefined for any other text. */
export function schemaMessageKey(message: string): SchemaMessageKey | undefined {
  for (const [key, text] of Object.entries(SCHEMA_MESSAGES))
    if (text === message) return key as SchemaMessageKey;
  return undefined;
}
