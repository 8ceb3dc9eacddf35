import type { LocalizedSteps } from "@tonus/contract";

/**
 * Step-by-step instructions, shared by the catalogue entries that get their data in the same way.
 * `{name}` is replaced by the entry's name (a brand name, never declined in Russian). Menu names follow
 * the vendors' own English and Russian interfaces; where an interface differs between versions the steps
 * describe the place rather than quote a label.
 */
export const GUIDES = {
  apple_health_export: {
    en: [
      "On your iPhone, open the Health app and tap your picture or initials at the top right.",
      "Tap “Export All Health Data”, then “Export”. A long history takes several minutes to pack.",
      "Save export.zip to Files or send it to your computer (AirDrop, iCloud Drive, e-mail for small files).",
      "Upload export.zip here. Tonus reads it as it arrives and keeps heart rate, HRV and beat-to-beat intervals, resting heart rate, steps, distance, energy, sleep, weight, height, blood pressure, water, carbohydrates, SpO2 and workouts.",
    ],
    ru: [
      "На iPhone откройте приложение «Здоровье» и нажмите на свой снимок или инициалы в правом верхнем углу.",
      "Выберите «Экспортировать все медданные» и подтвердите «Экспортировать». Длинная история упаковывается несколько минут.",
      "Сохраните export.zip в «Файлы» или перешлите на компьютер (AirDrop, iCloud Drive, почтой — если файл небольшой).",
      "Загрузите export.zip здесь. Tonus читает его по мере загрузки и сохраняет пульс, ВСР и интервалы между ударами, пульс в покое, шаги, расстояние, энергию, сон, вес, рост, давление, воду, углеводы, SpO2 и тренировки.",
    ],
  },
  apple_health_app: {
    en: [
      "Apple lets only apps on the iPhone itself read Health data, so only the Tonus mobile app can connect or disconnect Apple Health, with your permission in the Health app.",
      "On this website, import the export file instead (the file method on this page).",
    ],
    ru: [
      "Apple разрешает читать данные «Здоровья» лишь приложениям на самом iPhone, поэтому подключить или отключить Apple Health может только мобильное приложение Tonus — с вашего разрешения в приложении «Здоровье».",
      "На этом сайте вместо этого импортируйте файл экспорта (способ с файлом на этой странице).",
    ],
  },
  health_connect_app: {
    en: [
      "Health Connect keeps its data on the phone and gives it only to apps installed there, with your permission.",
      "This website cannot read Health Connect. Samsung Health and Google Fit data can be imported here from their own exports.",
    ],
    ru: [
      "Health Connect хранит данные на телефоне и отдаёт их только установленным там приложениям — с вашего разрешения.",
      "Этот сайт не умеет читать Health Connect. Данные Samsung Health и Google Fit можно импортировать здесь из их собственных выгрузок.",
    ],
  },
  via_apple_health: {
    en: [
      "Install the {name} app on your iPhone and let it write to Apple Health: in Health, tap your picture → Apps (under Privacy) → {name} and turn on the data types you want.",
      "Let {name} sync, so its readings appear in the Health app.",
      "Export your Health data and upload export.zip on the Apple Health page. Readings from {name} arrive with the rest.",
    ],
    ru: [
      "Установите приложение {name} на iPhone и разрешите ему запись в Apple Health: в «Здоровье» нажмите на свой снимок → «Приложения» (в разделе «Конфиденциальность») → {name} и включите нужные типы данных.",
      "Дождитесь синхронизации {name}, чтобы показания появились в «Здоровье».",
      "Экспортируйте медданные и загрузите export.zip на странице Apple Health. Показания {name} придут вместе с остальными.",
    ],
  },
  apple_watch: {
    en: [
      "Apple Watch writes heart rate, HRV with its beat-to-beat intervals, resting heart rate, sleep, activity and workouts to the Health app on the paired iPhone by itself.",
      "Export your Health data and upload export.zip on the Apple Health page.",
    ],
    ru: [
      "Apple Watch сами записывают пульс, ВСР с интервалами между ударами, пульс в покое, сон, активность и тренировки в приложение «Здоровье» на сопряжённом iPhone.",
      "Экспортируйте медданные и загрузите export.zip на странице Apple Health.",
    ],
  },
  garmin_fit: {
    en: [
      "Connect the device to a computer with its USB cable. It opens as a drive or, on newer models, as a media device.",
      "Open the GARMIN folder: activities are in Activity, all-day heart rate and steps in Monitor, sleep in Sleep (on models that record it).",
      "Upload the .fit files here, one at a time. Alternatively, in Garmin Connect on the web open an activity, choose “Export Original” in its gear menu and upload the downloaded zip.",
      "For beat-to-beat intervals, turn on HRV logging in the device's data-recording settings before the activity (on models that offer it) and wear a chest strap.",
    ],
    ru: [
      "Подключите устройство к компьютеру USB-кабелем. Оно откроется как диск или, у новых моделей, как медиаустройство.",
      "Откройте папку GARMIN: тренировки лежат в Activity, суточный пульс и шаги — в Monitor, сон — в Sleep (у моделей, которые его записывают).",
      "Загрузите файлы .fit здесь по одному. Другой путь: в веб-версии Garmin Connect откройте тренировку, в меню с шестерёнкой выберите «Экспорт оригинала» и загрузите скачанный zip.",
      "Чтобы получить интервалы между ударами сердца, перед тренировкой включите запись ВСР в настройках записи данных устройства (если модель это умеет) и наденьте нагрудный датчик.",
    ],
  },
  fit_via_watch: {
    en: [
      "{name} sends its beat-to-beat intervals to a compatible Garmin watch or bike computer, which records them in the activity's FIT file when HRV logging is on.",
      "Copy the activity's .fit file from the device (GARMIN/Activity over USB) or use “Export Original” in Garmin Connect, and upload it here.",
    ],
    ru: [
      "{name} передаёт интервалы между ударами совместимым часам или велокомпьютеру Garmin, а они записывают их в FIT-файл тренировки, если включена запись ВСР.",
      "Скопируйте файл .fit тренировки с устройства (GARMIN/Activity по USB) или выберите «Экспорт оригинала» в Garmin Connect и загрузите его здесь.",
    ],
  },
  coros_fit: {
    en: [
      "In the COROS app, open the activity.",
      "Tap the share or export button and choose the FIT file format.",
      "Save the file and upload it here.",
    ],
    ru: [
      "В приложении COROS откройте тренировку.",
      "Нажмите кнопку «Поделиться» или «Экспорт» и выберите формат FIT.",
      "Сохраните файл и загрузите его здесь.",
    ],
  },
  suunto_fit: {
    en: [
      "In the Suunto app, open the workout.",
      "Open the workout's menu (⋯) and choose to export it as a FIT file.",
      "Save the file and upload it here.",
    ],
    ru: [
      "В приложении Suunto откройте тренировку.",
      "Откройте меню тренировки (⋯) и выберите экспорт в файл FIT.",
      "Сохраните файл и загрузите его здесь.",
    ],
  },
  wahoo_fit: {
    en: [
      "In the Wahoo app (ELEMNT), open the workout in your history.",
      "Use the share button and choose the FIT file.",
      "Save the file and upload it here.",
    ],
    ru: [
      "В приложении Wahoo (ELEMNT) откройте тренировку в истории.",
      "Нажмите «Поделиться» и выберите файл FIT.",
      "Сохраните файл и загрузите его здесь.",
    ],
  },
  karoo_fit: {
    en: [
      "Sign in to the Hammerhead dashboard on the web and open the ride.",
      "Download the ride as a FIT file and upload it here.",
    ],
    ru: [
      "Войдите в веб-панель Hammerhead и откройте поездку.",
      "Скачайте поездку файлом FIT и загрузите его здесь.",
    ],
  },
  zwift_fit: {
    en: [
      "Zwift saves every session as a FIT file on the computer it runs on: Documents/Zwift/Activities.",
      "Upload the .fit file of the session here.",
    ],
    ru: [
      "Zwift сохраняет каждую тренировку файлом FIT на компьютере, где он запущен: Документы/Zwift/Activities.",
      "Загрузите файл .fit нужной тренировки здесь.",
    ],
  },
  original_fit: {
    en: [
      "On the {name} website, open the activity and download its original file (the one your device uploaded).",
      "When that file is a .fit file, upload it here. GPX and TCX files carry no heart-rate variability and are not read.",
    ],
    ru: [
      "На сайте {name} откройте тренировку и скачайте её исходный файл (тот, что загрузило устройство).",
      "Если это файл .fit, загрузите его здесь. Файлы GPX и TCX не содержат вариабельности пульса и не читаются.",
    ],
  },
  samsung_health_csv: {
    en: [
      "In Samsung Health, open the menu (⋮) → Settings → “Download personal data” and confirm with your Samsung account.",
      "The files appear in the phone's Download/Samsung Health folder, one CSV per data type.",
      "Upload the CSVs Tonus reads — heart rate (com.samsung.health.heart_rate…), steps (step_count or pedometer), weight, blood pressure and oxygen saturation — one at a time or together in a zip.",
    ],
    ru: [
      "В Samsung Health откройте меню (⋮) → «Настройки» → «Загрузить личные данные» и подтвердите вход в аккаунт Samsung.",
      "Файлы появятся в папке телефона Download/Samsung Health, по CSV на каждый тип данных.",
      "Загрузите CSV, которые читает Tonus: пульс (com.samsung.health.heart_rate…), шаги (step_count или pedometer), вес, давление и насыщение кислородом — по одному или вместе в zip-архиве.",
    ],
  },
  fitbit_takeout: {
    en: [
      "Open Google Takeout (takeout.google.com) with the Google account your Fitbit uses, select only Fitbit and create the export.",
      "Download the archive when Google's e-mail says it is ready.",
      "Upload the files Tonus reads: the heart-rate, steps and weight JSON files (heart_rate-…json, steps-…json, weight-…json) and the CSV summaries of heart-rate variability. A zip of them works too, up to 10,000 files.",
    ],
    ru: [
      "Откройте Google Takeout (takeout.google.com) под аккаунтом Google, к которому привязан Fitbit, выберите только Fitbit и создайте экспорт.",
      "Скачайте архив, когда придёт письмо Google о готовности.",
      "Загрузите файлы, которые читает Tonus: JSON с пульсом, шагами и весом (heart_rate-…json, steps-…json, weight-…json) и CSV-сводки вариабельности пульса. Можно и zip-архивом до 10 000 файлов.",
    ],
  },
  google_fit_takeout: {
    en: [
      "Open Google Takeout (takeout.google.com), select only Fit and create the export.",
      "In the downloaded archive, find Fit/Daily activity metrics/Daily activity metrics.csv.",
      "Upload that file here: steps, distance, calories and average weight per day.",
    ],
    ru: [
      "Откройте Google Takeout (takeout.google.com), выберите только Fit и создайте экспорт.",
      "В скачанном архиве найдите файл Fit/Daily activity metrics/Daily activity metrics.csv (в русской версии названия папок могут быть переведены).",
      "Загрузите этот файл здесь: шаги, расстояние, калории и средний вес по дням.",
    ],
  },
  oura_csv: {
    en: [
      "Sign in to Oura on the web (cloud.ouraring.com) and open Trends.",
      "Export the trends as a CSV file.",
      "Upload the CSV here: resting heart rate, average HRV (rMSSD), sleep duration, steps and respiratory rate per day.",
    ],
    ru: [
      "Войдите в веб-версию Oura (cloud.ouraring.com) и откройте «Тренды» (Trends).",
      "Выгрузите тренды в CSV-файл.",
      "Загрузите CSV здесь: пульс в покое, средняя ВСР (rMSSD), длительность сна, шаги и частота дыхания по дням.",
    ],
  },
  whoop_csv: {
    en: [
      "In the WHOOP app, open the menu → App Settings → Data Export and request an export.",
      "WHOOP e-mails a link to a zip archive.",
      "Upload physiological_cycles.csv (or the whole zip): resting heart rate, HRV (rMSSD), SpO2, skin temperature, respiratory rate, sleep and energy per cycle.",
    ],
    ru: [
      "В приложении WHOOP откройте меню → App Settings → Data Export и запросите выгрузку.",
      "WHOOP пришлёт на почту ссылку на zip-архив.",
      "Загрузите physiological_cycles.csv (или весь архив): пульс в покое, ВСР (rMSSD), SpO2, температура кожи, частота дыхания, сон и энергия за каждый цикл.",
    ],
  },
  withings_csv: {
    en: [
      "Sign in to your Withings account on the web, open the settings and choose “Download my data”.",
      "Withings e-mails a link to a zip of CSV files.",
      "Upload weight.csv and bp.csv (or the whole zip): weight with fat, muscle and bone mass, and blood pressure with pulse. Their times have no zone, so Tonus uses your time zone.",
    ],
    ru: [
      "Войдите в аккаунт Withings в браузере, откройте настройки и выберите «Скачать мои данные».",
      "Withings пришлёт на почту ссылку на zip-архив с CSV-файлами.",
      "Загрузите weight.csv и bp.csv (или весь архив): вес с массой жира, мышц и костей, давление с пульсом. Время в них без часового пояса, поэтому Tonus берёт ваш пояс.",
    ],
  },
  polar_rr: {
    en: [
      "Record the session with the chest strap paired to a Polar watch or the Polar Flow app, and let it sync.",
      "On flow.polar.com, open the session in your diary and choose to export it; pick the RR intervals file (.txt).",
      "Upload the .txt file here: Tonus turns the intervals into a measurement with the full HRV analysis.",
    ],
    ru: [
      "Запишите тренировку с нагрудным датчиком, подключённым к часам Polar или приложению Polar Flow, и дождитесь синхронизации.",
      "На flow.polar.com откройте тренировку в дневнике и выберите экспорт; укажите файл RR-интервалов (.txt).",
      "Загрузите файл .txt здесь: Tonus превратит интервалы в измерение с полным анализом ВСР.",
    ],
  },
  rr_file_app: {
    en: [
      "Record a reading in {name} with a chest strap.",
      "Export the reading's RR intervals from the app as a text or CSV file (one interval per line, or a table with an RR column).",
      "Upload the file here. Such files carry no date: Tonus dates the measurement by the file's time on your device.",
    ],
    ru: [
      "Запишите измерение в {name} с нагрудным датчиком.",
      "Выгрузите RR-интервалы измерения из приложения текстовым или CSV-файлом (по интервалу в строке или таблица со столбцом RR).",
      "Загрузите файл здесь. В таких файлах нет даты: Tonus датирует измерение временем файла на вашем устройстве.",
    ],
  },
  rr_file_any: {
    en: [
      "Any text file of beat-to-beat intervals works: one interval per line in milliseconds or seconds, or a table with an RR column (Kubios, Elite HRV, HRV Logger, Polar and Welltory layouts are recognised).",
      "Upload the file here. It becomes one measurement, dated by the file's time on your device.",
    ],
    ru: [
      "Подойдёт любой текстовый файл с интервалами между ударами: по интервалу в строке в миллисекундах или секундах либо таблица со столбцом RR (форматы Kubios, Elite HRV, HRV Logger, Polar и Welltory распознаются).",
      "Загрузите файл здесь. Он станет одним измерением с датой файла на вашем устройстве.",
    ],
  },
  generic_csv: {
    en: [
      "Save your data as a CSV file with a column holding the date (and time) of each row: most apps and spreadsheets can do this.",
      "Upload it here. Tonus shows the first rows and suggests which column holds which measure and unit.",
      "Check the suggestion, choose the date order if Tonus asks, and start the import. Lines it cannot read are listed in the report with their numbers.",
    ],
    ru: [
      "Сохраните данные CSV-файлом, где в одном столбце дата (и время) каждой строки: это умеют большинство приложений и таблиц.",
      "Загрузите файл здесь. Tonus покажет первые строки и предложит, какой столбец к какому показателю и единице относится.",
      "Проверьте предложение, при необходимости выберите порядок дня и месяца и запустите импорт. Строки, которые не удалось прочитать, попадут в отчёт с номерами.",
    ],
  },
  bluetooth_measure: {
    en: [
      "Moisten the strap's electrodes and put it on.",
      "Open Measure in Tonus in Chrome or Edge on a computer or an Android phone (Safari and iPhone browsers have no Web Bluetooth) and choose the chest strap.",
      "Pick {name} in the browser's list: Tonus records the beat-to-beat intervals live and saves the measurement.",
    ],
    ru: [
      "Смочите электроды датчика и наденьте его.",
      "Откройте «Измерение» в Tonus в Chrome или Edge на компьютере или Android-телефоне (в Safari и браузерах iPhone нет Web Bluetooth) и выберите нагрудный датчик.",
      "Выберите {name} в списке браузера: Tonus запишет интервалы между ударами в реальном времени и сохранит измерение.",
    ],
  },
  cloud_available: {
    en: [
      "Press Connect {name} below: Tonus takes you to {name}, where you sign in.",
      "Allow Tonus to read your data. You come back here, and Tonus brings in the last three months.",
      "Tonus then syncs by itself about every hour; press Sync now to fetch the latest at once. Disconnect whenever you like: Tonus withdraws its access at {name}.",
    ],
    ru: [
      "Нажмите «Подключить {name}» ниже: Tonus откроет сайт {name}, где нужно войти в аккаунт.",
      "Разрешите Tonus читать ваши данные. Вы вернётесь на эту страницу, а Tonus загрузит данные за последние три месяца.",
      "Дальше Tonus сам загружает новые данные примерно раз в час; кнопка «Синхронизировать сейчас» загрузит свежие данные сразу. Отключиться можно в любой момент: Tonus отзовёт свой доступ в {name}.",
    ],
  },
  cloud_unavailable: {
    en: [
      "Tonus can also connect to the {name} cloud once the administrator of this installation registers it with {name}.",
      "That connection is not available on this installation. Use the file or app method on this page instead.",
    ],
    ru: [
      "Tonus сможет подключаться и к облаку {name}, когда администратор этой установки зарегистрирует её в {name}.",
      "На этой установке такое подключение недоступно. Воспользуйтесь способом с файлом или приложением на этой странице.",
    ],
  },
} satisfies Record<string, LocalizedSteps>;

export type GuideKey = keyof typeof GUIDES;

/** The guide's steps with `{name}` filled in. */
export function guideSteps(key: GuideKey, name: string): LocalizedSteps {
  const fill = (s: string) => s.replaceAll("{name}", name);
  return { en: GUIDES[key].en.map(fill), ru: GUIDES[key].ru.map(fill) };
}
