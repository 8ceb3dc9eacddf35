import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import type {
  CsvPreview,
  Import,
  ImportProblem,
  ImportReport,
  Profile,
  SourceSummary,
} from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { changeLanguage } from "../../i18n/index.ts";
import { SESSION_QUERY_KEY } from "../auth/use-auth.ts";
import { PROFILE_QUERY_KEY } from "../profile/use-profile.ts";
import { buildMapping, CsvMappingForm, initialChoices } from "./CsvMappingForm.tsx";
import { matchesQuery, typesToShow } from "./DataSourcesPage.tsx";
import { ImportView } from "./ImportPanel.tsx";
import { ImportReportView } from "./ImportReportView.tsx";
import { formatBytes, fraction, timeLeftS } from "./import-format.ts";
import { SourceStateBadge } from "./SourceBits.tsx";
import { listPath, sourcePath } from "./source-paths.ts";
import { anImport, aReport } from "./test-imports.ts";

const garmin: SourceSummary = {
  slug: "garmin-fenix",
  name: "Garmin fēnix",
  logo_url: "/media/sources/garmin-fenix.svg",
  categories: ["watches"],
  data_types: ["heart_rate", "sleep"],
  method_kinds: ["file"],
  connectable: true,
  state: "none",
  last_import_at: null,
  cloud: "none",
  cloud_connectable: false,
};

describe("data-source search", () => {
  const label = (t: string) => ({ heart_rate: "пульс", sleep: "сон" })[t] ?? t;
  it("finds a source by its name without caring for case or accents, and by what it measures", () => {
    expect(matchesQuery(garmin, "FENIX", label)).toBe(true);
    expect(matchesQuery(garmin, "  сон ", label)).toBe(true);
    expect(matchesQuery(garmin, "oura", label)).toBe(false);
    expect(matchesQuery(garmin, "", label)).toBe(true);
  });
});

describe("data-source state", () => {
  afterEach(cleanup);
  const badges = () => [...document.querySelectorAll(".badge")].map((b) => b.textContent);
  it("shows a connected cloud account beside the latest import, and what needs doing, in en and ru", async () => {
    await changeLanguage("en");
    render(<SourceStateBadge source={{ ...garmin, cloud: "connected", state: "imported" }} />);
    expect(badges()).toEqual(["Connected", "Imported"]);
    cleanup();
    await changeLanguage("ru");
    render(<SourceStateBadge source={{ ...garmin, cloud: "reconnect_needed" }} />);
    expect(badges()).toEqual(["Нужно переподключить"]);
    cleanup();
    render(<SourceStateBadge source={{ ...garmin, connectable: false }} />);
    expect(badges()).toEqual(["Только в мобильном приложении"]);
    cleanup();
    render(<SourceStateBadge source={{ ...garmin, state: "needs_mapping" }} />);
    expect(badges()).toEqual(["Выберите столбцы"]);
    cleanup();
    render(<SourceStateBadge source={garmin} />);
    expect(badges()).toEqual([]);
    cleanup();
    // A cloud this installation connects, not linked yet; once linked, its state instead.
    render(<SourceStateBadge source={{ ...garmin, cloud_connectable: true, state: "imported" }} />);
    expect(badges()).toEqual(["Можно подключить аккаунт", "Импортировано"]);
    cleanup();
    render(<SourceStateBadge source={{ ...garmin, cloud_connectable: true, cloud: "connected" }} />);
    expect(badges()).toEqual(["Подключено"]);
  });
});

describe("a card's data types", () => {
  const label = (t: string) => ({ heart_rate: "Heart rate", sleep: "Sleep", steps: "Steps" })[t] ?? t;
  const types = ["heart_rate", "steps", "weight", "spo2", "sleep", "hrv"];
  it("puts the types a search matched first and counts the ones left out", () => {
    expect(typesToShow(types, "", label)).toEqual({ shown: types.slice(0, 4), more: 2 });
    expect(typesToShow(types, " SLEEP", label)).toEqual({
      shown: ["sleep", "heart_rate", "steps", "weight"],
      more: 2,
    });
    expect(typesToShow(["sleep"], "garmin", label)).toEqual({ shown: ["sleep"], more: 0 });
    // Five fit: "and 1 more" would take the fifth one's room.
    expect(typesToShow(types.slice(0, 5), "", label)).toEqual({ shown: types.slice(0, 5), more: 0 });
  });
});

describe("data-source paths", () => {
  it("keeps the mobile app's header-less variant when moving between list and entry", () => {
    expect(sourcePath("/data-sources", "oura-ring")).toBe("/data-sources/oura-ring");
    expect(sourcePath("/data-sources-mobile-back/polar-h10", "apple-health")).toBe(
      "/data-sources-mobile-back/apple-health",
    );
    expect(listPath("/data-sources-mobile-back/polar-h10")).toBe("/data-sources-mobile-back");
  });
});

describe("CSV mapping", () => {
  const preview: CsvPreview = {
    delimiter: ";",
    header: ["Datum", "Puls", "Gewicht (kg)", "Notiz"],
    rows: [["01.03.2024", "61", "70,5", "gut"]],
    date_order: "dmy",
    suggested: {
      time: "Datum",
      time_format: "dmy",
      columns: [{ column: "Gewicht (kg)", metric: "weight", unit: "kg" }],
    },
    warnings: [],
  };

  it("starts from the suggestion and sends only the columns given a measure, leaving units to the server", () => {
    const choices = { ...initialChoices(preview), Puls: "heart_rate", "Gewicht (kg)": "muscle_mass" };
    expect(buildMapping(preview, "Datum", "dmy", choices)).toEqual({
      time: "Datum",
      time_format: "dmy",
      columns: [
        { column: "Puls", metric: "heart_rate" },
        { column: "Gewicht (kg)", metric: "muscle_mass" },
      ],
    });
    expect(initialChoices(preview)).toEqual({ Datum: "", Puls: "", "Gewicht (kg)": "weight", Notiz: "" });
  });

  it("says why the import cannot start yet, and lets it start once a column and the date order are chosen", async () => {
    await changeLanguage("ru");
    const item = anImport({ status: "needs_mapping", file_name: "data.csv", preview });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <CsvMappingForm item={item} preview={{ ...preview, suggested: null }} onCancel={() => {}} />
      </QueryClientProvider>,
    );
    const start = screen.getByRole("button", { name: "Запустить импорт" });
    expect(start.hasAttribute("disabled")).toBe(true);
    expect(start.getAttribute("aria-describedby")).toBeTruthy();
    const hint = document.getElementById(start.getAttribute("aria-describedby") ?? "");
    expect(hint?.textContent).toBe(
      "Выберите показатель хотя бы для одного столбца, чтобы импортировать его.",
    );
    fireEvent.change(screen.getByRole("combobox", { name: "Puls" }), { target: { value: "heart_rate" } });
    expect(start.hasAttribute("disabled")).toBe(false);
    expect(start.hasAttribute("aria-describedby")).toBe(false);
    cleanup();
  });

  it("sends nothing while no column has a measure", () => {
    expect(
      buildMapping(preview, "Datum", "dmy", { Datum: "", Puls: "", "Gewicht (kg)": "", Notiz: "" }),
    ).toBeNull();
  });
});

describe("progress formatting", () => {
  it("writes sizes in the reader's language and bounds the share", () => {
    expect(formatBytes(1536, "en", ["B", "KB", "MB"])).toBe("1.5 KB");
    expect(formatBytes(3 * 1024 ** 3, "ru", ["Б", "КБ", "МБ", "ГБ"])).toBe("3 ГБ");
    expect(fraction(5, 0)).toBe(0);
    expect(fraction(15, 10)).toBe(1);
  });

  it("estimates the time left from the pace seen, once that pace means something", () => {
    const first = { atMs: 0, bytes: 1_000 };
    // 1,000 bytes in 10 s: 100 bytes a second, 8,000 left.
    expect(timeLeftS(first, { atMs: 10_000, bytes: 2_000 }, 10_000)).toBe(80);
    expect(timeLeftS(first, { atMs: 4_999, bytes: 2_000 }, 10_000)).toBeNull();
    expect(timeLeftS(first, { atMs: 10_000, bytes: 1_000 }, 10_000)).toBeNull();
    expect(timeLeftS(first, { atMs: 10_000, bytes: 10_000 }, 10_000)).toBeNull();
  });
});

describe("import report", () => {
  afterEach(cleanup);
  const done = (report: Partial<ImportReport>): Import =>
    anImport({
      status: "done",
      finished_at: "2026-11-27T09:00:09Z",
      progress: { ...anImport().progress, bytes_read: 2048, records_read: 12, imported: 10, duplicates: 2 },
      report: aReport({ read: 12, imported: 10, duplicates: 2, ...report }),
    });
  /** The report on `at`, for a person whose profile (its units) is `profile`, or anonymous without one. */
  const show = async (
    item: Import,
    lang: "en" | "ru",
    at = "/data-sources/apple-health",
    profile?: Pick<Profile, "units" | "energy_unit">,
  ) => {
    await changeLanguage(lang);
    const client = new QueryClient();
    client.setQueryData(SESSION_QUERY_KEY, {
      authenticated: Boolean(profile),
      user_type: profile ? "full" : "anonymous",
    });
    if (profile) client.setQueryData(PROFILE_QUERY_KEY, profile);
    const router = createMemoryRouter([{ path: "*", element: <ImportReportView item={item} /> }], {
      initialEntries: [at],
    });
    render(
      <QueryClientProvider client={client}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
  };

  it("leads to where the imported data shows: the dashboard, and the measurements or the log when it holds some", async () => {
    await show(done({ measurements: 3 }), "en");
    const next = screen.getByRole("navigation", { name: "Where to see the imported data" });
    expect([...next.querySelectorAll("a")].map((a) => [a.textContent, a.getAttribute("href")])).toEqual([
      ["See it on the dashboard", "/dashboard"],
      ["Open your measurements", "/measurements"],
    ]);
    cleanup();
    await show(done({ bp_readings: 1 }), "ru");
    const links = screen.getAllByRole("link").map((a) => a.textContent);
    expect(links).toEqual(["Посмотреть на дашборде", "Открыть дневник давления"]);
  });

  it("says when a file that broke off gave only the part before the break, in en and ru", async () => {
    const eof = { reason: "unexpected_eof" as const, offset: 1536 };
    const xml = (item: Import): Import => ({ ...item, file_name: "export.xml", kind: "apple_health_xml" });
    await show(xml(done({ fatal: eof })), "en");
    expect(screen.getByRole("heading").textContent).toBe("export.xml imported in part");
    // Where it broke off, as a share of the 2,048-byte file rather than a byte offset.
    expect(screen.getByRole("status").textContent).toBe(
      "The file ends too early: it was cut off while being saved or copied. (about 75% into the file) Everything before that point was imported.",
    );
    cleanup();
    // In a zip the offsets count the unpacked export's bytes: no share of the upload is given for them.
    await show(
      done({
        fatal: eof,
        rejected: 2,
        rejections: [
          { reason: "out_of_range", offset: 512 },
          { reason: "xml_malformed", offset: 700, entry: "apple_health_export/export.xml" },
        ],
      }),
      "ru",
    );
    expect(screen.getByRole("heading", { level: 3 }).textContent).toBe(
      "export.zip: импортирована только часть",
    );
    expect(screen.getByRole("status").textContent).toBe(
      "Файл обрывается раньше времени: его не дописали при сохранении или копировании. Всё, что было до этого места, импортировано.",
    );
    expect(screen.getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "Значение вне возможного диапазона.",
      "В этом месте XML составлен неправильно. (в файле apple_health_export/export.xml)",
    ]);
    cleanup();
    await show(done({}), "en");
    expect(screen.getByRole("heading").textContent).toBe("export.zip imported");
  });

  it("says why nothing was imported: all of it stored before, all refused, nothing in it, or a break before any record", async () => {
    const nothing = { imported: 0, duplicates: 0 };
    const heading = async (item: Import, lang: "en" | "ru") => {
      await show(item, lang);
      const text = screen.getByRole("heading", { level: 3 }).textContent;
      cleanup();
      return text;
    };
    expect(await heading(done({ ...nothing, rejected: 3 }), "en")).toBe(
      "Nothing was imported from export.zip: every record was refused",
    );
    expect(await heading(done({ ...nothing, rejected: 3 }), "ru")).toBe(
      "Из export.zip ничего не импортировано: все записи отклонены",
    );
    expect(await heading(done(nothing), "en")).toBe("export.zip holds nothing Tonus stores");
    expect(await heading(done({ imported: 0, duplicates: 12 }), "en")).toBe(
      "Nothing new was imported from export.zip",
    );
    // A break before the first record: nothing "before that point" to keep.
    await show(done({ ...nothing, fatal: { reason: "unexpected_eof", offset: 10 } }), "en");
    expect(screen.getByRole("heading", { level: 3 }).textContent).toBe("export.zip could not be imported");
    expect(screen.getByRole("status").textContent).not.toMatch(/before that point/);
    cleanup();
    await show({ ...done(nothing), status: "cancelled" }, "ru");
    expect(screen.getByText("До отмены ничего не было импортировано.")).toBeTruthy();
  });

  it("tells a damaged FIT file chained after readable ones from a file damaged from its start", async () => {
    const fit = (offset: number): Import => ({
      ...done({ fatal: { reason: "invalid_header", offset } }),
      file_name: "ride.fit",
      kind: "fit",
      progress: { ...anImport().progress, bytes_total: 854 },
    });
    await show(fit(771), "en");
    expect(screen.getByRole("status").textContent).toBe(
      "Further on, the file holds another FIT file whose header is damaged: that part cannot be read. (about 90% into the file) Everything before that point was imported.",
    );
  });

  it("names a refused value and its metric in the person's language, and only what it can read", async () => {
    const refused = (detail: string) => ({ reason: "out_of_range" as const, offset: 1024, detail });
    const zipped = done({
      rejected: 4,
      rejections: [
        refused("heart_rate 900"),
        refused("weight 4000"),
        refused("rmssd 1.5"),
        refused("not a metric 7"),
      ],
    });
    const item: Import = { ...zipped, kind: "apple_health_xml" };
    await show(item, "en");
    expect(screen.getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "A value is outside the possible range. (Heart rate: 900 bpm, about 50% into the file)",
      "A value is outside the possible range. (Weight: 4,000 kg, about 50% into the file)",
      // Stored in seconds, shown in the dashboard's unit.
      "A value is outside the possible range. (HRV (rMSSD): 1,500 ms, about 50% into the file)",
      "A value is outside the possible range. (about 50% into the file)",
    ]);
    cleanup();
    await show(item, "ru");
    const items = screen.getAllByRole("listitem").map((li) => li.textContent?.replace(/\s/g, " "));
    expect(items.slice(0, 2)).toEqual([
      "Значение вне возможного диапазона. (Пульс: 900 уд/мин, примерно на 50 % от начала файла)",
      "Значение вне возможного диапазона. (Вес: 4 000 кг, примерно на 50 % от начала файла)",
    ]);
    // In the person's units: pounds, and energy in kilojoules.
    cleanup();
    const energy = done({
      rejected: 2,
      rejections: [refused("weight 4000"), refused("active_energy 418400000")],
    });
    await show({ ...energy, kind: "apple_health_xml" }, "en", undefined, {
      units: "imperial",
      energy_unit: "kj",
    });
    expect(screen.getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "A value is outside the possible range. (Weight: 8,818.49 lb, about 50% into the file)",
      "A value is outside the possible range. (Active energy: 418,400 kJ, about 50% into the file)",
    ]);
  });

  it("quotes a line's unreadable text, but not the server's own wording", async () => {
    await show(
      done({
        rejected: 3,
        // The parser's problems first, then the server's: shown in the file's order.
        rejections: [
          { reason: "invalid_date", line: 5, detail: "31.02.2024" },
          { reason: "invalid_date", offset: 100, detail: "startDate" },
          { reason: "invalid_value", line: 4, detail: "Heart rate: abc" },
        ],
      }),
      "en",
    );
    expect(screen.getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "A value is not a valid number. (“Heart rate: abc”, line 4)",
      "A date cannot be read. (“31.02.2024”, line 5)",
      "A date cannot be read.",
    ]);
    cleanup();
    // A zip's files stay together, in the order their first problem came; a FIT file's offsets apart.
    await show(
      done({
        rejected: 4,
        rejections: [
          { reason: "invalid_value", line: 50, entry: "b.csv" },
          { reason: "invalid_record", offset: 120, entry: "a.fit" },
          { reason: "invalid_value", line: 2, entry: "b.csv" },
          { reason: "crc_mismatch", offset: 40, entry: "a.fit" },
        ],
      }),
      "en",
    );
    expect(
      screen.getAllByRole("listitem").map((li) => li.textContent?.replace(/^.*\((.*)\)$/, "$1")),
    ).toEqual(["in b.csv, line 2", "in b.csv, line 50", "in a.fit", "in a.fit"]);
    expect(screen.getAllByRole("listitem")[2]?.textContent).toMatch(/^The file's checksum/);
    cleanup();
    await show(
      done({ rejected: 1, rejections: [{ reason: "invalid_value", line: 3, detail: "Вес: abc" }] }),
      "ru",
    );
    expect(screen.getByRole("listitem").textContent).toBe(
      "Значение не является допустимым числом. («Вес: abc», строка 3)",
    );
  });

  it("shows the first 20 problems, the other kept ones on request, and counts those not kept", async () => {
    const problems = Array.from({ length: 30 }, (_, i) => ({
      reason: "invalid_value" as const,
      line: i + 2,
    }));
    await show(done({ rejected: 45, rejections: problems }), "ru");
    expect(screen.getAllByRole("listitem")).toHaveLength(20);
    fireEvent.click(screen.getByRole("button", { name: "Показать ещё 10 проблем" }));
    expect(screen.getAllByRole("listitem")).toHaveLength(30);
    // The focus goes from the button, now gone, to the first problem it showed.
    expect(document.activeElement).toBe(screen.getAllByRole("listitem")[20]);
    expect(screen.getByText("…и ещё 15.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: /Показать ещё/ })).toBeNull();
  });

  it("lists what it left out on purpose: types, columns, files, beat intervals, in en and ru", async () => {
    const warnings: ImportProblem[] = [
      { reason: "unsupported_type", detail: "HKQuantityTypeIdentifierDietaryCaffeine" },
      { reason: "unsupported_type", detail: "HKCategoryTypeIdentifierMindfulSession" },
      { reason: "unsupported_type", detail: "nested archive old/export.zip not expanded" },
      { reason: "unsupported_type", entry: "notes.txt" },
      { reason: "missing_field", entry: "mine.csv" },
      { reason: "out_of_range", detail: "3 beat intervals outside 200-3000 ms", entry: "a.fit" },
      { reason: "out_of_range", detail: "2 beat intervals outside 200-3000 ms", entry: "b.fit" },
      { reason: "unsupported_type", detail: "developer fields skipped", entry: "a.fit" },
      { reason: "xml_entity_declared", detail: "DOCTYPE ignored (1 entities); nothing expanded" },
    ];
    await show(done({ ignored: 40, warnings }), "en");
    const items = () =>
      within(screen.getByRole("list"))
        .getAllByRole("listitem")
        .map((li) => li.textContent);
    expect(screen.getByRole("heading", { level: 4 }).textContent).toBe("Left out");
    expect(items()).toEqual([
      "Data types Tonus does not keep: DietaryCaffeine and MindfulSession.",
      "Files in the archive Tonus does not read: “old/export.zip” and “notes.txt”.",
      "CSV files in the archive whose columns Tonus does not recognise: “mine.csv”. Upload each through “Other CSV file” to choose its columns",
      "5 beat intervals outside 200–3000 ms were left out of the RR series.",
      "Developer fields (extra data apps write into FIT files) were skipped.",
      "The file declares XML entities. Tonus expanded none of them and read the rest of the file.",
    ]);
    cleanup();
    const columns: ImportProblem[] = [
      { reason: "unsupported_type", detail: "column Пульс" },
      { reason: "unsupported_type", detail: "column Шаги" },
      { reason: "out_of_range", detail: "21 beat intervals outside 200-3000 ms" },
    ];
    await show(done({ warnings: columns }), "ru", "/data-sources-mobile-back/withings");
    expect(items()).toEqual([
      "Столбцы, которые при импорте этого формата не читаются: «Пульс» и «Шаги». Импортировать их через «Другой CSV-файл»",
      "21 интервал между ударами вне 200–3000 мс не вошёл в ряд RR.",
    ]);
    // The link keeps to the mobile app's header-less pages.
    expect(screen.getByRole("link").getAttribute("href")).toBe("/data-sources-mobile-back/csv-file");
    cleanup();
    await show(done({ warnings: [] }), "en");
    expect(screen.queryByText("Left out")).toBeNull();
  });

  it("offers no links when nothing new was imported, nor in the mobile app's header-less pages", async () => {
    await show(done({ imported: 0, duplicates: 12 }), "en");
    expect(screen.getByRole("heading").textContent).toBe("Nothing new was imported from export.zip");
    expect(screen.queryByRole("navigation")).toBeNull();
    expect(screen.queryAllByRole("link")).toEqual([]);
    cleanup();
    await show(done({ measurements: 3 }), "en", "/data-sources-mobile-back/apple-health");
    expect(screen.getByText("10")).toBeTruthy();
    expect(screen.queryAllByRole("link")).toEqual([]);
  });
});

describe("import progress", () => {
  afterEach(cleanup);
  const running = (bytesRead: number): Import =>
    anImport({ progress: { ...anImport().progress, bytes_read: bytesRead } });
  const show = (item: Import) =>
    render(<ImportView item={item} units={["B", "KB", "MB"]} onCancel={() => {}} isCancelling={false} />);

  it("says it is getting ready, with a moving bar, until the first bytes are read, then counts them", async () => {
    await changeLanguage("en");
    show(running(0));
    expect(screen.getByText("Getting ready to read 2 KB…")).toBeTruthy();
    expect(screen.getByRole("progressbar").hasAttribute("value")).toBe(false);
    cleanup();
    await changeLanguage("ru");
    show(running(1024));
    expect(screen.getByText(/^Прочитано 1 KB из 2 KB\./)).toBeTruthy();
    expect((screen.getByRole("progressbar") as HTMLProgressElement).value).toBe(0.5);
  });

  it("keeps the focus on Cancel while the cancelling runs: the report that replaces it takes it then", async () => {
    await changeLanguage("en");
    let cancels = 0;
    render(
      <ImportView item={running(1024)} units={["B", "KB", "MB"]} onCancel={() => cancels++} isCancelling />,
    );
    const cancel = screen.getByRole("button", { name: /Cancelling…/ });
    // Disabled, Chromium would drop its focus to the page's start before the report replaced it.
    expect(cancel.hasAttribute("disabled")).toBe(false);
    expect(cancel.getAttribute("aria-disabled")).toBe("true");
    fireEvent.click(cancel);
    expect(cancels).toBe(0);
  });

  it("says how long is left once it has watched the pace for a while, in the reader's plural", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const at = (bytes: number, total: number) =>
        anImport({ progress: { ...anImport().progress, bytes_read: bytes, bytes_total: total } });
      const view = (item: Import) => (
        <ImportView item={item} units={["B", "KB", "MB"]} onCancel={() => {}} isCancelling={false} />
      );
      await changeLanguage("en");
      vi.setSystemTime(0);
      const { rerender } = render(view(at(1_000_000, 10_000_000)));
      expect(screen.queryByText(/left\./)).toBeNull();
      // 1 MB in 30 s, 8 MB to go: four minutes.
      vi.setSystemTime(30_000);
      rerender(view(at(2_000_000, 10_000_000)));
      expect(screen.getByText(/About 4 minutes left\.$/)).toBeTruthy();
      vi.setSystemTime(60_000);
      rerender(view(at(9_900_000, 10_000_000)));
      expect(screen.getByText(/Less than a minute left\.$/)).toBeTruthy();
      await changeLanguage("ru");
      rerender(view(at(2_000_000, 10_000_000)));
      // 1 MB a minute now, 8 MB to go.
      expect(screen.getByText(/Осталось около 8 минут\.$/)).toBeTruthy();
      rerender(view(at(2_000_000, 22_000_000)));
      expect(screen.getByText(/Осталось около 20 минут\.$/)).toBeTruthy();
      rerender(view(at(2_000_000, 23_000_000)));
      expect(screen.getByText(/Осталось около 21 минуты\.$/)).toBeTruthy();
      // Another import starts its own watch.
      rerender(view({ ...at(2_000_000, 23_000_000), id: "imp-2" }));
      expect(screen.queryByText(/Осталось/)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
