/** A UUID in its text form, any version, either case (PostgreSQL's `uuid` type reads it). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
