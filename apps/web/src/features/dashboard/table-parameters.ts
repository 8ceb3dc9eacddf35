import { DASHBOARD_LIMITS, type MetricKey } from "@tonus/contract";

/**
 * Adds or removes one parameter of the stats table. The table takes at most 8 (spec §5: "you can't
 * add more than 8 parameters to the table"): a 9th is refused here, before anything is sent; the
 * server refuses it too (code `table_limit`).
 */
export function toggleParameter(
  current: readonly MetricKey[],
  metric: MetricKey,
): { parameters: MetricKey[] } | { error: "table_limit" } {
  if (current.includes(metric)) return { parameters: current.filter((m) => m !== metric) };
  if (current.length >= DASHBOARD_LIMITS.tableMaxParameters) return { error: "table_limit" };
  return { parameters: [...current, metric] };
}
