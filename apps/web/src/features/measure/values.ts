import type { MeasurementValues } from "@tonus/contract";

export type ValueKey = keyof MeasurementValues;
type Unit = "bpm" | "ms" | "percent" | "ms2" | "ratio" | "count" | "points";

/** The §3 values grouped as the detail page shows them, with each one's unit and decimals. */
export const VALUE_GROUPS: readonly { key: "time" | "baevsky" | "frequency"; values: readonly ValueKey[] }[] =
  [
    { key: "time", values: ["heart_rate", "meanrr", "stdrr", "rmssd", "pnn50", "mxdmn", "total_beats"] },
    { key: "baevsky", values: ["amo", "psi", "pvi"] },
    { key: "frequency", values: ["power", "vlf", "lf", "hf", "lfhf"] },
  ];

export const VALUE_UNITS: Record<ValueKey, { unit: Unit; decimals: number }> = {
  heart_rate: { unit: "bpm", decimals: 0 },
  meanrr: { unit: "ms", decimals: 0 },
  stdrr: { unit: "ms", decimals: 1 },
  rmssd: { unit: "ms", decimals: 1 },
  pnn50: { unit: "percent", decimals: 1 },
  mxdmn: { unit: "ms", decimals: 0 },
  amo: { unit: "percent", decimals: 1 },
  psi: { unit: "points", decimals: 0 },
  pvi: { unit: "points", decimals: 0 },
  power: { unit: "ms2", decimals: 0 },
  vlf: { unit: "ms2", decimals: 0 },
  lf: { unit: "ms2", decimals: 0 },
  hf: { unit: "ms2", decimals: 0 },
  lfhf: { unit: "ratio", decimals: 2 },
  total_beats: { unit: "count", decimals: 0 },
};

/** The blood-pressure and adaptation indices, in the order the page lists them. */
export const BP_INDEX_KEYS = [
  "kerdo",
  "robinson",
  "functional_changes",
  "kek",
  "kvas",
  "phys_state",
] as const;

export function formatNumber(value: number, decimals: number, localeTag: string): string {
  return new Intl.NumberFormat(localeTag, {
    maximumFractionDigits: decimals,
    minimumFractionDigits: decimals,
  }).format(value);
}
