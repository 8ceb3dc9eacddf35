// Helpers for plain SQL through drizzle's `execute`, shared by both drivers. No imports: worker threads
// load this without the database client.

/** The rows of an `execute` result (node-postgres and PGlite both answer `{ rows }`). */
export const rowsOf = <T>(r: unknown): T[] => (r as { rows: T[] }).rows;

/**
 * A PostgreSQL array literal of items that need no quoting (ids, uuids, event types, ISO times): one
 * parameter, cast in SQL (`::uuid[]`), instead of one parameter per item.
 */
export const arrayLiteral = (items: readonly string[]): string => `{${items.join(",")}}`;

/** The SQLSTATE of a database error, whichever driver raised it (drizzle wraps it in `cause`). */
export const pgErrorCode = (error: unknown): string | undefined =>
  (error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
