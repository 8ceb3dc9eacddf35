import {
  DASHBOARD_LIMITS,
  type DisplayUnit,
  entryUnitsOf,
  fromDisplayUnit,
  type ManualValueCreate,
  METRIC_KEYS,
  METRICS,
  type MetricKey,
  toDisplayUnit,
} from "@tonus/contract";

/** Metrics a person may type in on the dashboard (weight, water, sleep, steps…). */
export const MANUAL_METRICS: readonly MetricKey[] = METRIC_KEYS.filter(
  (m) => "manual" in METRICS[m] && METRICS[m].manual === true,
);

export type ManualDraft = {
  metric: MetricKey;
  /** As typed: a comma is a decimal separator too ("80,5"). */
  value: string;
  unit: DisplayUnit;
  /** `datetime-local` value in the browser's time zone. */
  at: string;
};

export type ManualError =
  | { field: "value"; key: "required" | "number" }
  | { field: "value"; key: "range"; min: number; max: number; decimals: number }
  | { field: "unit"; key: "unit" }
  | { field: "at"; key: "required" | "future" };

function parseNumber(text: string): number | null {
  const normalized = text.trim().replace(/\s/g, "").replace(",", ".");
  if (!/^-?\d+(\.\d+)?$|^-?\.\d+$/.test(normalized)) return null;
  const value = Number(normalized);
  return Number.isFinite(value) ? value : null;
}

/** Decimals to show a metric's range in a unit: enough to tell its ends apart. */
function rangeDecimals(metric: MetricKey, unit: DisplayUnit): number {
  const [min, max] = METRICS[metric].range.map((v) => Math.abs(toDisplayUnit(v, unit)));
  const smallest = Math.min(...[min, max].filter((v): v is number => v !== undefined && v > 0));
  return smallest >= 10 || !Number.isFinite(smallest) ? 0 : smallest >= 1 ? 1 : 2;
}

/**
 * Checks a typed value the way the server does (modules/dashboard/dashboard.values.ts): a number, a unit
 * that fits the metric, inside the metric's plausible range once converted, a time at most 24 hours
 * ahead (clock skew). Builds the request when nothing is wrong.
 */
export function validateManualDraft(
  draft: ManualDraft,
  now: Date,
  clientId: string,
): { errors: ManualError[]; request: ManualValueCreate | null } {
  const errors: ManualError[] = [];
  const value = parseNumber(draft.value);
  if (draft.value.trim() === "") errors.push({ field: "value", key: "required" });
  else if (value === null) errors.push({ field: "value", key: "number" });
  if (!entryUnitsOf(draft.metric).includes(draft.unit)) errors.push({ field: "unit", key: "unit" });
  else if (value !== null) {
    const [min, max] = METRICS[draft.metric].range;
    const stored = fromDisplayUnit(value, draft.unit);
    if (!(stored >= min && stored <= max)) {
      // The ends are rounded inwards, so a value typed as shown is always accepted.
      const decimals = rangeDecimals(draft.metric, draft.unit);
      const f = 10 ** decimals;
      errors.push({
        field: "value",
        key: "range",
        // `+ 0` turns a rounded −0 into 0, which would otherwise read "from -0".
        min: Math.ceil(toDisplayUnit(min, draft.unit) * f - 1e-9) / f + 0,
        max: Math.floor(toDisplayUnit(max, draft.unit) * f + 1e-9) / f + 0,
        decimals,
      });
    }
  }
  const at = draft.at ? new Date(draft.at) : null;
  if (!at || Number.isNaN(at.getTime())) errors.push({ field: "at", key: "required" });
  else if (at.getTime() > now.getTime() + DASHBOARD_LIMITS.maxFutureMs)
    errors.push({ field: "at", key: "future" });
  if (errors.length || value === null || !at) return { errors, request: null };
  return {
    errors,
    request: { client_id: clientId, metric: draft.metric, value, unit: draft.unit, at: at.toISOString() },
  };
}
