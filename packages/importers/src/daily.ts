/**
 * The client id of a daily total: one value per metric and calendar day, whatever route brought it. A
 * vendor's export file and its cloud API both report steps (or sleep, or a night's rMSSD) per day;
 * stored under the same source with this id, the second one replaces the first instead of adding to
 * the day's sum. `day` is the local calendar date the vendor names (`YYYY-MM-DD`).
 */
export function dailyClientId(day: string, metric: string): string {
  return `day:${day}:${metric}`;
}

/**
 * Whether a client id is a daily total's (`dailyClientId`): its value's time is the day's noon in some
 * zone, so another import or a cloud sync can bring it at another instant, while every other importer's
 * id fixes its value's metric and time.
 */
export function isDailyClientId(clientId: string): boolean {
  return clientId.startsWith("day:");
}

/** The local calendar date (`YYYY-MM-DD`) of `atMs` at `offsetMin` minutes east of UTC. */
export function localDate(atMs: number, offsetMin: number): string {
  return new Date(atMs + offsetMin * 60_000).toISOString().slice(0, 10);
}
