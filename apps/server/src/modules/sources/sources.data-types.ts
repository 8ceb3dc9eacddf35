import type { MetricKey, SourceDataType } from "@tonus/contract";

/**
 * The data type a dashboard metric is evidence of. Indices computed from blood pressure and HRV together
 * (Kerdo, Robinson, …) are evidence of neither.
 */
export const DATA_TYPE_OF_METRIC: Record<MetricKey, SourceDataType | null> = {
  heart_rate: "heart_rate",
  walking_heart_rate: "heart_rate",
  resting_heart_rate: "resting_heart_rate",
  // The indices of an RR series.
  stress: "hrv",
  energy: "hrv",
  productivity: "hrv",
  meanrr: "hrv",
  stdrr: "hrv",
  rmssd: "hrv",
  sdnn: "hrv",
  pnn50: "hrv",
  mxdmn: "hrv",
  amo: "hrv",
  psi: "hrv",
  pvi: "hrv",
  total_beats: "hrv",
  power: "hrv",
  vlf: "hrv",
  lf: "hrv",
  hf: "hrv",
  lfhf: "hrv",
  bp_systolic: "blood_pressure",
  bp_diastolic: "blood_pressure",
  // The pulse taken with a reading is part of the reading, not a heart-rate series.
  bp_pulse: "blood_pressure",
  kerdo: null,
  robinson: null,
  functional_changes: null,
  kek: null,
  kvas: null,
  phys_state: null,
  steps: "steps",
  distance: "distance",
  distance_cycling: "distance",
  workout_distance: "distance",
  active_energy: "energy",
  basal_energy: "energy",
  workout_energy: "energy",
  workout_duration: "workouts",
  sleep: "sleep",
  sleep_deep: "sleep",
  sleep_rem: "sleep",
  sleep_awake: "sleep",
  sleep_in_bed: "sleep",
  weight: "weight",
  height: "height",
  body_fat: "body_composition",
  body_water: "body_composition",
  muscle_mass: "body_composition",
  bone_mass: "body_composition",
  fat_mass: "body_composition",
  water: "water",
  carbohydrates: "carbohydrates",
  spo2: "spo2",
  respiratory_rate: "respiratory_rate",
  skin_temperature: "skin_temperature",
};

/** The data types a set of dashboard metrics is evidence of. */
export function dataTypesOfMetrics(metrics: Iterable<string>): Set<SourceDataType> {
  const out = new Set<SourceDataType>();
  for (const m of metrics) {
    const type = DATA_TYPE_OF_METRIC[m as MetricKey];
    if (type) out.add(type);
  }
  return out;
}
