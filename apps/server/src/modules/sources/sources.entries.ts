import type { FileImporter, LocalizedText, SourceCategory, SourceDataType } from "@tonus/contract";
import type { GuideKey } from "./sources.guides.ts";

/**
 * How an entry's data really reaches Tonus (see `SourceMethodSchema`). `app` names the app that writes to
 * the aggregator when it is not the entry itself (OMRON connect for an OMRON monitor).
 */
export type MethodDef =
  | { kind: "file"; importer: FileImporter; guide: GuideKey }
  | { kind: "aggregator"; via: string; guide: GuideKey; app?: string }
  | { kind: "bluetooth" }
  | { kind: "cloud"; provider: CloudProvider }
  | { kind: "mobile_app"; platform: "ios" | "android"; guide: GuideKey };

/** Vendors with self-serve OAuth2 APIs a connector can be written for (issue 7). */
export type CloudProvider = "oura" | "withings" | "polar" | "fitbit" | "google_health" | "whoop";

export type SourceEntry = {
  slug: string;
  name: string;
  /** One or two characters for the monogram logo, and its hue (0–359). */
  monogram: string;
  hue: number;
  categories: SourceCategory[];
  dataTypes: SourceDataType[];
  description: LocalizedText;
  methods: MethodDef[];
};

const fit = (guide: GuideKey = "garmin_fit"): MethodDef => ({ kind: "file", importer: "fit", guide });
const file = (importer: FileImporter, guide: GuideKey): MethodDef => ({ kind: "file", importer, guide });
const viaApple = (app?: string): MethodDef => ({
  kind: "aggregator",
  via: "apple-health",
  guide: "via_apple_health",
  ...(app ? { app } : {}),
});
const strap: MethodDef = { kind: "bluetooth" };
const cloud = (provider: CloudProvider): MethodDef => ({ kind: "cloud", provider });

/** Short descriptions shared by entries of one kind; `{name}` is the entry's name. */
const D = {
  garminWatch: {
    en: "{name} watches record activities, all-day heart rate, steps and sleep in FIT files, which Tonus reads directly — with beat-to-beat intervals when HRV logging is on.",
    ru: "Часы {name} записывают тренировки, суточный пульс, шаги и сон в FIT-файлы, которые Tonus читает напрямую, — с интервалами между ударами, если включена запись ВСР.",
  },
  fitDevice: {
    en: "{name} saves each activity as a FIT file with heart rate, distance and energy; Tonus reads the file directly.",
    ru: "{name} сохраняет каждую тренировку FIT-файлом с пульсом, расстоянием и энергией; Tonus читает файл напрямую.",
  },
  bikeComputer: {
    en: "The {name} bike computer records rides as FIT files with heart rate from a paired strap, and beat-to-beat intervals on models that log them.",
    ru: "Велокомпьютер {name} записывает поездки FIT-файлами с пульсом от подключённого датчика, а модели, которые это умеют, — и с интервалами между ударами.",
  },
  appleHealthApp: {
    en: "{name} writes its readings to Apple Health; Tonus imports them from the Health export together with everything else there.",
    ru: "{name} записывает показания в Apple Health; Tonus импортирует их из выгрузки «Здоровья» вместе со всем остальным.",
  },
  chestStrap: {
    en: "{name} is a chest strap that sends beat-to-beat intervals over standard Bluetooth: Tonus measures HRV with it live in the browser.",
    ru: "{name} — нагрудный датчик, который передаёт интервалы между ударами по стандартному Bluetooth: Tonus измеряет с ним ВСР прямо в браузере.",
  },
  garminStrap: {
    en: "{name} is a chest strap whose beat-to-beat intervals a Garmin watch or bike computer records into the activity's FIT file, which Tonus reads directly.",
    ru: "{name} — нагрудный датчик, интервалы между ударами которого часы или велокомпьютер Garmin записывают в FIT-файл тренировки, а Tonus читает его напрямую.",
  },
  polarWatch: {
    en: "{name} syncs through Polar Flow: sessions recorded with a chest strap give RR-interval files, and Polar Flow can share workouts and heart rate with Apple Health.",
    ru: "{name} синхронизируется через Polar Flow: тренировки с нагрудным датчиком дают файлы RR-интервалов, а Polar Flow умеет передавать тренировки и пульс в Apple Health.",
  },
  samsung: {
    en: "{name} stores its data in Samsung Health, whose personal-data download Tonus reads (heart rate, steps, weight, blood pressure, SpO2).",
    ru: "{name} хранит данные в Samsung Health, а Tonus читает выгрузку личных данных оттуда (пульс, шаги, вес, давление, SpO2).",
  },
  fitbit: {
    en: "{name} keeps its data in the Fitbit account, which Google Takeout exports: Tonus reads its heart rate, HRV, steps and weight files.",
    ru: "{name} хранит данные в аккаунте Fitbit, который выгружает Google Takeout: Tonus читает оттуда файлы пульса, ВСР, шагов и веса.",
  },
  withings: {
    en: "{name} syncs to the Withings app, whose data download Tonus reads (weight and body composition, blood pressure); the app can also write to Apple Health.",
    ru: "{name} синхронизируется с приложением Withings, чью выгрузку данных читает Tonus (вес и состав тела, давление); приложение умеет писать и в Apple Health.",
  },
  rrApp: {
    en: "{name} records beat-to-beat intervals from a chest strap and exports them as text files, which Tonus turns into measurements with the full HRV analysis.",
    ru: "{name} записывает интервалы между ударами с нагрудного датчика и выгружает их текстовыми файлами, а Tonus превращает их в измерения с полным анализом ВСР.",
  },
} satisfies Record<string, LocalizedText>;

type Def = Omit<SourceEntry, "description"> & { description: LocalizedText };

function entry(
  slug: string,
  name: string,
  monogram: string,
  hue: number,
  categories: SourceCategory[],
  dataTypes: SourceDataType[],
  description: LocalizedText,
  methods: MethodDef[],
): Def {
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

const HR_ACTIVITY: SourceDataType[] = ["heart_rate", "steps", "distance", "energy", "workouts"];
const GARMIN_TYPES: SourceDataType[] = [...HR_ACTIVITY, "rr_intervals", "sleep", "spo2", "respiratory_rate"];
const FIT_TYPES: SourceDataType[] = ["heart_rate", "distance", "energy", "workouts"];
const STRAP_TYPES: SourceDataType[] = ["rr_intervals", "heart_rate", "hrv"];
const SAMSUNG_TYPES: SourceDataType[] = ["heart_rate", "steps", "distance", "energy", "spo2"];
const FITBIT_TYPES: SourceDataType[] = ["heart_rate", "resting_heart_rate", "hrv", "steps", "weight"];
const SCALE_TYPES: SourceDataType[] = ["weight", "body_composition"];

/** Garmin's device families: the same FIT route for each. */
const GARMIN: [string, string, SourceCategory][] = [
  ["garmin-forerunner", "Garmin Forerunner", "watches"],
  ["garmin-fenix", "Garmin fēnix", "watches"],
  ["garmin-epix", "Garmin epix", "watches"],
  ["garmin-venu", "Garmin Venu", "watches"],
  ["garmin-vivoactive", "Garmin vívoactive", "watches"],
  ["garmin-instinct", "Garmin Instinct", "watches"],
  ["garmin-enduro", "Garmin Enduro", "watches"],
  ["garmin-vivosmart", "Garmin vívosmart", "watches"],
];

export const DEVICE_ENTRIES: Def[] = [
  entry(
    "apple-watch",
    "Apple Watch",
    "AW",
    210,
    ["watches"],
    [...HR_ACTIVITY, "rr_intervals", "hrv", "resting_heart_rate", "sleep", "spo2", "respiratory_rate"],
    {
      en: "Apple Watch records heart rate, HRV with beat-to-beat intervals, sleep and activity into Apple Health, which Tonus imports from its export.",
      ru: "Apple Watch записывают пульс, ВСР с интервалами между ударами, сон и активность в Apple Health, а Tonus импортирует их из выгрузки.",
    },
    [{ kind: "aggregator", via: "apple-health", guide: "apple_watch" }],
  ),
  ...GARMIN.map(([slug, name, category], i) =>
    entry(slug, name, "G", 200 + i * 3, [category], GARMIN_TYPES, D.garminWatch, [fit()]),
  ),
  entry(
    "garmin-edge",
    "Garmin Edge",
    "GE",
    205,
    ["bike_computers"],
    [...FIT_TYPES, "rr_intervals"],
    D.bikeComputer,
    [fit()],
  ),
  entry("garmin-hrm-pro", "Garmin HRM-Pro Plus", "HP", 208, ["straps"], STRAP_TYPES, D.garminStrap, [
    { kind: "file", importer: "fit", guide: "fit_via_watch" },
  ]),
  entry("garmin-hrm-600", "Garmin HRM 600", "H6", 209, ["straps"], STRAP_TYPES, D.garminStrap, [
    { kind: "file", importer: "fit", guide: "fit_via_watch" },
  ]),
  entry("garmin-hrm-dual", "Garmin HRM-Dual", "HD", 211, ["straps"], STRAP_TYPES, D.chestStrap, [
    strap,
    { kind: "file", importer: "fit", guide: "fit_via_watch" },
  ]),
  entry("coros-pace", "COROS PACE", "C", 25, ["watches"], FIT_TYPES, D.fitDevice, [fit("coros_fit")]),
  entry("coros-apex", "COROS APEX", "C", 28, ["watches"], FIT_TYPES, D.fitDevice, [fit("coros_fit")]),
  entry("coros-vertix", "COROS VERTIX", "C", 31, ["watches"], FIT_TYPES, D.fitDevice, [fit("coros_fit")]),
  entry("suunto-race", "Suunto Race", "S", 0, ["watches"], FIT_TYPES, D.fitDevice, [fit("suunto_fit")]),
  entry("suunto-vertical", "Suunto Vertical", "S", 4, ["watches"], FIT_TYPES, D.fitDevice, [
    fit("suunto_fit"),
  ]),
  entry("suunto-9-peak", "Suunto 9 Peak", "S", 8, ["watches"], FIT_TYPES, D.fitDevice, [fit("suunto_fit")]),
  entry("wahoo-elemnt", "Wahoo ELEMNT", "W", 190, ["bike_computers"], FIT_TYPES, D.bikeComputer, [
    fit("wahoo_fit"),
  ]),
  entry("wahoo-elemnt-rival", "Wahoo ELEMNT RIVAL", "WR", 193, ["watches"], FIT_TYPES, D.fitDevice, [
    fit("wahoo_fit"),
  ]),
  entry("wahoo-tickr", "Wahoo TICKR", "WT", 196, ["straps"], STRAP_TYPES, D.chestStrap, [strap]),
  entry("hammerhead-karoo", "Hammerhead Karoo", "HK", 60, ["bike_computers"], FIT_TYPES, D.bikeComputer, [
    fit("karoo_fit"),
  ]),
  entry("polar-h10", "Polar H10", "H10", 350, ["straps"], STRAP_TYPES, D.chestStrap, [
    strap,
    file("rr_text", "polar_rr"),
    cloud("polar"),
  ]),
  entry("polar-h9", "Polar H9", "H9", 353, ["straps"], STRAP_TYPES, D.chestStrap, [
    strap,
    file("rr_text", "polar_rr"),
    cloud("polar"),
  ]),
  ...(
    [
      ["polar-vantage", "Polar Vantage"],
      ["polar-grit-x", "Polar Grit X"],
      ["polar-pacer", "Polar Pacer"],
      ["polar-ignite", "Polar Ignite"],
    ] as const
  ).map(([slug, name], i) =>
    entry(
      slug,
      name,
      "P",
      346 + i * 3,
      ["watches"],
      ["rr_intervals", "hrv", "heart_rate", "workouts"],
      D.polarWatch,
      [file("rr_text", "polar_rr"), viaApple("Polar Flow"), cloud("polar")],
    ),
  ),
  entry("movesense", "Movesense", "MS", 160, ["straps"], STRAP_TYPES, D.chestStrap, [strap]),
  entry("coospo-h808s", "COOSPO H808S", "CH", 30, ["straps"], STRAP_TYPES, D.chestStrap, [strap]),
  entry(
    "samsung-galaxy-watch",
    "Samsung Galaxy Watch",
    "GW",
    230,
    ["watches"],
    [...SAMSUNG_TYPES, "blood_pressure"],
    D.samsung,
    [file("samsung_health", "samsung_health_csv")],
  ),
  entry("samsung-galaxy-fit", "Samsung Galaxy Fit", "GF", 233, ["watches"], SAMSUNG_TYPES, D.samsung, [
    file("samsung_health", "samsung_health_csv"),
  ]),
  entry("samsung-galaxy-ring", "Samsung Galaxy Ring", "GR", 236, ["rings"], SAMSUNG_TYPES, D.samsung, [
    file("samsung_health", "samsung_health_csv"),
  ]),
  entry("google-pixel-watch", "Google Pixel Watch", "PW", 120, ["watches"], FITBIT_TYPES, D.fitbit, [
    file("fitbit", "fitbit_takeout"),
    cloud("google_health"),
    cloud("fitbit"),
  ]),
  ...(
    [
      ["fitbit-sense", "Fitbit Sense"],
      ["fitbit-versa", "Fitbit Versa"],
      ["fitbit-charge", "Fitbit Charge"],
      ["fitbit-inspire", "Fitbit Inspire"],
      ["fitbit-luxe", "Fitbit Luxe"],
    ] as const
  ).map(([slug, name], i) =>
    entry(slug, name, "F", 170 + i * 3, ["watches"], FITBIT_TYPES, D.fitbit, [
      file("fitbit", "fitbit_takeout"),
      cloud("google_health"),
      cloud("fitbit"),
    ]),
  ),
  entry("fitbit-aria", "Fitbit Aria", "FA", 185, ["scales"], ["weight"], D.fitbit, [
    file("fitbit", "fitbit_takeout"),
    cloud("fitbit"),
  ]),
  entry(
    "withings-scanwatch",
    "Withings ScanWatch",
    "WS",
    100,
    ["watches"],
    [...HR_ACTIVITY, "sleep", "spo2"],
    D.appleHealthApp,
    [viaApple("Withings"), cloud("withings")],
  ),
  entry("withings-body-comp", "Withings Body Comp", "WB", 103, ["scales"], SCALE_TYPES, D.withings, [
    file("withings", "withings_csv"),
    viaApple("Withings"),
    cloud("withings"),
  ]),
  entry("withings-body-smart", "Withings Body Smart", "WB", 106, ["scales"], SCALE_TYPES, D.withings, [
    file("withings", "withings_csv"),
    viaApple("Withings"),
    cloud("withings"),
  ]),
  entry("withings-body-scan", "Withings Body Scan", "WB", 109, ["scales"], SCALE_TYPES, D.withings, [
    file("withings", "withings_csv"),
    viaApple("Withings"),
    cloud("withings"),
  ]),
  entry(
    "withings-bpm",
    "Withings BPM",
    "WP",
    112,
    ["bp_monitors"],
    ["blood_pressure", "heart_rate"],
    D.withings,
    [file("withings", "withings_csv"), viaApple("Withings"), cloud("withings")],
  ),
  entry(
    "withings-sleep-analyzer",
    "Withings Sleep Analyzer",
    "WA",
    115,
    ["sleep_apps"],
    ["sleep", "heart_rate"],
    D.appleHealthApp,
    [viaApple("Withings"), cloud("withings")],
  ),
  entry(
    "oura-ring",
    "Oura Ring",
    "O",
    280,
    ["rings"],
    ["resting_heart_rate", "hrv", "sleep", "steps", "respiratory_rate", "heart_rate"],
    {
      en: "Oura Ring measures sleep, resting heart rate and night-time HRV. Tonus reads the trends CSV from Oura on the web, and what the Oura app writes to Apple Health.",
      ru: "Кольцо Oura измеряет сон, пульс в покое и ночную ВСР. Tonus читает CSV трендов из веб-версии Oura и то, что приложение Oura записывает в Apple Health.",
    },
    [file("oura", "oura_csv"), viaApple("Oura"), cloud("oura")],
  ),
  entry(
    "ultrahuman-ring",
    "Ultrahuman Ring AIR",
    "U",
    40,
    ["rings"],
    ["heart_rate", "hrv", "sleep", "steps"],
    D.appleHealthApp,
    [viaApple("Ultrahuman")],
  ),
  entry(
    "ringconn",
    "RingConn",
    "RC",
    45,
    ["rings"],
    ["heart_rate", "hrv", "sleep", "steps", "spo2"],
    D.appleHealthApp,
    [viaApple("RingConn")],
  ),
  entry(
    "whoop",
    "WHOOP",
    "WH",
    0,
    ["watches"],
    ["resting_heart_rate", "hrv", "spo2", "skin_temperature", "respiratory_rate", "sleep", "energy"],
    {
      en: "WHOOP measures strain, recovery and sleep. Tonus reads the physiological cycles of the WHOOP data export, and what the WHOOP app writes to Apple Health.",
      ru: "WHOOP измеряет нагрузку, восстановление и сон. Tonus читает физиологические циклы из выгрузки данных WHOOP и то, что приложение WHOOP записывает в Apple Health.",
    },
    [file("whoop", "whoop_csv"), viaApple("WHOOP"), cloud("whoop")],
  ),
  entry("amazfit", "Amazfit", "A", 15, ["watches"], [...HR_ACTIVITY, "sleep"], D.appleHealthApp, [
    viaApple("Zepp"),
  ]),
  entry(
    "xiaomi-smart-band",
    "Xiaomi Smart Band",
    "MI",
    20,
    ["watches"],
    [...HR_ACTIVITY, "sleep"],
    D.appleHealthApp,
    [viaApple("Mi Fitness")],
  ),
  entry(
    "xiaomi-body-scale",
    "Xiaomi Body Composition Scale",
    "MI",
    22,
    ["scales"],
    SCALE_TYPES,
    D.appleHealthApp,
    [viaApple("Zepp Life")],
  ),
  entry("eufy-smart-scale", "eufy Smart Scale", "E", 195, ["scales"], SCALE_TYPES, D.appleHealthApp, [
    viaApple("EufyLife"),
  ]),
  entry("renpho-scale", "RENPHO", "R", 215, ["scales"], SCALE_TYPES, D.appleHealthApp, [
    viaApple("RENPHO Health"),
  ]),
  entry("qardio-base", "QardioBase", "QB", 340, ["scales"], SCALE_TYPES, D.appleHealthApp, [
    viaApple("Qardio"),
  ]),
  entry("etekcity-scale", "Etekcity", "ET", 150, ["scales"], SCALE_TYPES, D.appleHealthApp, [
    viaApple("VeSync"),
  ]),
  entry("wyze-scale", "Wyze Scale", "WY", 175, ["scales"], SCALE_TYPES, D.appleHealthApp, [viaApple("Wyze")]),
  entry("omron-bp", "OMRON", "OM", 225, ["bp_monitors"], ["blood_pressure", "heart_rate"], D.appleHealthApp, [
    viaApple("OMRON connect"),
  ]),
  entry(
    "qardio-arm",
    "QardioArm",
    "QA",
    343,
    ["bp_monitors"],
    ["blood_pressure", "heart_rate"],
    D.appleHealthApp,
    [viaApple("Qardio")],
  ),
  entry(
    "ihealth-bp",
    "iHealth",
    "iH",
    140,
    ["bp_monitors"],
    ["blood_pressure", "heart_rate"],
    D.appleHealthApp,
    [viaApple("iHealth MyVitals")],
  ),
  entry(
    "beurer-bp",
    "Beurer",
    "B",
    355,
    ["bp_monitors"],
    ["blood_pressure", "heart_rate"],
    D.appleHealthApp,
    [viaApple("beurer HealthManager Pro")],
  ),
  entry(
    "and-medical-bp",
    "A&D Medical",
    "AD",
    130,
    ["bp_monitors"],
    ["blood_pressure", "heart_rate"],
    D.appleHealthApp,
    [viaApple("A&D Connect")],
  ),
];
