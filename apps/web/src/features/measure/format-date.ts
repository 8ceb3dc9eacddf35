/** A measurement's start in its own time zone (falls back to the browser's when the zone is unknown). */
export function formatStartedAt(iso: string, timeZone: string, localeTag: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  try {
    return new Intl.DateTimeFormat(localeTag, { dateStyle: "medium", timeStyle: "short", timeZone }).format(
      date,
    );
  } catch {
    return new Intl.DateTimeFormat(localeTag, { dateStyle: "medium", timeStyle: "short" }).format(date);
  }
}
