import type { LocalizedText, SourceCategory, SourceDataType } from "@tonus/contract";
import type { MethodDef, SourceEntry } from "./sources.entries.ts";

/** Platforms, apps and plain files: the other half of the catalogue. */

const viaApple = (app?: string): MethodDef => ({
  kind: "aggregator",
  via: "apple-health",
  guide: "via_apple_health",
  ...(app ? { app } : {}),
});
const rrApp: MethodDef = { kind: "file", importer: "rr_text", guide: "rr_file_app" };

const APPLE_APP: LocalizedText = {
  en: "{name} writes its readings to Apple Health; Tonus imports them from the Health export together with everything else there.",
  ru: "{name} записывает показания в Apple Health; Tonus импортирует их из выгрузки «Здоровья» вместе со всем остальным.",
};
const RR_APP: LocalizedText = {
  en: "{name} records beat-to-beat intervals from a chest strap and exports them as text files, which Tonus turns into measurements with the full HRV analysis.",
  ru: "{name} записывает интервалы между ударами с нагрудного датчика и выгружает их текстовыми файлами, а Tonus превращает их в измерения с полным анализом ВСР.",
};
const FIT_APP: LocalizedText = {
  en: "{name} keeps the original FIT file of each activity recorded with a device; Tonus reads that file directly.",
  ru: "{name} хранит исходный FIT-файл каждой тренировки, записанной устройством; Tonus читает этот файл напрямую.",
};

function app(
  slug: string,
  name: string,
  monogram: string,
  hue: number,
  categories: SourceCategory[],
  dataTypes: SourceDataType[],
  description: LocalizedText,
  methods: MethodDef[],
): SourceEntry {
  const fill = (s: string) => s.replaceAll("{name}", name);
  return {
    slug,
    name,
    monogram,
    hue,
    categories,
    dataTypes,
    description: { en: fill(description.en), ru: fill(description.ru) },
    methods,
  };
}

const SLEEP: SourceDataType[] = ["sleep"];
const FOOD: SourceDataType[] = ["carbohydrates", "water"];

export const APP_ENTRIES: SourceEntry[] = [
  app(
    "apple-health",
    "Apple Health",
    "AH",
    0,
    ["platforms"],
    [
      "heart_rate",
      "rr_intervals",
      "hrv",
      "resting_heart_rate",
      "steps",
      "distance",
      "energy",
      "sleep",
      "weight",
      "body_composition",
      "height",
      "blood_pressure",
      "water",
      "carbohydrates",
      "spo2",
      "respiratory_rate",
      "workouts",
    ],
    {
      en: "Apple Health gathers what the iPhone, Apple Watch and many other apps and gadgets record. Tonus reads its export — even one of several gigabytes — as it arrives.",
      ru: "Apple Health собирает то, что записывают iPhone, Apple Watch и многие другие приложения и устройства. Tonus читает его выгрузку — даже в несколько гигабайт — по мере загрузки.",
    },
    [
      { kind: "file", importer: "apple_health", guide: "apple_health_export" },
      { kind: "mobile_app", platform: "ios", guide: "apple_health_app" },
    ],
  ),
  app(
    "health-connect",
    "Health Connect",
    "HC",
    140,
    ["platforms"],
    ["heart_rate", "steps", "sleep", "weight", "blood_pressure"],
    {
      en: "Health Connect is Android's shared store of health data. It has no export file Tonus can read: only an app on the phone can connect it.",
      ru: "Health Connect — общее хранилище медицинских данных Android. У него нет файла выгрузки, который мог бы прочитать Tonus: подключить его может только приложение на телефоне.",
    },
    [{ kind: "mobile_app", platform: "android", guide: "health_connect_app" }],
  ),
  app(
    "samsung-health",
    "Samsung Health",
    "SH",
    230,
    ["platforms"],
    ["heart_rate", "steps", "distance", "energy", "weight", "body_composition", "blood_pressure", "spo2"],
    {
      en: "Samsung Health collects data from Galaxy phones, watches and rings. Tonus reads the CSV files of its personal-data download.",
      ru: "Samsung Health собирает данные телефонов, часов и колец Galaxy. Tonus читает CSV-файлы из его выгрузки личных данных.",
    },
    [{ kind: "file", importer: "samsung_health", guide: "samsung_health_csv" }],
  ),
  app(
    "google-fit",
    "Google Fit",
    "GF",
    130,
    ["platforms"],
    ["steps", "distance", "energy", "weight"],
    {
      en: "Google Fit's daily activity metrics come out of Google Takeout as one CSV file, which Tonus reads.",
      ru: "Суточные показатели активности Google Fit выгружаются через Google Takeout одним CSV-файлом, и Tonus его читает.",
    },
    [{ kind: "file", importer: "google_fit", guide: "google_fit_takeout" }],
  ),
  app(
    "garmin-connect",
    "Garmin Connect",
    "GC",
    205,
    ["platforms"],
    ["heart_rate", "rr_intervals", "steps", "distance", "energy", "sleep", "workouts"],
    {
      en: "Garmin Connect keeps the original FIT file of every activity; Tonus reads it, and the FIT files copied from a Garmin device.",
      ru: "Garmin Connect хранит исходный FIT-файл каждой тренировки; Tonus читает его, а также FIT-файлы, скопированные с устройства Garmin.",
    },
    [{ kind: "file", importer: "fit", guide: "garmin_fit" }],
  ),
  app(
    "fitbit",
    "Fitbit",
    "F",
    170,
    ["platforms"],
    ["heart_rate", "resting_heart_rate", "hrv", "steps", "weight"],
    {
      en: "Fitbit accounts are exported through Google Takeout; Tonus reads the heart-rate, HRV, steps and weight files.",
      ru: "Аккаунт Fitbit выгружается через Google Takeout; Tonus читает оттуда файлы пульса, ВСР, шагов и веса.",
    },
    [
      { kind: "file", importer: "fitbit", guide: "fitbit_takeout" },
      { kind: "cloud", provider: "fitbit" },
    ],
  ),
  app(
    "polar-flow",
    "Polar Flow",
    "PF",
    350,
    ["platforms"],
    ["rr_intervals", "hrv", "heart_rate", "workouts"],
    {
      en: "Polar Flow holds what Polar watches and straps record. Tonus reads the RR-interval files of its sessions and what Polar Flow shares with Apple Health.",
      ru: "В Polar Flow хранится то, что записывают часы и датчики Polar. Tonus читает файлы RR-интервалов его тренировок и то, что Polar Flow передаёт в Apple Health.",
    },
    [
      { kind: "file", importer: "rr_text", guide: "polar_rr" },
      viaApple(),
      { kind: "cloud", provider: "polar" },
    ],
  ),
  app(
    "strava",
    "Strava",
    "St",
    20,
    ["fitness_apps"],
    ["heart_rate", "distance", "energy", "workouts"],
    FIT_APP,
    [{ kind: "file", importer: "fit", guide: "original_fit" }],
  ),
  app(
    "intervals-icu",
    "Intervals.icu",
    "Ic",
    90,
    ["fitness_apps"],
    ["heart_rate", "distance", "energy", "workouts"],
    FIT_APP,
    [{ kind: "file", importer: "fit", guide: "original_fit" }],
  ),
  app(
    "trainingpeaks",
    "TrainingPeaks",
    "TP",
    210,
    ["fitness_apps"],
    ["heart_rate", "distance", "energy", "workouts"],
    FIT_APP,
    [{ kind: "file", importer: "fit", guide: "original_fit" }],
  ),
  app(
    "zwift",
    "Zwift",
    "Z",
    25,
    ["fitness_apps"],
    ["heart_rate", "distance", "energy", "workouts"],
    {
      en: "Zwift saves each session as a FIT file on your computer, with heart rate from your strap; Tonus reads it directly.",
      ru: "Zwift сохраняет каждую тренировку FIT-файлом на компьютере, с пульсом от вашего датчика; Tonus читает его напрямую.",
    },
    [{ kind: "file", importer: "fit", guide: "zwift_fit" }],
  ),
  app("elite-hrv", "Elite HRV", "EH", 265, ["hrv_apps"], ["rr_intervals", "hrv"], RR_APP, [rrApp]),
  app("hrv-logger", "HRV Logger", "HL", 268, ["hrv_apps"], ["rr_intervals", "hrv"], RR_APP, [rrApp]),
  app(
    "polar-sensor-logger",
    "Polar Sensor Logger",
    "PS",
    352,
    ["hrv_apps"],
    ["rr_intervals", "hrv"],
    RR_APP,
    [rrApp],
  ),
  app("welltory", "Welltory", "We", 300, ["hrv_apps"], ["rr_intervals", "hrv"], RR_APP, [rrApp]),
  app(
    "kubios-hrv",
    "Kubios HRV",
    "K",
    200,
    ["hrv_apps"],
    ["rr_intervals", "hrv"],
    {
      en: "Kubios HRV's RR text files (one interval per line, or its exported tables) are read as they are and become measurements.",
      ru: "Текстовые RR-файлы Kubios HRV (по интервалу в строке или его выгруженные таблицы) читаются как есть и становятся измерениями.",
    },
    [{ kind: "file", importer: "rr_text", guide: "rr_file_any" }],
  ),
  app("autosleep", "AutoSleep", "AS", 250, ["sleep_apps"], SLEEP, APPLE_APP, [viaApple()]),
  app("sleep-cycle", "Sleep Cycle", "SC", 255, ["sleep_apps"], SLEEP, APPLE_APP, [viaApple()]),
  app("pillow", "Pillow", "Pi", 258, ["sleep_apps"], SLEEP, APPLE_APP, [viaApple()]),
  app("sleepwatch", "SleepWatch", "SW", 262, ["sleep_apps"], SLEEP, APPLE_APP, [viaApple()]),
  app(
    "eight-sleep",
    "Eight Sleep",
    "8",
    240,
    ["sleep_apps"],
    ["sleep", "heart_rate", "hrv", "respiratory_rate"],
    APPLE_APP,
    [viaApple()],
  ),
  app("myfitnesspal", "MyFitnessPal", "MF", 215, ["nutrition_apps"], FOOD, APPLE_APP, [viaApple()]),
  app("cronometer", "Cronometer", "Cr", 30, ["nutrition_apps"], FOOD, APPLE_APP, [viaApple()]),
  app("lose-it", "Lose It!", "LI", 10, ["nutrition_apps"], FOOD, APPLE_APP, [viaApple()]),
  app("yazio", "YAZIO", "Y", 150, ["nutrition_apps"], FOOD, APPLE_APP, [viaApple()]),
  app("macrofactor", "MacroFactor", "MF", 35, ["nutrition_apps"], ["carbohydrates", "weight"], APPLE_APP, [
    viaApple(),
  ]),
  app("waterminder", "WaterMinder", "WM", 195, ["nutrition_apps"], ["water"], APPLE_APP, [viaApple()]),
  app(
    "rr-file",
    "RR interval file",
    "RR",
    330,
    ["files"],
    ["rr_intervals", "hrv"],
    {
      en: "A text file of beat-to-beat intervals from any app or device becomes a measurement with the full HRV analysis.",
      ru: "Текстовый файл интервалов между ударами из любого приложения или устройства становится измерением с полным анализом ВСР.",
    },
    [{ kind: "file", importer: "rr_text", guide: "rr_file_any" }],
  ),
  app(
    "csv-file",
    "Other CSV file",
    "CSV",
    100,
    ["files"],
    [
      "heart_rate",
      "resting_heart_rate",
      "hrv",
      "steps",
      "distance",
      "energy",
      "weight",
      "body_composition",
      "spo2",
      "sleep",
    ],
    {
      en: "Any CSV with a date column: Tonus previews it, suggests which column is which measure and unit, and imports it once you confirm.",
      ru: "Любой CSV со столбцом даты: Tonus покажет его начало, предложит, какой столбец к какому показателю и единице относится, и импортирует после вашего подтверждения.",
    },
    [{ kind: "file", importer: "csv", guide: "generic_csv" }],
  ),
];
