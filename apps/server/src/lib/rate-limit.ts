import type { RawQuery } from "../db/client.ts";

export type RateLimitState = { count: number; retryAfterS: number };

/**
 * Fixed-window counter kept in the database, so limits survive restarts and are shared by every
 * instance on the same store. Adds `weight` (0 only reads) and returns the count in the window.
 */
export async function hitRateLimit(
  query: RawQuery,
  opts: { key: string; windowMs: number; weight?: number; now?: Date },
): Promise<RateLimitState> {
  const now = opts.now ?? new Date();
  const weight = opts.weight ?? 1;
  const staleBefore = new Date(now.getTime() - opts.windowMs);
  const { rows } = await query<{ count: number; window_start: Date | string }>(
    `insert into rate_limits (key, window_start, count) values ($1, $2, $3)
     on conflict (key) do update set
       count = case when rate_limits.window_start <= $4 then $3 else rate_limits.count + $3 end,
       window_start = case when rate_limits.window_start <= $4 then $2 else rate_limits.window_start end
     returning count::int as count, window_start`,
    [opts.key, now.toISOString(), weight, staleBefore.toISOString()],
  );
  const row = rows[0];
  const startMs = row ? new Date(row.window_start).getTime() : now.getTime();
  const retryAfterS = Math.max(1, Math.ceil((startMs + opts.windowMs - now.getTime()) / 1000));
  return { count: Number(row?.count ?? weight), retryAfterS };
}
