import type { MetricKey } from "@tonus/contract";
import type { TFunction } from "i18next";

/** Reasons the server gives for refused values that have their own text; others read as "other". */
const KNOWN_REASONS = new Set(["out_of_range", "malformed", "in_future", "ambiguous_owner"]);

export function reasonKey(reason: string): string {
  return `connectors.reasons.${KNOWN_REASONS.has(reason) ? reason : "other"}`;
}

/** The metrics a provider brings, named and joined as the language joins a list ("a, b and c"). */
export function metricList(metrics: readonly MetricKey[], t: TFunction, language: string): string {
  const names = metrics.map((m) => t(`connectors.metrics.${m}`));
  return new Intl.ListFormat(language, { type: "conjunction" }).format(names);
}

/** A moment in the browser's zone, in the page's language; the year only when it is not this year's. */
export function formatMoment(iso: string, language: string, now = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  if (date.getFullYear() !== now.getFullYear())
    return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(date);
  return new Intl.DateTimeFormat(language, {
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
  }).format(date);
}

/** A calendar day (`YYYY-MM-DD`) written out in the page's language. */
export function formatDay(day: string, language: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return new Intl.DateTimeFormat(language, { dateStyle: "long", timeZone: "UTC" }).format(date);
}

/** True from the day the vendor turns the API off. */
export function isRetired(retiredOn: string | null, now = new Date()): boolean {
  return retiredOn !== null && now.toISOString().slice(0, 10) >= retiredOn;
}
