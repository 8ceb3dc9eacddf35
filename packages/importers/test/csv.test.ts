import { leftOutOf } from "@tonus/contract";
import { describe, expect, it } from "vitest";
import {
  type CsvMapping,
  chunksOf,
  collect,
  convertCsvValue,
  DECODE_SLICE_BYTES,
  decodeText,
  detectDelimiter,
  type ImportRecord,
  importCsv,
  importHealthExport,
  importRrText,
  metricForHeader,
  parseDateTime,
  previewCsv,
  readCsvRows,
  type SampleRecord,
  unitInHeader,
} from "../src/index.ts";

const enc = new TextEncoder();
const utf8 = (s: string) => enc.encode(s);

async function run(session: ReturnType<typeof importCsv>) {
  const records = await collect(session.records);
  return { records, report: session.report };
}

const values = (records: ImportRecord[], metric: string) =>
  records.filter((r): r is SampleRecord => r.kind === "sample" && r.metric === metric).map((r) => r.value);

async function* text(...parts: string[]) {
  yield* parts;
}

describe("decodeText", () => {
  // Whole chunks are decoded in slices of DECODE_SLICE_BYTES: characters cut by a slice's end must
  // come out whole, and an invalid byte must be reported where it is in the file.
  it("decodes characters cut at every slice boundary of a large chunk", async () => {
    for (const char of ["й", "€", "😀"]) {
      for (let shift = 0; shift < 4; shift++) {
        const pad = "a".repeat(DECODE_SLICE_BYTES - shift);
        const original = `${pad}${char}${pad}${char}${"b".repeat(5000)}`;
        const bytes = utf8(original);
        const decoded = (await collect(decodeText(chunksOf(bytes, bytes.length)))).join("");
        expect(decoded).toBe(original);
        // and cut by chunk ends too
        expect((await collect(decodeText(chunksOf(bytes, DECODE_SLICE_BYTES + 1)))).join("")).toBe(original);
      }
    }
  });

  it("reports the offset of an invalid byte past the first slice", async () => {
    const bytes = utf8(`${"x".repeat(3 * DECODE_SLICE_BYTES)}\n`);
    const at = 2 * DECODE_SLICE_BYTES + 123;
    bytes[at] = 0xff;
    await expect(collect(decodeText(chunksOf(bytes, bytes.length)))).rejects.toMatchObject({
      rejection: { reason: "not_utf8", offset: at },
    });
  });
});

describe("readCsvRows", () => {
  it("reads quoted fields with delimiters, doubled quotes and line breaks, whatever the chunking", async () => {
    const rows = await collect(readCsvRows(text('a,"b,1","say ""hi""\r\n', 'x"\n1,2,"multi\nline"\n3,4,5')));
    expect(rows).toEqual([
      { line: 1, fields: ["a", "b,1", 'say "hi"\r\nx'] },
      { line: 3, fields: ["1", "2", "multi\nline"] },
      { line: 5, fields: ["3", "4", "5"] },
    ]);
  });

  it.each([
    [";", "date;weight\n01.02.2024;72,5\n"],
    ["\t", "date\tweight\n01.02.2024\t72.5\n"],
  ])("detects the %j delimiter", async (delimiter, csv) => {
    const detected = { delimiter: "" };
    const rows = await collect(readCsvRows(text(csv), { detected }));
    expect(detected.delimiter).toBe(delimiter);
    expect(rows[1]?.fields).toHaveLength(2);
  });

  it("takes the delimiter every data line repeats as often as the header, whatever the chunking", async () => {
    // More commas than semicolons in the header, but only the semicolons recur on each line.
    const csv = "Дата;Давление, мм рт. ст., верхнее;Пульс, уд/мин\n01.03.2024;120;65\n02.03.2024;118,5;61\n";
    for (const parts of [[csv], [...csv]]) {
      const detected = { delimiter: "" };
      const rows = await collect(readCsvRows(text(...parts), { detected }));
      expect(detected.delimiter).toBe(";");
      expect(rows.map((r) => r.fields.length)).toEqual([3, 3, 3]);
    }
    expect(detectDelimiter(["a,b,c", "1,2,3", "4,5,6"])).toBe(",");
    // A header alone, or lines that agree on nothing: the header's most frequent, a tie to the semicolon.
    expect(detectDelimiter(["Дата;Вес, кг;Рост, см"])).toBe(";");
    expect(detectDelimiter(["a\tb\tc;d", "1\t2"])).toBe("\t");
    expect(detectDelimiter(["date"])).toBe(",");
    // Samsung Health's metadata line is not the header.
    const samsung = await collect(
      readCsvRows(text("com.samsung.health.weight,6313011,3\nstart_time;weight\n2024-01-01;70\n"), {
        skipLines: 1,
      }),
    );
    expect(samsung.map((r) => r.fields)).toEqual([
      ["start_time", "weight"],
      ["2024-01-01", "70"],
    ]);
  });
});

describe("parseDateTime", () => {
  it("reads ISO, US and European dates", () => {
    const t = Date.UTC(2024, 1, 3, 8, 5, 6);
    expect(parseDateTime("2024-02-03T08:05:06Z")).toBe(t);
    expect(parseDateTime("2024-02-03 09:05:06+01:00")).toBe(t);
    expect(parseDateTime("2024-02-03 08:05:06.000")).toBe(t);
    expect(parseDateTime("02/03/24 08:05:06", "mdy")).toBe(t);
    expect(parseDateTime("02/13/2024 8:05 AM")).toBe(Date.UTC(2024, 1, 13, 8, 5));
    expect(parseDateTime("03.02.2024 08:05:06")).toBe(t);
    expect(parseDateTime("13/02/2024")).toBe(Date.UTC(2024, 1, 13));
    expect(parseDateTime("03.02.2024 10:05:06", "auto", 120)).toBe(t);
  });

  it("refuses ambiguous and impossible dates", () => {
    expect(parseDateTime("02/03/2024")).toBeNaN();
    expect(parseDateTime("2024-02-30")).toBeNaN();
    expect(parseDateTime("31.13.2024")).toBeNaN();
    expect(parseDateTime("soon")).toBeNaN();
  });
});

describe("importCsv (generic, with a column mapping)", () => {
  const mapping = {
    time: "Date",
    columns: [
      { column: "Weight (lb)", metric: "weight" },
      { column: "Pulse", metric: "heart_rate" },
    ],
  };

  it("converts units from the header and rejects bad lines with their numbers", async () => {
    const csv =
      "Date,Weight (lb),Pulse\n2024-02-01,150,61\n2024-02-02,abc,62\nyesterday,151,63\n\n2024-02-04,,64\n";
    const { records, report } = await run(
      importCsv(utf8(csv).length ? chunksOf(utf8(csv), 5) : chunksOf(utf8(csv)), { mapping }),
    );
    expect(values(records, "weight").map((v) => Math.round(v * 1000) / 1000)).toEqual([68.039]);
    expect(values(records, "heart_rate")).toEqual([61, 62, 64]);
    expect(report.rejected).toEqual([
      { reason: "invalid_value", line: 3, detail: "Weight (lb): abc" },
      { reason: "invalid_date", line: 4, detail: "yesterday" },
    ]);
    expect(report.read).toBe(4);
    expect(report.fatal).toBeUndefined();
  });

  it("reads semicolons, decimal commas and dd.mm.yyyy", async () => {
    const csv = "Date;Weight (kg);Pulse\n03.02.2024;72,5;60\n";
    const { records } = await run(
      importCsv(chunksOf(utf8(csv)), {
        mapping: { ...mapping, columns: [{ column: "Weight (kg)", metric: "weight" }] },
      }),
    );
    expect(records).toEqual([
      expect.objectContaining({ metric: "weight", value: 72.5, at: Date.UTC(2024, 1, 3) }),
    ]);
  });

  it("rejects day/month-ambiguous rows until a row decides the order", async () => {
    const csv = "Date,Pulse\n02/03/2024,60\n13/03/2024,61\n02/03/2024,62\n";
    const { records, report } = await run(importCsv(chunksOf(utf8(csv)), { mapping }));
    expect(report.rejected).toEqual([{ reason: "ambiguous_date", line: 2, detail: "02/03/2024" }]);
    expect(records.map((r) => (r.kind === "sample" ? r.at : 0))).toEqual([
      Date.UTC(2024, 2, 13),
      Date.UTC(2024, 2, 2),
    ]);
    const explicit = await run(
      importCsv(chunksOf(utf8(csv)), { mapping: { ...mapping, timeFormat: "mdy" } }),
    );
    expect(explicit.records).toHaveLength(2);
    expect(explicit.report.rejected.map((r) => r.reason)).toEqual(["invalid_date"]);
  });

  it("reads UTF-8 with a BOM, UTF-16LE and windows-1251 when told", async () => {
    const csv = "Date,Pulse,Заметка\n2024-02-01,61,утро\n";
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(csv)]);
    expect((await run(importCsv(chunksOf(bom, 2), { mapping }))).records).toHaveLength(1);
    const utf16 = new Uint8Array(Buffer.from(`\uFEFF${csv}`, "utf16le"));
    expect((await run(importCsv(chunksOf(utf16, 3), { mapping }))).records).toHaveLength(1);
    const cp1251 = new Uint8Array([...utf8("Date,Pulse,Note\n2024-02-01,61,"), 0xf3, 0xf2, 0xf0, 0xee, 0x0a]);
    expect(
      (await run(importCsv(chunksOf(cp1251), { mapping, encoding: "windows-1251" }))).records,
    ).toHaveLength(1);
  });

  it("ends a file in the wrong encoding with a clear report", async () => {
    const cp1251 = new Uint8Array([...utf8("Date,Pulse,Note\n2024-02-01,61,"), 0xf3, 0xf2, 0xf0, 0xee, 0x0a]);
    const { report } = await run(importCsv(chunksOf(cp1251), { mapping }));
    expect(report.fatal).toMatchObject({ reason: "not_utf8" });
    expect(report.fatal?.offset).toBeGreaterThan(0);
  });

  it("reports a missing time column and an unknown unit", async () => {
    const noTime = await run(importCsv(chunksOf(utf8("When,Pulse\n1,2\n")), { mapping }));
    expect(noTime.report.fatal).toMatchObject({ reason: "missing_field" });
    const badUnit = await run(
      importCsv(chunksOf(utf8("Date,Weight (stone-ish)\n2024-01-01,2\n")), {
        mapping: { time: "Date", columns: [{ column: "Weight (stone-ish)", metric: "weight" }] },
      }),
    );
    expect(badUnit.report.fatal).toMatchObject({ reason: "unknown_unit" });
  });

  it("reads a mapped column in its header's unit when the mapping names none", async () => {
    const csv = "Date;Weight (lb);Sleep (min)\n2024-03-01;154;450\n";
    const { records, report } = await run(
      importCsv(chunksOf(utf8(csv)), {
        mapping: {
          time: "Date",
          columns: [
            { column: "Weight (lb)", metric: "weight" },
            { column: "Sleep (min)", metric: "sleep" },
          ],
        },
      }),
    );
    expect(report.fatal).toBeUndefined();
    expect(values(records, "weight")[0]).toBeCloseTo(154 * 0.45359237, 6);
    expect(values(records, "sleep")).toEqual([450 * 60]);
  });

  it("reads a column given another measure than its header's in that measure's usual unit", async () => {
    const csv = "Date,Distance (km)\n2024-03-01,350\n";
    const asEnergy = await run(
      importCsv(chunksOf(utf8(csv)), {
        mapping: { time: "Date", columns: [{ column: "Distance (km)", metric: "active_energy" }] },
      }),
    );
    expect(asEnergy.report.fatal).toBeUndefined();
    // kcal, energy's usual unit, in joules.
    expect(values(asEnergy.records, "active_energy")).toEqual([350 * 4184]);
  });

  it.runIf(process.env.TONUS_HEAVY)(
    "streams a million lines in constant memory",
    async () => {
      async function* lines() {
        yield utf8("Date,Pulse\n");
        const t0 = Date.UTC(2020, 0, 1);
        for (let b = 0; b < 1000; b++) {
          let chunk = "";
          for (let i = 0; i < 1000; i++)
            chunk += `${new Date(t0 + (b * 1000 + i) * 1000).toISOString()},${60 + (i % 30)}\n`;
          yield utf8(chunk);
        }
      }
      const session = importCsv(lines(), { mapping });
      const before = process.memoryUsage().rss;
      let n = 0;
      for await (const batch of session.batches) n += batch.length;
      expect(n).toBe(1_000_000);
      expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    },
    300_000,
  );
});

describe("previewCsv", () => {
  it("suggests a mapping with metrics and units from the headers", async () => {
    const csv = "Date;Weight (kg);Heart rate;Comments\n03.02.2024;72,5;61;\n04.02.2024;72,4;;ok\n";
    const preview = await previewCsv(chunksOf(utf8(csv)));
    expect(preview.delimiter).toBe(";");
    expect(preview.dateOrder).toBe("dmy");
    expect(preview.suggested).toEqual({
      time: "Date",
      timeFormat: "dmy",
      columns: [
        { column: "Weight (kg)", metric: "weight", unit: "kg" },
        { column: "Heart rate", metric: "heart_rate" },
      ],
    });
  });

  it("finds the date column by its values when its header is not a known name", async () => {
    const preview = await previewCsv(chunksOf(utf8("when,steps\n2024-03-01,8000\n2024-03-02,9000\n")));
    expect(preview.suggested).toEqual({
      time: "when",
      timeFormat: "iso",
      columns: [{ column: "steps", metric: "steps" }],
    });
  });

  it("splits a semicolon file whose headers hold commas on its semicolons", async () => {
    const preview = await previewCsv(chunksOf(utf8("Дата;Вес, кг;Рост, см\n01.03.2024;72,5;180\n")));
    expect(preview.delimiter).toBe(";");
    expect(preview.header).toEqual(["Дата", "Вес, кг", "Рост, см"]);
    expect(preview.suggested?.columns).toEqual([
      { column: "Вес, кг", metric: "weight", unit: "кг" },
      { column: "Рост, см", metric: "height", unit: "см" },
    ]);
  });

  it("says when dates fit both orders", async () => {
    const preview = await previewCsv(chunksOf(utf8("date,steps\n01/02/2024,5\n03/04/2024,6\n")));
    expect(preview.dateOrder).toBe("ambiguous");
    expect(preview.warnings.length).toBeGreaterThan(0);
  });
});

describe("a Russian CSV (semicolons, decimal commas, dd.mm.yyyy, Russian headers and units)", () => {
  const csv = "Дата;Пульс;Вес (кг)\r\n01.03.2024;72;72,5\r\n02.03.2024;70;72,4\r\n";

  it("is previewed with a suggested time column, date order and metrics", async () => {
    const preview = await previewCsv(chunksOf(utf8(csv)));
    expect(preview.warnings).toEqual([]);
    expect(preview.suggested).toEqual({
      time: "Дата",
      timeFormat: "dmy",
      columns: [
        { column: "Пульс", metric: "heart_rate" },
        { column: "Вес (кг)", metric: "weight", unit: "кг" },
      ],
    });
  });

  it("imports with the suggested mapping", async () => {
    const { suggested } = await previewCsv(chunksOf(utf8(csv)));
    if (!suggested) throw new Error("no suggested mapping");
    const { records, report } = await run(importCsv(chunksOf(utf8(csv), 7), { mapping: suggested }));
    expect(report.fatal).toBeUndefined();
    expect(report.rejected).toEqual([]);
    expect(records).toEqual([
      expect.objectContaining({ metric: "heart_rate", at: Date.UTC(2024, 2, 1), value: 72, unit: "bpm" }),
      expect.objectContaining({ metric: "weight", at: Date.UTC(2024, 2, 1), value: 72.5, unit: "kg" }),
      expect.objectContaining({ metric: "heart_rate", at: Date.UTC(2024, 2, 2), value: 70, unit: "bpm" }),
      expect.objectContaining({ metric: "weight", at: Date.UTC(2024, 2, 2), value: 72.4, unit: "kg" }),
    ]);
  });

  it("recognises Russian date and time headers in any case", async () => {
    for (const time of ["дата", "ВРЕМЯ", "Дата и время", "День", "Начало", "Время начала"]) {
      const preview = await previewCsv(chunksOf(utf8(`${time};Шаги\n2024-03-01;8000\n`)));
      expect(preview.suggested).toEqual({
        time,
        timeFormat: "iso",
        columns: [{ column: "Шаги", metric: "steps" }],
      });
    }
  });

  it("maps Russian metric words, the specific before the general", () => {
    const cases: [string, string | undefined][] = [
      ["Пульс в покое", "resting_heart_rate"],
      ["ЧСС в покое (уд/мин)", "resting_heart_rate"],
      ["Пульс покоя", "resting_heart_rate"],
      ["ЧСС покоя", "resting_heart_rate"],
      ["Частота сердечных сокращений", "heart_rate"],
      ["Вариабельность сердечного ритма", "rmssd"],
      ["ВСР (мс)", "rmssd"],
      ["Вариабельность пульса", "rmssd"],
      ["ВСР в покое", "rmssd"],
      ["ПУЛЬС", "heart_rate"],
      ["Шаги", "steps"],
      ["Длина шага", undefined],
      ["Расстояние (км)", "distance"],
      ["Дистанция", "distance"],
      ["Калории", "active_energy"],
      ["Энергия (кДж)", "active_energy"],
      ["Сожжено, ккал", "active_energy"],
      ["Мышечная масса (кг)", "muscle_mass"],
      ["Костная масса", "bone_mass"],
      ["Жировая масса (кг)", "fat_mass"],
      ["Жир (%)", "body_fat"],
      ["% жира", "body_fat"],
      ["Вес (кг)", "weight"],
      ["Масса тела", "weight"],
      ["Рост (см)", "height"],
      ["Скорость (км/ч)", undefined],
      ["Кислород (%)", "spo2"],
      ["Сатурация", "spo2"],
      ["SpO2", "spo2"],
      ["Частота дыхания", "respiratory_rate"],
      ["Сон (ч)", "sleep"],
      ["Длительность сна", "sleep"],
      ["Температура (°С)", "skin_temperature"],
      ["Систолическое (мм рт. ст.)", "bp_systolic"],
      ["Верхнее", "bp_systolic"],
      ["Диастолическое", "bp_diastolic"],
      ["Нижнее", "bp_diastolic"],
      ["Комментарий", undefined],
    ];
    expect(cases.map(([header]) => [header, metricForHeader(header)])).toEqual(cases);
  });

  it("converts values written in Russian units", () => {
    expect(convertCsvValue("weight", 72.5, "кг")).toBe(72.5);
    expect(convertCsvValue("weight", 160, "фунты")).toBeCloseTo(72.575, 3);
    expect(convertCsvValue("weight", 160, "фунтов")).toBeCloseTo(72.575, 3);
    expect(convertCsvValue("weight", 500, "г")).toBe(0.5);
    expect(convertCsvValue("active_energy", 350, "ккал")).toBe(350 * 4184);
    expect(convertCsvValue("active_energy", 2, "кДж")).toBe(2000);
    expect(convertCsvValue("distance", 5.2, "км")).toBe(5200);
    expect(convertCsvValue("height", 175, "см")).toBe(1.75);
    expect(convertCsvValue("sleep", 7.5, "ч")).toBe(27000);
    expect(convertCsvValue("rmssd", 42, "мс")).toBeCloseTo(0.042, 6);
    expect(convertCsvValue("heart_rate", 72, "уд/мин")).toBe(72);
    expect(convertCsvValue("bp_systolic", 120, "мм рт. ст.")).toBe(120);
    expect(convertCsvValue("skin_temperature", 36.6, "°С")).toBe(36.6);
    expect(convertCsvValue("weight", 1, "км")).toBeUndefined();
    // Hours and minutes spelled out, as a sleep column says them ("Сон, часы": 7.5 hours, not seconds).
    for (const unit of ["часы", "часов", "час", "hours", "hrs"])
      expect(convertCsvValue("sleep", 7.5, unit)).toBe(27000);
    for (const unit of ["минут", "минуты", "minutes", "mins"])
      expect(convertCsvValue("sleep", 450, unit)).toBe(27000);
    expect(unitInHeader("Сон, часы")).toBe("часы");
    expect(convertCsvValue("distance", 3, "мили")).toBeCloseTo(4828.032, 3);
    expect(convertCsvValue("height", 70, "in")).toBeCloseTo(1.778, 4);
  });

  it("suggests no measure for a column whose unit that measure cannot be in", async () => {
    const preview = await previewCsv(chunksOf(utf8("Дата;Жиры, г;Сон (часы);Пульс\n01.03.2024;70;7,5;61\n")));
    expect(preview.suggested?.columns).toEqual([
      { column: "Сон (часы)", metric: "sleep", unit: "часы" },
      { column: "Пульс", metric: "heart_rate" },
    ]);
    const { records, report } = await run(
      importCsv(chunksOf(utf8("Дата;Жиры, г;Сон (часы);Пульс\n01.03.2024;70;7,5;61\n")), {
        mapping: preview.suggested as CsvMapping,
        requireColumns: true,
      }),
    );
    expect(report.fatal).toBeUndefined();
    expect(values(records, "sleep")).toEqual([27000]);
    expect(values(records, "body_fat")).toEqual([]);
  });

  it("reads a unit written after a comma, as Russian spreadsheets do, but only a unit it knows", () => {
    expect(unitInHeader("Вес, кг")).toBe("кг");
    expect(unitInHeader("Рост, см")).toBe("см");
    expect(unitInHeader("Height, cm")).toBe("cm");
    expect(unitInHeader("Weight (kg)")).toBe("kg");
    // Not a unit: the header keeps none, and the metric's usual unit applies.
    expect(unitInHeader("Steps, walking")).toBeUndefined();
    expect(unitInHeader("Пульс")).toBeUndefined();
  });
});

describe("importHealthExport", () => {
  it("reads a Samsung Health heart-rate file (metadata line, prefixed columns)", async () => {
    const csv = [
      "com.samsung.shealth.tracker.heart_rate,6313011,12",
      "com.samsung.health.heart_rate.create_sh_ver,com.samsung.health.heart_rate.start_time,com.samsung.health.heart_rate.heart_rate,com.samsung.health.heart_rate.time_offset,com.samsung.health.heart_rate.end_time,",
      "63010,2024-02-01 06:30:00.000,58,UTC+0300,2024-02-01 06:30:00.000,",
      "63010,2024-02-01 06:31:00.000,61,UTC+0300,2024-02-01 06:32:00.000,",
    ].join("\n");
    const { records, report } = await run(importHealthExport(chunksOf(utf8(csv), 17)));
    expect(report.format).toBe("csv.samsung_health");
    expect(report.fatal).toBeUndefined();
    expect(records).toEqual([
      expect.objectContaining({
        metric: "heart_rate",
        value: 58,
        at: Date.UTC(2024, 1, 1, 6, 30),
        source: "samsung_health",
      }),
      expect.objectContaining({ metric: "heart_rate", value: 61, endAt: Date.UTC(2024, 1, 1, 6, 32) }),
    ]);
  });

  it("reads Samsung steps and blood pressure", async () => {
    const steps =
      "com.samsung.shealth.tracker.pedometer_step_count,6313011,12\ncom.samsung.health.step_count.start_time,com.samsung.health.step_count.count,com.samsung.health.step_count.distance,com.samsung.health.step_count.calorie\n2024-02-01 07:00:00.000,120,90.5,4.2\n";
    const s = await run(importHealthExport(chunksOf(utf8(steps))));
    expect(values(s.records, "steps")).toEqual([120]);
    expect(values(s.records, "distance")).toEqual([90.5]);
    expect(values(s.records, "active_energy")[0]).toBeCloseTo(4.2 * 4184, 6);
    const bp =
      "com.samsung.shealth.blood_pressure,6313011,4\ncom.samsung.health.blood_pressure.start_time,com.samsung.health.blood_pressure.systolic,com.samsung.health.blood_pressure.diastolic,com.samsung.health.blood_pressure.pulse\n2024-02-01 07:00:00.000,124,81,66\n";
    const b = await run(importHealthExport(chunksOf(utf8(bp))));
    expect(b.records).toEqual([
      expect.objectContaining({ kind: "bp", systolicMmHg: 124, diastolicMmHg: 81, pulseBpm: 66 }),
    ]);
  });

  it("reads an Oura trends export", async () => {
    const csv =
      "date,Activity Score,Sleep Score,Readiness Score,Average Resting Heart Rate,Average HRV,Total Sleep Duration,Steps\n2024-02-01,80,85,78,52.5,48,27000,9123\n";
    const { records, report } = await run(importHealthExport(chunksOf(utf8(csv))));
    expect(report.format).toBe("csv.oura");
    expect(values(records, "resting_heart_rate")).toEqual([52.5]);
    expect(values(records, "rmssd")).toEqual([0.048]);
    expect(values(records, "sleep")).toEqual([27000]);
    expect(values(records, "steps")).toEqual([9123]);
    // Oura's scores are its own figures, not measures left out.
    expect(report.warnings).toEqual([]);
  });

  it("reads a Whoop cycles export with its time zones", async () => {
    const csv =
      "Cycle start time,Cycle end time,Cycle timezone,Recovery score %,Resting heart rate (bpm),Heart rate variability (ms),Skin temp (celsius),Blood oxygen %,Energy burned (cal),Respiratory rate (rpm),Asleep duration (min)\n2024-02-01 23:10:00,2024-02-02 22:40:00,UTC+01:00,66,54,61,33.4,96.5,2100,14.8,412\n";
    const { records } = await run(importHealthExport(chunksOf(utf8(csv))));
    const at = Date.UTC(2024, 1, 1, 22, 10);
    expect(records.every((r) => r.kind === "sample" && r.at === at)).toBe(true);
    expect(values(records, "rmssd")).toEqual([0.061]);
    expect(values(records, "sleep")).toEqual([412 * 60]);
    expect(values(records, "spo2")).toEqual([96.5]);
    expect(values(records, "active_energy")).toEqual([2100 * 4184]);
  });

  it("reads Withings weight and blood-pressure files", async () => {
    const weight =
      'Date,"Weight (kg)","Fat mass (kg)","Bone mass (kg)","Muscle mass (kg)","Hydration (kg)",Comments\n"2024-02-01 07:12:00",72.4,14.1,3.1,55.0,,\n';
    const w = await run(importHealthExport(chunksOf(utf8(weight)), { timezoneOffsetMin: 60 }));
    expect(w.report.format).toBe("csv.withings");
    expect(values(w.records, "weight")).toEqual([72.4]);
    expect(w.records[0]?.kind === "sample" && w.records[0].at).toBe(Date.UTC(2024, 1, 1, 6, 12));
    const bp =
      'Date,"Heart rate",Systolic,Diastolic,Comments\n"2024-02-01 07:12:00",64,128,84,\n"2024-02-02 07:12:00",64,84,128,\n';
    const b = await run(importHealthExport(chunksOf(utf8(bp))));
    expect(b.records).toEqual([
      expect.objectContaining({ kind: "bp", systolicMmHg: 128, diastolicMmHg: 84, pulseBpm: 64 }),
    ]);
    expect(b.report.rejected).toEqual([expect.objectContaining({ reason: "out_of_range", line: 3 })]);
    expect([...w.report.warnings, ...b.report.warnings]).toEqual([]);
  });

  it("says which measure columns a known export's reader left out", async () => {
    const csv = "Date;Weight (kg);Heart rate;Steps;Comments\n2024-02-01 07:12:00;72,4;61;8000;\n";
    const { records, report } = await run(importHealthExport(chunksOf(utf8(csv)), { format: "withings" }));
    expect(values(records, "weight")).toEqual([72.4]);
    expect(records).toHaveLength(1);
    expect(report.warnings).toEqual([
      { reason: "unsupported_type", detail: "column Heart rate" },
      { reason: "unsupported_type", detail: "column Steps" },
    ]);
    expect(leftOutOf(report.warnings)).toMatchObject({ columns: ["Heart rate", "Steps"], other: [] });
    // Whoop's and Oura's full headers: only measures their readers take nowhere else are named, not
    // the other columns of a measure they read (sleep stages, the lowest resting rate) nor their scores.
    const whoop =
      "Cycle start time,Cycle end time,Cycle timezone,Recovery score %,Resting heart rate (bpm),Heart rate variability (ms),Skin temp (celsius),Blood oxygen %,Day Strain,Energy burned (cal),Max HR (bpm),Average HR (bpm),Sleep onset,Wake onset,Sleep performance %,Respiratory rate (rpm),Asleep duration (min),In bed duration (min),Light sleep duration (min),Deep (SWS) duration (min),REM duration (min),Awake duration (min),Sleep need (min),Sleep debt (min),Sleep efficiency %,Sleep consistency %\n";
    expect((await run(importHealthExport(chunksOf(utf8(whoop))))).report.warnings).toEqual([
      { reason: "unsupported_type", detail: "column Max HR (bpm)" },
      { reason: "unsupported_type", detail: "column Average HR (bpm)" },
    ]);
    const oura =
      "date,Activity Score,Sleep Score,Readiness Score,Average Resting Heart Rate,Lowest Resting Heart Rate,Average HRV,Temperature Deviation (°C),Respiratory Rate,Total Sleep Duration,REM Sleep Duration,Deep Sleep Duration,Steps,Active Calories\n";
    expect((await run(importHealthExport(chunksOf(utf8(oura))))).report.warnings).toEqual([
      { reason: "unsupported_type", detail: "column Active Calories" },
    ]);
  });

  it("reads Fitbit Takeout CSV and JSON files in both date styles", async () => {
    const hrv = "timestamp,rmssd,nremhr,entropy\n2024-02-01T00:00:00,41.2,55.1,2.9\n";
    expect(values((await run(importHealthExport(chunksOf(utf8(hrv))))).records, "rmssd")).toEqual([0.0412]);
    const json =
      '[{"dateTime":"02/01/24 06:00:05","value":{"bpm":62,"confidence":2}},\n{"dateTime":"02/01/24 06:00:10","value":{"bpm":"x","confidence":2}},{"dateTime":"02/01/24 06:00:15","value":{"bpm":64,"confidence":3}}]';
    const { records, report } = await run(
      importHealthExport(chunksOf(utf8(json), 9), { fileName: "heart_rate-2024-02-01.json" }),
    );
    expect(report.format).toBe("json.fitbit");
    expect(records).toEqual([
      expect.objectContaining({ metric: "heart_rate", value: 62, at: Date.UTC(2024, 1, 1, 6, 0, 5) }),
      expect.objectContaining({ metric: "heart_rate", value: 64 }),
    ]);
    expect(report.rejected).toEqual([{ reason: "invalid_value", detail: "element 1" }]);
    const weight =
      '[{"logId":1,"weight":165.2,"bmi":24.4,"date":"02/01/24","time":"07:00:00","source":"Aria"}]';
    const w = await run(
      importHealthExport(chunksOf(utf8(weight)), {
        fileName: "weight-2024-02-01.json",
        fitbitWeightUnit: "lb",
      }),
    );
    expect(values(w.records, "weight")[0]).toBeCloseTo(74.933, 3);
    const truncated = await run(importHealthExport(chunksOf(utf8(json.slice(0, 80)))));
    expect(truncated.report.fatal?.reason).toBe("unexpected_eof");
  });

  it("reports a file in no known format", async () => {
    const { report } = await run(importHealthExport(chunksOf(utf8("foo,bar\n1,2\n"))));
    expect(report.fatal).toMatchObject({ reason: "unknown_format", line: 1 });
    expect((await run(importHealthExport(chunksOf(new Uint8Array(0))))).report.fatal?.reason).toBe(
      "empty_file",
    );
  });
});

describe("importRrText", () => {
  it("reads an RR text file through packages/hrv as one series", async () => {
    const startedAt = Date.UTC(2024, 1, 1, 7);
    const session = importRrText(chunksOf(utf8("RR\n812\n798\nabc\n805\n"), 3), { startedAt });
    const records = await collect(session.records);
    expect(records).toEqual([expect.objectContaining({ kind: "rr", startedAt, rrMs: [812, 798, 805] })]);
    expect(session.report.rejected).toEqual([expect.objectContaining({ reason: "invalid_value", line: 4 })]);
    const again = await collect(
      importRrText(chunksOf(utf8("RR\n812\n798\nabc\n805\n")), { startedAt }).records,
    );
    expect(again[0]?.clientId).toBe(records[0]?.clientId);
  });

  it("ends an unreadable file with a reason", async () => {
    const session = importRrText(chunksOf(utf8("")), { startedAt: 0 });
    await collect(session.records);
    expect(session.report.fatal?.reason).toBe("empty_file");
  });
});
