// Seeds and mutations for the readers' fuzz tests (fuzz.test.ts): one file of each format the readers
// take, shaped as the real exports are, the bytes that matter to those formats, and a mutator.
import fc from "fast-check";
import { emptyCounts, generateAppleHealthExport } from "./synthetic-apple-health.ts";

const enc = new TextEncoder();
export const utf8 = (s: string) => enc.encode(s);

export const APPLE_HEALTH = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;">
<!ATTLIST Record type CDATA #REQUIRED unit CDATA #IMPLIED value CDATA #IMPLIED HKMetadataKeySyncVersion CDATA (#IMPLIED
<!-- ]> in a comment -->
]>
<HealthData locale="ru_RU">
 <ExportDate value="2024-03-01 09:00:00 +0100"/>
 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Часы &amp; \u000b" unit="count/min" startDate="2024-02-01 08:00:00 +0300" endDate="2024-02-01 08:00:00 +0300" value="66">
  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>
 </Record>
 <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2024-02-01 08:10:00 +0300" endDate="2024-02-01 08:11:00 +0300" value="48.5">
  <HeartRateVariabilityMetadataList>
   <InstantaneousBeatsPerMinute bpm="62" time="8:10:01,00 AM"/>
   <InstantaneousBeatsPerMinute bpm="64" time="8:10:02,00 AM"/>
  </HeartRateVariabilityMetadataList>
 </Record>
 <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" startDate="2024-02-01 01:00:00 +0300" endDate="2024-02-01 02:30:00 +0300" value="HKCategoryValueSleepAnalysisAsleepDeep"/>
 <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="lb" startDate="2024-02-02 07:00:00 +0300" endDate="2024-02-02 07:00:00 +0300" value="160.5"/>
 <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" startDate="2024-02-02 07:05:00 +0300" endDate="2024-02-02 07:05:00 +0300">
  <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="2024-02-02 07:05:00 +0300" endDate="2024-02-02 07:05:00 +0300" value="121"/>
  <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Omron" unit="mmHg" startDate="2024-02-02 07:05:00 +0300" endDate="2024-02-02 07:05:00 +0300" value="79"/>
 </Correlation>
 <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" totalDistance="5" totalDistanceUnit="km" totalEnergyBurned="300" totalEnergyBurnedUnit="kcal" sourceName="Watch" startDate="2024-02-03 07:00:00 +0300" endDate="2024-02-03 07:30:00 +0300">
  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2024-02-03 07:00:00 +0300" endDate="2024-02-03 07:30:00 +0300" sum="5" unit="km"/>
 </Workout>
 <Record type="HKQuantityTypeIdentifierFlightsClimbed" sourceName="Phone" unit="count" startDate="2024-02-03 09:00:00 +0300" endDate="2024-02-03 09:10:00 +0300" value="3"/>
 <![CDATA[ <Record type="x"/> ]]>
 <?processing instruction?>
</HealthData>
`;

export async function syntheticExport(bytes: number): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of generateAppleHealthExport(bytes, emptyCounts(), 16 * 1024)) parts.push(chunk);
  return new TextDecoder().decode(Buffer.concat(parts));
}

export const CSV_EXPORTS = [
  // Samsung Health: a metadata line, then prefixed columns and a time offset.
  "com.samsung.health.heart_rate,6313011,12\ncom.samsung.health.heart_rate.start_time,com.samsung.health.heart_rate.end_time,com.samsung.health.heart_rate.time_offset,com.samsung.health.heart_rate.heart_rate\n2024-01-02 08:00:00.000,2024-01-02 08:00:59.000,UTC+0300,61\n2024-01-02 08:01:00.000,2024-01-02 08:01:59.000,UTC+0300,63.5\n",
  "com.samsung.health.blood_pressure,6313011,12\nstart_time,end_time,systolic,diastolic,pulse\n2024-01-02 08:00:00.000,2024-01-02 08:00:00.000,120,80,66\n",
  // Oura trends, Whoop cycles, Withings weight and bp, Fitbit Takeout, Google Fit.
  "date,Sleep Score,Average Resting Heart Rate,Average HRV,Total Sleep Duration,Steps,Respiratory Rate\n2024-01-02,80,52,48,27000,8123,14.5\n2024-01-03,81,51,,26800,9001,14.6\n",
  "Cycle start time,Cycle end time,Cycle timezone,Resting heart rate (bpm),Heart rate variability (ms),Blood oxygen %,Skin temp (celsius),Respiratory rate (rpm),Asleep duration (min),Energy burned (cal)\n2024-01-02 22:00:00,2024-01-03 21:00:00,UTC+03:00,52,48,96.5,33.7,16.1,450,2100\n",
  'Date,Weight (kg),Fat mass (kg),Bone mass (kg),Muscle mass (kg),Comments\n"2024-01-02 08:00:00",72.5,15.1,3.1,54.2,"a ""quoted"" comment"\n',
  "Date,Heart rate,Systolic,Diastolic,Comments\n2024-01-02 08:00:00,66,121,79,\n02.01.2024 09:00,67;122;80\n",
  "timestamp,beats per minute\n2024-01-02T08:00:00Z,61\n2024-01-02T08:00:05Z,62\n",
  "Date,Step count,Distance (m),Calories (kcal),Average weight (kg)\n2024-01-02,8123,6100.5,350,72.5\n",
];

export const FITBIT_JSON = `[{"dateTime":"01/02/24 08:00:00","value":{"bpm":61,"confidence":2}},{"dateTime":"01/02/24 08:00:05","value":{"bpm":62,"confidence":3}}]`;

export const GENERIC_CSV =
  "time;heart rate;weight (kg);systolic;diastolic\n02.01.2024 08:00;61;72,5;120;80\n03.01.2024 08:00;63;72,4;121;79\n";
export const GENERIC_MAPPING = {
  time: "time",
  timeFormat: "dmy" as const,
  columns: [
    { column: "heart rate", metric: "heart_rate" },
    { column: "weight (kg)", metric: "weight", unit: "kg" },
  ],
  bp: { systolic: "systolic", diastolic: "diastolic" },
};

export const RR_TEXTS = [
  "812\n790\n805\n1000\n",
  "0,812\n0,790\n0,805\n",
  "[812, 790, 805, 823]",
  "timestamp,rr\n2024-01-02 08:00:00,812\n2024-01-02 08:00:01,790\n",
  "Time (s),RR (s)\n0.812,0.812\n1.602,0.790\n",
  'rr_data\n"812 790 805 823 799"\n',
];

/** Bytes that matter to these formats, spliced in by the mutator. */
export const TOKENS = [
  "<",
  ">",
  "/>",
  "</Record>",
  "<Record ",
  '"',
  "'",
  "=",
  "&",
  "&lol1;",
  "&#0;",
  "&#x110000;",
  "]]>",
  "<!--",
  "<!DOCTYPE x [",
  "<![CDATA[",
  "\u0000",
  "\u000b",
  "\uFEFF",
  "\uFFFD",
  "\uD800",
  ",",
  ";",
  "\t",
  "\r",
  "\n",
  '""',
  "NaN",
  "Infinity",
  "-1e309",
  "1e308",
  "9999-99-99 99:99:99",
  "0000-00-00",
  "+2400",
  "UTC+9999",
  "[",
  "]",
  "{",
  "}",
  "null",
  "e",
  "é",
  "𝔸",
].map(utf8);

export type Mutation =
  | { op: "set"; at: number; byte: number }
  | { op: "insert"; at: number; bytes: Uint8Array }
  | { op: "token"; at: number; token: number }
  | { op: "delete"; at: number; length: number }
  | { op: "repeat"; at: number; length: number; times: number }
  | { op: "truncate"; at: number };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("set" as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ op: fc.constant("insert" as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 16 }) }),
  fc.record({ op: fc.constant("token" as const), at: fc.nat(), token: fc.nat(TOKENS.length - 1) }),
  fc.record({ op: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 64 }) }),
  fc.record({
    op: fc.constant("repeat" as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 200 }),
    times: fc.integer({ min: 2, max: 50 }),
  }),
  fc.record({ op: fc.constant("truncate" as const), at: fc.nat() }),
);

export function mutate(seed: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  let bytes = seed;
  for (const m of mutations) {
    const at = bytes.length === 0 ? 0 : m.at % (bytes.length + 1);
    const before = bytes.subarray(0, at);
    const after = bytes.subarray(at);
    switch (m.op) {
      case "set":
        if (at < bytes.length) {
          bytes = bytes.slice();
          bytes[at] = m.byte;
        }
        break;
      case "insert":
        bytes = Buffer.concat([before, m.bytes, after]);
        break;
      case "token":
        bytes = Buffer.concat([before, TOKENS[m.token] as Uint8Array, after]);
        break;
      case "delete":
        bytes = Buffer.concat([before, bytes.subarray(Math.min(bytes.length, at + m.length))]);
        break;
      case "repeat": {
        const piece = bytes.subarray(at, at + m.length);
        bytes = Buffer.concat([before, ...Array.from({ length: m.times }, () => piece), after]);
        break;
      }
      case "truncate":
        bytes = before;
        break;
    }
  }
  return new Uint8Array(bytes);
}

/** A case: either a mutated seed or raw bytes, cut into chunks of one size (chunk edges matter). */
export function inputs(seeds: readonly Uint8Array[]) {
  return fc.record({
    bytes: fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(fc.nat(seeds.length - 1), fc.array(mutation, { minLength: 1, maxLength: 8 }))
          .map(([i, ms]) => mutate(seeds[i] as Uint8Array, ms)),
      },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2048 }) },
    ),
    chunk: fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 17, max: 70_000 })),
  });
}
