import type { ChartItemKey, DisplayUnit, LocalizedText, MetricCategory, MetricKey } from "@tonus/contract";

/**
 * The dashboard's texts, held by the server and sent in every language (spec §3 "Localized texts are
 * objects keyed by locale"): chart titles, short labels, descriptions, units, categories, sources.
 */
const t = (en: string, ru: string): LocalizedText => ({ en, ru });

export const CATEGORY_TITLES: Record<MetricCategory, LocalizedText> = {
  scores: t("Scores", "Оценки"),
  hrv: t("Heart rate variability", "Вариабельность ритма сердца"),
  spectrum: t("Frequency domain", "Частотный анализ"),
  blood_pressure: t("Blood pressure", "Давление"),
  activity: t("Activity", "Активность"),
  sleep: t("Sleep", "Сон"),
  body: t("Body", "Тело"),
  nutrition: t("Nutrition", "Питание"),
  vitals: t("Vital signs", "Показатели организма"),
};

export const UNIT_LABELS: Record<DisplayUnit, LocalizedText> = {
  none: t("", ""),
  score: t("of 100", "из 100"),
  percent: t("%", "%"),
  bpm: t("bpm", "уд/мин"),
  ms: t("ms", "мс"),
  ms2: t("ms²", "мс²"),
  beats: t("beats", "ударов"),
  steps: t("steps", "шагов"),
  km: t("km", "км"),
  mi: t("mi", "миль"),
  m: t("m", "м"),
  kcal: t("kcal", "ккал"),
  kj: t("kJ", "кДж"),
  h: t("h", "ч"),
  min: t("min", "мин"),
  l: t("L", "л"),
  ml: t("ml", "мл"),
  fl_oz: t("fl oz", "жидк. унц."),
  g: t("g", "г"),
  oz: t("oz", "унц."),
  kg: t("kg", "кг"),
  lb: t("lb", "фунт."),
  cm: t("cm", "см"),
  ft: t("ft", "фут."),
  in: t("in", "дюйм."),
  mmhg: t("mmHg", "мм рт. ст."),
  per_min: t("breaths/min", "вдохов/мин"),
  celsius: t("°C", "°C"),
  fahrenheit: t("°F", "°F"),
};

/** Short series labels (legend, table header). */
export const METRIC_LABELS: Record<MetricKey, LocalizedText> = {
  stress: t("Stress", "Стресс"),
  energy: t("Energy", "Энергия"),
  productivity: t("Productivity", "Продуктивность"),
  heart_rate: t("Heart rate", "Пульс"),
  meanrr: t("Mean RR", "Средний RR"),
  stdrr: t("SDNN", "SDNN"),
  rmssd: t("rMSSD", "rMSSD"),
  pnn50: t("pNN50", "pNN50"),
  mxdmn: t("MxDMn", "MxDMn"),
  amo: t("AMo", "AMo"),
  psi: t("Stress index", "Индекс напряжения"),
  pvi: t("Vegetative balance", "Вегетативный баланс"),
  total_beats: t("Beats", "Удары"),
  power: t("Total power", "Общая мощность"),
  vlf: t("VLF", "VLF"),
  lf: t("LF", "LF"),
  hf: t("HF", "HF"),
  lfhf: t("LF/HF", "LF/HF"),
  bp_systolic: t("Systolic", "Систолическое"),
  bp_diastolic: t("Diastolic", "Диастолическое"),
  bp_pulse: t("Pulse", "Пульс"),
  kerdo: t("Kerdo index", "Индекс Кердо"),
  robinson: t("Robinson index", "Индекс Робинсона"),
  functional_changes: t("Adaptation potential", "Адаптационный потенциал"),
  kek: t("Circulatory efficiency", "Коэффициент экономичности кровообращения"),
  kvas: t("Kvas coefficient", "Коэффициент выносливости Кваса"),
  phys_state: t("Physical state", "Физическое состояние"),
  steps: t("Steps", "Шаги"),
  distance: t("Distance", "Расстояние"),
  distance_cycling: t("Cycling", "Велосипед"),
  active_energy: t("Active", "Активные"),
  basal_energy: t("Resting", "В покое"),
  sleep: t("Asleep", "Сон"),
  sleep_deep: t("Deep sleep", "Глубокий сон"),
  sleep_rem: t("REM sleep", "Быстрый сон"),
  sleep_awake: t("Awake at night", "Бодрствование ночью"),
  sleep_in_bed: t("In bed", "В постели"),
  workout_duration: t("Workouts", "Тренировки"),
  workout_distance: t("Workout distance", "Дистанция тренировок"),
  workout_energy: t("Workout energy", "Энергия тренировок"),
  weight: t("Weight", "Вес"),
  height: t("Height", "Рост"),
  body_fat: t("Body fat", "Жир"),
  body_water: t("Body water", "Вода в организме"),
  muscle_mass: t("Muscle mass", "Мышечная масса"),
  bone_mass: t("Bone mass", "Костная масса"),
  fat_mass: t("Fat mass", "Жировая масса"),
  water: t("Water", "Вода"),
  carbohydrates: t("Carbohydrates", "Углеводы"),
  resting_heart_rate: t("Resting heart rate", "Пульс в покое"),
  walking_heart_rate: t("Walking heart rate", "Пульс при ходьбе"),
  sdnn: t("HRV (SDNN)", "ВСР (SDNN)"),
  spo2: t("SpO₂", "SpO₂"),
  respiratory_rate: t("Respiratory rate", "Частота дыхания"),
  skin_temperature: t("Temperature", "Температура"),
};

/** Chart titles where they differ from the single series' label. */
const ITEM_TITLES: Partial<Record<ChartItemKey, LocalizedText>> = {
  stdrr: t("SDNN (standard deviation of intervals)", "SDNN (стандартное отклонение интервалов)"),
  meanrr: t("Mean RR interval", "Средний RR-интервал"),
  psi: t("Baevsky's stress index", "Индекс напряжения Баевского"),
  total_beats: t("Beats per measurement", "Ударов за измерение"),
  power: t("Total spectral power", "Общая мощность спектра"),
  blood_pressure: t("Blood pressure", "Артериальное давление"),
  bp_pulse: t("Pulse at blood-pressure readings", "Пульс при измерении давления"),
  calories: t("Calories burned", "Сожжённые калории"),
  sleep: t("Sleep", "Сон"),
  sleep_in_bed: t("Time in bed", "Время в постели"),
  workouts: t("Workout time", "Время тренировок"),
  distance: t("Walking and running distance", "Расстояние пешком и бегом"),
  distance_cycling: t("Cycling distance", "Расстояние на велосипеде"),
  sdnn: t("HRV from watches (SDNN)", "ВСР с часов (SDNN)"),
  spo2: t("Blood oxygen (SpO₂)", "Кислород в крови (SpO₂)"),
  skin_temperature: t("Body temperature", "Температура тела"),
};

const ITEM_DESCRIPTIONS: Record<ChartItemKey, LocalizedText> = {
  stress: t(
    "How tense your nervous system was at each measurement, 0–100, against your own baseline.",
    "Насколько напряжена была нервная система в каждом измерении, от 0 до 100, относительно вашей нормы.",
  ),
  energy: t(
    "How much your body had in reserve, 0–100: higher when recovery is good.",
    "Сколько сил было в запасе у организма, от 0 до 100: выше при хорошем восстановлении.",
  ),
  productivity: t(
    "Readiness for mental and physical work, 0–100.",
    "Готовность к умственной и физической работе, от 0 до 100.",
  ),
  heart_rate: t(
    "Beats per minute: at each HRV measurement and, from a watch, through the day.",
    "Удары в минуту: во время измерений ВСР и, если есть часы, в течение дня.",
  ),
  rmssd: t(
    "The main short-term HRV index: how much neighbouring beats differ. Higher usually means better recovery.",
    "Главный краткосрочный показатель ВСР: насколько различаются соседние удары. Обычно чем выше, тем лучше восстановление.",
  ),
  stdrr: t(
    "Overall variability of the intervals during a measurement.",
    "Общая изменчивость интервалов за измерение.",
  ),
  meanrr: t(
    "Average time between beats, the inverse of heart rate.",
    "Среднее время между ударами, обратное пульсу.",
  ),
  pnn50: t(
    "Share of neighbouring beats that differ by more than 50 ms.",
    "Доля соседних ударов, различающихся больше чем на 50 мс.",
  ),
  mxdmn: t(
    "Spread between the longest and shortest intervals.",
    "Разброс между самым длинным и самым коротким интервалом.",
  ),
  amo: t(
    "Share of intervals in the most common 50-ms range: higher means a more rigid rhythm.",
    "Доля интервалов в самом частом 50-мс диапазоне: чем выше, тем жёстче ритм.",
  ),
  psi: t(
    "How strongly central regulation controls the heart; it rises with stress.",
    "Насколько сильно сердцем управляет центральная регуляция; растёт при стрессе.",
  ),
  pvi: t(
    "Balance of the sympathetic and parasympathetic systems.",
    "Баланс симпатической и парасимпатической систем.",
  ),
  total_beats: t(
    "Beats analysed in each measurement.",
    "Сколько ударов проанализировано в каждом измерении.",
  ),
  power: t(
    "Overall HRV in the frequency domain (measurements of more than 280 beats).",
    "Общая ВСР в частотной области (измерения длиннее 280 ударов).",
  ),
  vlf: t(
    "Very-low-frequency power: slow regulation (hormones, temperature).",
    "Очень низкочастотная мощность: медленная регуляция (гормоны, температура).",
  ),
  lf: t(
    "Low-frequency power: mixed sympathetic and parasympathetic influence.",
    "Низкочастотная мощность: смешанное симпатическое и парасимпатическое влияние.",
  ),
  hf: t(
    "High-frequency power: breathing-linked, parasympathetic activity.",
    "Высокочастотная мощность: связана с дыханием, парасимпатическая активность.",
  ),
  lfhf: t("Ratio of low- to high-frequency power.", "Отношение низкочастотной мощности к высокочастотной."),
  blood_pressure: t(
    "Systolic and diastolic pressure from your log and imported monitors.",
    "Систолическое и диастолическое давление из вашего дневника и подключённых тонометров.",
  ),
  bp_pulse: t(
    "The pulse your monitor showed with each blood-pressure reading.",
    "Пульс, который тонометр показал при каждом измерении давления.",
  ),
  kerdo: t(
    "Vegetative index from diastolic pressure and pulse: above zero means sympathetic predominance.",
    "Вегетативный индекс по диастолическому давлению и пульсу: выше нуля — преобладание симпатической системы.",
  ),
  robinson: t(
    "Heart workload: systolic pressure × heart rate / 100.",
    "Нагрузка на сердце: систолическое давление × пульс / 100.",
  ),
  functional_changes: t(
    "Baevsky's adaptation potential: how well the circulation copes with demands.",
    "Адаптационный потенциал по Баевскому: насколько хорошо кровообращение справляется с нагрузками.",
  ),
  kek: t("Pulse pressure × heart rate.", "Пульсовое давление × пульс."),
  kvas: t(
    "Kvas endurance coefficient: 10 × heart rate / pulse pressure.",
    "Коэффициент выносливости Кваса: 10 × пульс / пульсовое давление.",
  ),
  phys_state: t("Pirogova's physical-state index.", "Индекс физического состояния по Пироговой."),
  steps: t("Steps per day.", "Шаги за день."),
  distance: t("Distance walked and run per day.", "Расстояние пешком и бегом за день."),
  distance_cycling: t("Distance cycled per day.", "Расстояние на велосипеде за день."),
  calories: t("Energy burned: active and at rest.", "Потраченная энергия: активная и в покое."),
  sleep: t(
    "Time asleep per day, with deep and REM sleep where the device tells them apart.",
    "Время сна за сутки, с глубоким и быстрым сном, если устройство их различает.",
  ),
  sleep_in_bed: t("Time in bed per day, asleep or not.", "Время в постели за сутки, во сне и без сна."),
  sleep_awake: t(
    "Time awake between falling asleep and getting up.",
    "Время без сна между засыпанием и подъёмом.",
  ),
  workouts: t("Minutes of recorded workouts per day.", "Минуты записанных тренировок за день."),
  workout_distance: t(
    "Distance covered in recorded workouts per day.",
    "Расстояние, пройденное на тренировках за день.",
  ),
  workout_energy: t(
    "Energy burned in recorded workouts per day.",
    "Энергия, потраченная на тренировках за день.",
  ),
  weight: t("Body weight.", "Масса тела."),
  height: t("Height.", "Рост."),
  body_fat: t("Body fat percentage.", "Процент жира в организме."),
  body_water: t("Body water percentage from a smart scale.", "Процент воды в организме по умным весам."),
  muscle_mass: t("Muscle mass from a smart scale.", "Мышечная масса по умным весам."),
  bone_mass: t("Bone mass from a smart scale.", "Костная масса по умным весам."),
  fat_mass: t("Fat mass from a smart scale.", "Жировая масса по умным весам."),
  water: t("Water drunk per day.", "Выпитая за день вода."),
  carbohydrates: t("Carbohydrates eaten per day.", "Углеводы, съеденные за день."),
  resting_heart_rate: t(
    "Heart rate at rest, as your watch or ring counts it.",
    "Пульс в покое по данным часов или кольца.",
  ),
  walking_heart_rate: t("Average heart rate while walking.", "Средний пульс при ходьбе."),
  sdnn: t(
    "Heart rate variability as watches report it (SDNN).",
    "Вариабельность ритма сердца по данным часов (SDNN).",
  ),
  spo2: t("Oxygen saturation of the blood.", "Насыщение крови кислородом."),
  respiratory_rate: t("Breaths per minute, usually during sleep.", "Вдохи в минуту, обычно во сне."),
  skin_temperature: t(
    "Body or skin temperature from a device.",
    "Температура тела или кожи по данным устройства.",
  ),
};

export function itemTitle(item: ChartItemKey, firstMetric: MetricKey): LocalizedText {
  return ITEM_TITLES[item] ?? METRIC_LABELS[firstMetric];
}

export function itemDescription(item: ChartItemKey): LocalizedText {
  return ITEM_DESCRIPTIONS[item];
}

/** Names of the sources the dashboard knows; any other source is shown by its key. */
export const SOURCE_NAMES: Record<string, LocalizedText> = {
  measurement: t("Tonus measurements", "Измерения Tonus"),
  manual: t("Entered by hand", "Введено вручную"),
  bp_log: t("Blood-pressure log", "Дневник давления"),
  ifttt: t("IFTTT", "IFTTT"),
  apple_health: t("Apple Health", "Apple Здоровье"),
  "apple_health.watch": t("Apple Health: Apple Watch", "Apple Здоровье: Apple Watch"),
  "apple_health.phone": t("Apple Health: iPhone", "Apple Здоровье: iPhone"),
  health_connect: t("Health Connect", "Health Connect"),
  google_fit: t("Google Fit", "Google Fit"),
  fitbit: t("Fitbit", "Fitbit"),
  garmin: t("Garmin", "Garmin"),
  polar: t("Polar", "Polar"),
  suunto: t("Suunto", "Suunto"),
  wahoo: t("Wahoo", "Wahoo"),
  coros: t("COROS", "COROS"),
  oura: t("Oura", "Oura"),
  whoop: t("WHOOP", "WHOOP"),
  withings: t("Withings", "Withings"),
  samsung_health: t("Samsung Health", "Samsung Health"),
  fit: t("FIT file", "Файл FIT"),
  csv: t("CSV file", "Файл CSV"),
  companion: t("Tonus app", "Приложение Tonus"),
  demo: t("Demo data", "Демо-данные"),
};

export function sourceName(key: string): LocalizedText {
  const base = key.split(".")[0] ?? key;
  return SOURCE_NAMES[key] ?? SOURCE_NAMES[base] ?? t(key, key);
}
