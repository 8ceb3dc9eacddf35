import {
  type ChartFlows,
  type ChartPeriod,
  type DisplayUnit,
  type LocalizedText,
  METRICS,
  type MetricKey,
} from "@tonus/contract";
import { dayToMs } from "./dates.ts";

/** Texts the server holds in both languages (items, units, categories), picked by the UI language. */
export function pick(text: LocalizedText, language: string): string {
  return language.startsWith("ru") ? text.ru : text.en;
}

/**
 * Labels of display units from the catalogue: its table of every unit's label, else each chart item's
 * first metric's unit labels in the metric and imperial systems.
 */
export function unitLabelsOf(
  flows: Pick<ChartFlows, "items"> & Partial<Pick<ChartFlows, "unit_labels">>,
): Map<DisplayUnit, LocalizedText> {
  const labels = new Map<DisplayUnit, LocalizedText>();
  for (const item of flows.items) {
    const first = item.series[0]?.metric;
    if (!first) continue;
    const units = METRICS[first].units;
    if (!labels.has(units.metric)) labels.set(units.metric, item.unit.metric_label);
    if (!labels.has(units.imperial)) labels.set(units.imperial, item.unit.imperial_label);
  }
  for (const [unit, label] of Object.entries(flows.unit_labels ?? {}))
    labels.set(unit as DisplayUnit, label as LocalizedText);
  return labels;
}

/** Metric names (spec "Metric labels") from the catalogue's series. */
export function metricLabelsOf(flows: Pick<ChartFlows, "items">): Map<MetricKey, LocalizedText> {
  const labels = new Map<MetricKey, LocalizedText>();
  for (const item of flows.items)
    for (const s of item.series) if (!labels.has(s.metric)) labels.set(s.metric, s.label);
  return labels;
}

const numberFormats = new Map<string, Intl.NumberFormat>();

/** A number in the UI language with at most `decimals` fraction digits (1 234,5 in ru, 1,234.5 in en). */
export function formatNumber(value: number, decimals: number, language: string): string {
  const key = `${language}:${decimals}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(language, { maximumFractionDigits: decimals });
    numberFormats.set(key, format);
  }
  return format.format(value);
}

/** A value with its unit label, e.g. "80.5 kg"; a unit without a label (scores, indices) adds nothing. */
export function formatValue(value: number, decimals: number, unitLabel: string, language: string): string {
  const number = formatNumber(value, decimals, language);
  return unitLabel ? `${number} ${unitLabel}` : number;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

function dateFormat(language: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${language}:${JSON.stringify(options)}`;
  let format = dateFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(language, { ...options, timeZone: "UTC" });
    dateFormats.set(key, format);
  }
  return format;
}

/** A local calendar day as text in the UI language ("3 Nov 2025", "3 нояб. 2025 г."). */
export function formatDay(day: string, language: string): string {
  return dateFormat(language, { day: "numeric", month: "short", year: "numeric" }).format(dayToMs(day));
}

/** A bucket as text: the day, the week's first day, or the month ("November 2025"). */
export function formatBucket(t: string, period: ChartPeriod, language: string): string {
  if (period === "month") return dateFormat(language, { month: "long", year: "numeric" }).format(dayToMs(t));
  return formatDay(t, language);
}

/** A range of days as text, e.g. "1 Nov 2025 – 30 Nov 2025". */
export function formatRange(startDate: string, endDate: string, language: string): string {
  return dateFormat(language, { day: "numeric", month: "short", year: "numeric" }).formatRange(
    dayToMs(startDate),
    dayToMs(endDate),
  );
}

/** Axis labels of a day axis (seconds of UTC midnights), coarser as ticks grow further apart. */
export function formatAxisDay(seconds: number, incrementS: number, language: string): string {
  const ms = seconds * 1000;
  if (incrementS < 28 * 86_400) return dateFormat(language, { day: "numeric", month: "short" }).format(ms);
  if (incrementS < 365 * 86_400) return dateFormat(language, { month: "short", year: "2-digit" }).format(ms);
  return dateFormat(language, { year: "numeric" }).format(ms);
}
