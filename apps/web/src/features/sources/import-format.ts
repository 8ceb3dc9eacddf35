/** Bytes as KB/MB/GB in the active locale (1 KB = 1024 bytes, as file managers show them). */
export function formatBytes(bytes: number, locale: string, units: readonly string[]): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: digits }).format(value)} ${units[unit]}`;
}

/** A share 0–1 of `done` in `total` (0 when nothing is known yet). */
export function fraction(done: number, total: number): number {
  if (!(total > 0)) return 0;
  return Math.max(0, Math.min(1, done / total));
}

/** How far an import had read, and when this page saw it (ms). */
export type ProgressSample = { atMs: number; bytes: number };

/**
 * Seconds the import still needs at the pace seen since `first`, or null until that pace means
 * something: at least 5 s and some bytes read since, and something left to read.
 */
export function timeLeftS(first: ProgressSample, now: ProgressSample, total: number): number | null {
  const elapsedMs = now.atMs - first.atMs;
  const read = now.bytes - first.bytes;
  if (elapsedMs < 5000 || read <= 0 || now.bytes >= total) return null;
  return ((total - now.bytes) / read) * (elapsedMs / 1000);
}

/** When an import ended (or was created), as its report and the list of earlier imports write it. */
export function formatImportTime(iso: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
}
