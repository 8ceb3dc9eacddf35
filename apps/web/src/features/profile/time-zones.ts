const FALLBACK_ZONES = [
  "UTC",
  "Europe/London",
  "Europe/Berlin",
  "Europe/Moscow",
  "Asia/Yekaterinburg",
  "Asia/Novosibirsk",
  "Asia/Vladivostok",
  "America/New_York",
  "America/Chicago",
  "America/Los_Angeles",
];

/** Every IANA zone the browser knows, always including the current one. */
export function listTimeZones(current: string): string[] {
  const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.(
    "timeZone",
  );
  const zones = supported && supported.length > 0 ? [...supported] : [...FALLBACK_ZONES];
  if (!zones.includes("UTC")) zones.unshift("UTC");
  if (current && !zones.includes(current)) zones.unshift(current);
  return zones;
}
