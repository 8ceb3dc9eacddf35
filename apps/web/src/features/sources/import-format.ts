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
