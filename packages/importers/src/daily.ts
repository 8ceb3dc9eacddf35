/**
 * The client id of a daily total: one value per metric and calendar day, whatever route brought it. A
 * vendor's export file and its cloud API both report steps (or sleep, or a night's rMSSD) per day;
 * stored under the same source with this id, the second one replaces the first instead of adding to
 * the day's sum. `day` is the local calendar date the vendor names (`YYYY-MM-DD`).
 */
export function dailyClientId(day: string, metric: string): string {
  return `day:${day}:${metric}`;
}

/** The local calendar date (`YYYY-MM-DD`) of `atMs` at `offsetMin` minutes east of UTC. */
export function localDate(atMs: number, offsetMin: number): string {
  return new Date(atMs + offsetMin * 60_000).toISOString().slice(0, 10);
}
