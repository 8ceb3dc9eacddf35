// Sample files of each file importer the catalogue names, in the formats the exports really have (the
// same shapes packages/importers' tests read), together holding every kind of data each importer reads.
// The catalogue truth test uploads them and looks at what got stored.
import fs from "node:fs";
import path from "node:path";
import type { FileImporter } from "@tonus/contract";
import { QUANTITY_TYPES } from "@tonus/importers";
import { FitWriter, fileId, fitTime } from "../../../../../../packages/importers/test/fit-writer.ts";

export type SampleFile = { name: string; data: Uint8Array; fields?: Record<string, string> };

const utf8 = (s: string) => new TextEncoder().encode(s);
const FIT_DIR = path.resolve(import.meta.dirname, "../../../../../../packages/importers/test/fixtures/fit");
const fitFixture = (name: string) => new Uint8Array(fs.readFileSync(path.join(FIT_DIR, name)));

/** A plausible value of each HealthKit quantity type, in a unit the Health app writes it in. */
const HEALTHKIT_VALUES: Record<string, [string, number]> = {
  HKQuantityTypeIdentifierHeartRate: ["count/min", 61],
  HKQuantityTypeIdentifierRestingHeartRate: ["count/min", 55],
  HKQuantityTypeIdentifierWalkingHeartRateAverage: ["count/min", 96],
  HKQuantityTypeIdentifierHeartRateVariabilitySDNN: ["ms", 48],
  HKQuantityTypeIdentifierStepCount: ["count", 120],
  HKQuantityTypeIdentifierDistanceWalkingRunning: ["km", 1.2],
  HKQuantityTypeIdentifierDistanceCycling: ["km", 5],
  HKQuantityTypeIdentifierActiveEnergyBurned: ["kcal", 100],
  HKQuantityTypeIdentifierBasalEnergyBurned: ["kcal", 1500],
  HKQuantityTypeIdentifierBodyMass: ["kg", 70.2],
  HKQuantityTypeIdentifierHeight: ["cm", 175],
  HKQuantityTypeIdentifierBodyFatPercentage: ["%", 0.21],
  HKQuantityTypeIdentifierBloodPressureSystolic: ["mmHg", 121],
  HKQuantityTypeIdentifierBloodPressureDiastolic: ["mmHg", 79],
  HKQuantityTypeIdentifierDietaryWater: ["mL", 500],
  HKQuantityTypeIdentifierDietaryCarbohydrates: ["g", 50],
  HKQuantityTypeIdentifierOxygenSaturation: ["%", 0.97],
  HKQuantityTypeIdentifierRespiratoryRate: ["count/min", 15],
};

function appleHealthExport(): string {
  const date = (h: number, m = 0) =>
    `2024-02-01 ${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:00 +0300`;
  const records = Object.keys(QUANTITY_TYPES).map((type, i) => {
    const [unit, value] = HEALTHKIT_VALUES[type] ?? ["count", 1];
    return ` <Record type="${type}" sourceName="Watch" unit="${unit}" startDate="${date(9, i)}" endDate="${date(9, i)}" value="${value}"/>`;
  });
  const beats = Array.from(
    { length: 60 },
    (_, i) =>
      `   <InstantaneousBeatsPerMinute bpm="${60 + (i % 7)}" time="10:00:${String(i).padStart(2, "0")},00 AM"/>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<HealthData locale="en_US">
${records.join("\n")}
 <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="${date(10)}" endDate="${date(10, 1)}" value="52">
  <HeartRateVariabilityMetadataList>
${beats.join("\n")}
  </HeartRateVariabilityMetadataList>
 </Record>
 <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" startDate="${date(1)}" endDate="${date(2)}" value="HKCategoryValueSleepAnalysisAsleepDeep"/>
 <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" startDate="${date(2)}" endDate="${date(3)}" value="HKCategoryValueSleepAnalysisAsleepREM"/>
 <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" startDate="${date(8)}" endDate="${date(8)}">
  <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="${date(8)}" endDate="${date(8)}" value="122"/>
  <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Omron" unit="mmHg" startDate="${date(8)}" endDate="${date(8)}" value="80"/>
 </Correlation>
 <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" totalDistance="5" totalDistanceUnit="km" totalEnergyBurned="300" totalEnergyBurnedUnit="kcal" sourceName="Watch" startDate="${date(7)}" endDate="${date(7, 30)}"/>
</HealthData>
`;
}

/** The FIT messages no fixture holds: sleep levels, SpO2, respiration, overnight HRV, a body-composition weigh-in. */
function wellnessFit(): Uint8Array {
  const t0 = Date.UTC(2024, 1, 1, 0);
  const w = fileId(new FitWriter(), 3_001_001, t0, 49);
  [2, 3, 4, 1, 2].forEach((level, i) => {
    w.message(275, [
      { num: 253, type: "uint32", value: fitTime(t0) + i * 3600 },
      { num: 0, type: "enum", value: level },
    ]);
  });
  w.message(269, [
    { num: 253, type: "uint32", value: fitTime(t0) + 600 },
    { num: 0, type: "uint8", value: 96 },
  ]);
  w.message(297, [
    { num: 253, type: "uint32", value: fitTime(t0) + 700 },
    { num: 0, type: "sint16", value: 1450 },
  ]);
  w.message(371, [
    { num: 253, type: "uint32", value: fitTime(t0) + 800 },
    { num: 0, type: "uint16", value: 48 * 128 },
  ]);
  w.message(30, [
    { num: 253, type: "uint32", value: fitTime(t0) + 25_000 },
    { num: 0, type: "uint16", value: 7240 },
    { num: 1, type: "uint16", value: 2150 },
    { num: 5, type: "uint16", value: 5500 },
  ]);
  return w.finish();
}

const samsung = (type: string, columns: string[], row: string) =>
  utf8(`${type},6313011,12\n${columns.map((c) => `${type}.${c}`).join(",")}\n${row}\n`);

/** Files per importer; each set together holds every kind of data its importer reads. */
export const ROUTE_SAMPLES: Record<FileImporter, SampleFile[]> = {
  apple_health: [{ name: "export.xml", data: utf8(appleHealthExport()) }],
  fit: [
    { name: "garmin-fenix-5-run.fit", data: fitFixture("garmin-fenix-5-run.fit") },
    { name: "MonitoringFile.fit", data: fitFixture("MonitoringFile.fit") },
    { name: "WeightScaleSingleUser.fit", data: fitFixture("WeightScaleSingleUser.fit") },
    { name: "wellness.fit", data: wellnessFit() },
  ],
  samsung_health: [
    {
      name: "com.samsung.health.heart_rate.csv",
      data: samsung(
        "com.samsung.health.heart_rate",
        ["start_time", "end_time", "heart_rate"],
        "2024-02-01 07:00:00.000,2024-02-01 07:00:59.000,61",
      ),
    },
    {
      name: "com.samsung.shealth.step_count.csv",
      data: samsung(
        "com.samsung.health.step_count",
        ["start_time", "count", "distance", "calorie"],
        "2024-02-01 07:00:00.000,120,90.5,4.2",
      ),
    },
    {
      name: "com.samsung.health.weight.csv",
      data: samsung(
        "com.samsung.health.weight",
        ["start_time", "weight", "body_fat", "skeletal_muscle_mass"],
        "2024-02-01 07:00:00.000,72.4,21.5,31.2",
      ),
    },
    {
      name: "com.samsung.health.oxygen_saturation.csv",
      data: samsung(
        "com.samsung.health.oxygen_saturation",
        ["start_time", "spo2"],
        "2024-02-01 03:00:00.000,96",
      ),
    },
    {
      name: "com.samsung.shealth.blood_pressure.csv",
      data: samsung(
        "com.samsung.shealth.blood_pressure",
        ["start_time", "systolic", "diastolic", "pulse"],
        "2024-02-01 07:00:00.000,124,81,66",
      ),
    },
  ],
  fitbit: [
    {
      name: "Daily Heart Rate Variability Summary.csv",
      data: utf8("timestamp,rmssd,nremhr,entropy\n2024-02-01T00:00:00,41.2,55.1,2.9\n"),
    },
    { name: "heart_rate.csv", data: utf8("timestamp,beats per minute\n2024-02-01T06:00:05,62\n") },
    { name: "steps.csv", data: utf8("timestamp,steps\n2024-02-01T06:00:00,12\n") },
    {
      name: "resting_heart_rate-2024-02-01.json",
      data: utf8('[{"dateTime":"02/01/24 00:00:00","value":{"date":"02/01/24","value":58.5,"error":6.8}}]'),
    },
    {
      name: "weight-2024-02-01.json",
      data: utf8(
        '[{"logId":1,"weight":72.5,"bmi":23.1,"date":"02/01/24","time":"07:00:00","source":"Aria"}]',
      ),
    },
  ],
  google_fit: [
    {
      name: "Daily activity metrics.csv",
      data: utf8(
        "Date,Move Minutes count,Calories (kcal),Distance (m),Heart Points,Average heart rate (bpm),Average weight (kg),Max weight (kg),Min weight (kg),Step count\n2024-02-01,40,350,6100.5,12,72,72.5,72.6,72.4,8123\n",
      ),
    },
  ],
  oura: [
    {
      name: "oura_trends.csv",
      data: utf8(
        "date,Sleep Score,Average Resting Heart Rate,Average HRV,Total Sleep Duration,Steps,Respiratory Rate\n2024-02-01,80,52,48,27000,8123,14.5\n",
      ),
    },
  ],
  whoop: [
    {
      name: "physiological_cycles.csv",
      data: utf8(
        "Cycle start time,Cycle end time,Cycle timezone,Resting heart rate (bpm),Heart rate variability (ms),Blood oxygen %,Skin temp (celsius),Respiratory rate (rpm),Asleep duration (min),Energy burned (cal)\n2024-02-01 23:10:00,2024-02-02 22:40:00,UTC+01:00,54,61,96.5,33.4,14.8,412,2100\n",
      ),
    },
  ],
  withings: [
    {
      name: "weight.csv",
      data: utf8(
        'Date,"Weight (kg)","Fat mass (kg)","Bone mass (kg)","Muscle mass (kg)",Comments\n"2024-02-01 07:12:00",72.4,14.1,3.1,55.0,\n',
      ),
    },
    {
      name: "bp.csv",
      data: utf8('Date,"Heart rate",Systolic,Diastolic,Comments\n"2024-02-01 07:12:00",64,128,84,\n'),
    },
  ],
  rr_text: [
    {
      name: "rr.txt",
      data: utf8(`${Array.from({ length: 120 }, (_, i) => 780 + ((i * 37) % 90)).join("\n")}\n`),
      fields: { recorded_at: "2024-02-01T07:30:00+03:00" },
    },
  ],
  // The generic CSV is mapped by the person: one column per metric a mapping may name (the contract's list).
  csv: [],
};
