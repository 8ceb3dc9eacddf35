import fs from "node:fs";
import path from "node:path";
import {
  API,
  type BpReadingList,
  IMPORTS_API,
  type Import,
  type ImportList,
  leftOutOf,
  type MeasurementList,
} from "@tonus/contract";
import { chunksOf, collect, importFit } from "@tonus/importers";
import { and, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { startTrap } from "../../../../../packages/importers/test/trap-listener.ts";
import { dashboardValuesAll, iftttEvents, imports, outboxEvents } from "../../db/schema.ts";
import { deleteUserData, registryEnv } from "../../lib/registry.ts";
import { BACKENDS, resetDatabase } from "../../test/databases.ts";
import { peakRssGrowth } from "../../test/memory.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { sweepImports } from "./imports.service.ts";
import {
  appleHealthXml,
  appleHealthZip,
  buildZip,
  honestZipBomb,
  utf8,
  xmlBomb,
  zipBomb,
} from "./test/fixtures.ts";
import { eventually, importSuite, multipartBody, upload, waitForImport } from "./test/import-client.ts";

const HEAVY = Boolean(process.env.TONUS_HEAVY);
const GENERIC_CSV = "time,heart rate,weight (kg)\n2024-01-02 08:00,61,70.5\n2024-01-03 08:00,63,70.2\n";

describe.each(BACKENDS)("file imports on %s", (backend) => {
  const suite = importSuite(backend, "api");
  let user: TestUser;
  const importsDir = () => path.join(suite.filesDir, "imports");
  const storedFiles = () => (fs.existsSync(importsDir()) ? fs.readdirSync(importsDir()) : []);

  beforeEach(async () => {
    await resetDatabase(suite.app.ctx.database);
    for (const f of storedFiles()) fs.rmSync(path.join(importsDir(), f));
    user = await createTestUser(suite.app.ctx.database);
  });

  async function importDone(source: string, name: string, data: Uint8Array, fields = {}): Promise<Import> {
    const client = user.client(suite.app);
    const res = await upload(client, source, name, data, fields);
    expect(res.statusCode, res.body).toBe(201);
    return waitForImport(client, (res.json() as Import).id, 120_000);
  }

  const valueCount = async (userId = user.userId) =>
    (
      await suite.app.ctx.database.db
        .select()
        .from(dashboardValuesAll)
        .where(eq(dashboardValuesAll.userId, userId))
    ).length;

  it("imports an Apple Health export.zip: samples, RR measurements, readings, workouts, and nothing twice", async () => {
    const { data, counts } = await appleHealthZip(400_000);
    const done = await importDone("apple-health", "export.zip", data);
    expect(done.kind).toBe("apple_health_zip");
    expect(done.status, JSON.stringify(done.report)).toBe("done");
    const emitted = counts.samples + counts.rr + counts.bp + counts.workouts;
    expect(done.report).toMatchObject({
      imported: emitted,
      duplicates: 0,
      measurements: counts.rr,
      bp_readings: counts.bp,
      fatal: null,
    });
    expect(done.progress).toMatchObject({ bytes_read: data.length, bytes_total: data.length });
    const client = user.client(suite.app);
    expect(((await client.get(API.measurements)).json() as MeasurementList).count).toBe(counts.rr);
    expect(((await client.get(API.bpReadings)).json() as BpReadingList).count).toBe(counts.bp);
    const stored = await valueCount();

    const again = await importDone("apple-health", "export.zip", data);
    expect(again.report).toMatchObject({ imported: 0, duplicates: emitted, measurements: 0, bp_readings: 0 });
    expect(await valueCount()).toBe(stored);
    expect(((await client.get(API.measurements)).json() as MeasurementList).count).toBe(counts.rr);
  }, 180_000);

  it("reads export.xml uploaded alone and lists the import on the source", async () => {
    const { data, counts } = await appleHealthXml(100_000);
    const done = await importDone("apple-health", "export.xml", data);
    expect(done.kind).toBe("apple_health_xml");
    expect(done.report?.imported).toBe(counts.samples + counts.rr + counts.bp + counts.workouts);
    const list = (
      await user.client(suite.app).get(`${IMPORTS_API.imports}?source=apple-health`)
    ).json() as ImportList;
    expect(list.results.map((i) => i.id)).toEqual([done.id]);
    // What the import announced (its writer thread holds it on PostgreSQL) is free once it reads done,
    // and reaches the subscribers: each measurement and reading has its IFTTT copy.
    const { db } = suite.app.ctx.database;
    const announced = await db.select().from(outboxEvents).where(eq(outboxEvents.userId, user.userId));
    expect(announced.length).toBe(counts.rr + counts.bp);
    expect(announced.filter((e) => e.heldBy !== null)).toEqual([]);
    await suite.app.ctx.services.events.dispatchPending();
    const copies = await db.select().from(iftttEvents).where(eq(iftttEvents.userId, user.userId));
    expect(copies.filter((c) => c.kind === "hrv_measurement")).toHaveLength(counts.rr);
    expect(copies.filter((c) => c.kind === "bp_reading")).toHaveLength(counts.bp);
  }, 120_000);

  it("expands no entity of an XML bomb, reads no file and calls no URL, and still imports the record (U5)", async () => {
    // The external DTD, entity and parameter entity point at a real loopback listener that must see nothing.
    const trap = await startTrap();
    try {
      const done = await importDone("apple-health", "export.xml", xmlBomb(trap.url));
      expect(done.status).toBe("done");
      expect(done.report?.imported).toBe(1);
      expect(done.report?.warnings.map((w) => w.reason)).toContain("xml_entity_declared");
      const [value] = await suite.app.ctx.database.db
        .select()
        .from(dashboardValuesAll)
        .where(eq(dashboardValuesAll.userId, user.userId));
      expect(value).toMatchObject({ metric: "heart_rate", value: 61 });
      expect(await trap.settle()).toBe(0);
    } finally {
      await trap.close();
    }
  });

  it("refuses values outside their metric's plausible range, as manual entry and the ingest API do", async () => {
    const record = (type: string, unit: string, value: string, minute: number) =>
      `<Record type="HKQuantityTypeIdentifier${type}" sourceName="Watch" unit="${unit}" value="${value}" startDate="2024-01-01 10:${minute}:00 +0000" endDate="2024-01-01 10:${minute}:00 +0000"/>`;
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n${[
      record("HeartRate", "count/min", "61", 10),
      record("HeartRate", "count/min", "900", 11),
      record("HeartRate", "count/min", "250", 12),
      record("BodyMass", "kg", "4000", 13),
      record("OxygenSaturation", "%", "0.97", 14),
    ].join("\n")}\n</HealthData>\n`;
    const done = await importDone("apple-health", "export.xml", new TextEncoder().encode(xml));
    expect(done.status).toBe("done");
    expect(done.report).toMatchObject({ read: 5, imported: 3, rejected: 2 });
    expect(done.report?.rejections).toEqual([
      { reason: "out_of_range", detail: "heart_rate 900" },
      { reason: "out_of_range", detail: "weight 4000" },
    ]);
    const stored = await suite.app.ctx.database.db
      .select()
      .from(dashboardValuesAll)
      .where(eq(dashboardValuesAll.userId, user.userId));
    expect(stored.map((v) => [v.metric, v.value]).sort()).toEqual([
      ["heart_rate", 250],
      ["heart_rate", 61],
      ["spo2", 97],
    ]);
  });

  it("refuses a zip with a ../ path or an honest bomb from its directory, and keeps no file", async () => {
    const client = user.client(suite.app);
    const traversal = buildZip([{ name: "../evil/export.xml", data: utf8("<HealthData/>") }]);
    const res = await upload(client, "apple-health", "export.zip", traversal);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "import_rejected", reason: "zip_unsafe_path" });
    const bomb = await upload(client, "apple-health", "export.zip", honestZipBomb(64 * 1024 * 1024));
    expect(bomb.statusCode).toBe(400);
    expect(bomb.json()).toMatchObject({ code: "import_rejected", reason: "zip_ratio_exceeded" });
    expect(storedFiles()).toEqual([]);
    expect(await suite.app.ctx.database.db.select().from(imports)).toHaveLength(0);
  });

  it.each([
    ["an absolute path", [{ name: "/etc/export.xml", data: utf8("<HealthData/>") }], "zip_unsafe_path"],
    ["a drive-letter path", [{ name: "C:\\x\\export.xml", data: utf8("<HealthData/>") }], "zip_unsafe_path"],
    [
      "a backslash climb",
      [{ name: "a\\..\\..\\export.xml", data: utf8("<HealthData/>") }],
      "zip_unsafe_path",
    ],
    ["a symlink", [{ name: "export.xml", data: utf8("/etc/passwd"), symlink: true }], "zip_unsafe_path"],
    [
      "entries sharing their data (an overlapping bomb)",
      [
        { name: "a.fit", data: new Uint8Array(2048) },
        { name: "b.fit", sameDataAs: 0 },
      ],
      "zip_invalid",
    ],
  ] as const)("refuses a zip with %s from its directory (U4)", async (_label, entries, reason) => {
    const res = await upload(user.client(suite.app), "garmin-connect", "export.zip", buildZip([...entries]));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: "import_rejected" });
    expect(String(res.json().reason)).toMatch(reason === "zip_invalid" ? /^zip_/ : new RegExp(`^${reason}$`));
    expect(storedFiles()).toEqual([]);
  });

  it("refuses a zip of more than 10,000 files, and does not expand a zip inside a zip", async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => ({
      name: `f${i}.csv`,
      data: new Uint8Array(0),
      method: 0 as const,
    }));
    const res = await upload(user.client(suite.app), "garmin-connect", "many.zip", buildZip(many));
    expect(res.json()).toMatchObject({ code: "import_rejected", reason: "zip_too_many_entries" });
    const fitFile = fs.readFileSync(
      path.resolve(
        import.meta.dirname,
        "../../../../../packages/importers/test/fixtures/fit/WeightScaleSingleUser.fit",
      ),
    );
    const inner = buildZip([{ name: "inner.fit", data: new Uint8Array(fitFile) }]);
    const nested = buildZip([
      { name: "activities/scale.fit", data: new Uint8Array(fitFile) },
      { name: "more/inner.zip", data: inner },
    ]);
    const done = await importDone("garmin-connect", "bundle.zip", nested);
    expect(done.kind).toBe("zip");
    const records = await collect(importFit(chunksOf(new Uint8Array(fitFile))).records);
    expect(done.report).toMatchObject({ imported: records.length, ignored: 1 });
    expect(done.report?.warnings).toContainEqual({ reason: "unsupported_type", entry: "more/inner.zip" });
    // The report's "Left out" list names it.
    expect(leftOutOf(done.report?.warnings ?? [])).toMatchObject({ files: ["more/inner.zip"], other: [] });
  });

  it("keeps what a truncated export.xml holds before the cut and says where it ends (U5)", async () => {
    const { data } = await appleHealthXml(200_000);
    const done = await importDone(
      "apple-health",
      "export.xml",
      data.subarray(0, Math.floor(data.length * 0.6)),
    );
    expect(done.status).toBe("done");
    expect(done.report?.fatal?.reason).toBe("unexpected_eof");
    expect(done.report?.imported).toBeGreaterThan(100);
  });

  // U4: 1 GB of zeros in about 1 MB (512 MB by default), behind a header that lies about its size (a
  // 1 KB export.xml) or claims the highest ratio the directory check allows: either way inflation stops
  // while streaming, the import ends in a report, memory stays bounded and the upload is removed.
  const BOMB_BYTES = (HEAVY ? 1024 : 512) * 1024 * 1024;
  const RSS_GROWTH_LIMIT = 200 * 1024 * 1024;
  it.each([
    [
      "a lying 1 KB export.xml",
      "apple-health",
      "export.zip",
      "apple_health_export/export.xml",
      "lying",
      /^zip_/,
    ],
    [
      "a ratio claimed at the cap",
      "apple-health",
      "export.zip",
      "apple_health_export/export.xml",
      "ratio",
      /^zip_ratio_exceeded$/,
    ],
  ] as const)(
    "stops a zip bomb with %s while inflating, with bounded memory, and ends in a report (U4)",
    async (_label, source, name, entry, kind, reason) => {
      const bomb = zipBomb(BOMB_BYTES, entry, kind);
      expect(bomb.length).toBeLessThan(BOMB_BYTES / 500);
      let done: Import | undefined;
      const growth = await peakRssGrowth(async () => {
        done = await importDone(source, name, bomb);
      });
      expect(done?.status).toBe("failed");
      expect(done?.report?.fatal?.reason).toMatch(reason);
      expect(done?.report?.imported).toBe(0);
      expect(growth).toBeLessThan(RSS_GROWTH_LIMIT);
      expect(await eventually(() => storedFiles().length === 0)).toBe(true);
    },
    180_000,
  );

  it("ends a known export in the wrong encoding with a not_utf8 report", async () => {
    const head = utf8("Date,Weight (kg),Comments\n2024-01-02 08:00:00,70.5,");
    const cp1251 = new Uint8Array([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x0a]); // «Привет» in windows-1251
    const done = await importDone("withings-body-comp", "weight.csv", new Uint8Array([...head, ...cp1251]));
    expect(done.kind).toBe("health_export");
    expect(done.report?.fatal?.reason).toBe("not_utf8");
  });

  it("previews a generic CSV, imports it with the confirmed mapping, and refuses a mapping of absent columns", async () => {
    const client = user.client(suite.app);
    const res = await upload(client, "csv-file", "my-data.csv", utf8(GENERIC_CSV));
    expect(res.statusCode, res.body).toBe(201);
    const waiting = res.json() as Import;
    expect(waiting.status).toBe("needs_mapping");
    expect(waiting.preview?.header).toEqual(["time", "heart rate", "weight (kg)"]);
    expect(waiting.preview?.suggested).toMatchObject({
      time: "time",
      columns: [
        { column: "heart rate", metric: "heart_rate" },
        { column: "weight (kg)", metric: "weight", unit: "kg" },
      ],
    });
    const mappingUrl = IMPORTS_API.mapping.replace(":id", waiting.id);
    const bad = await client.post(mappingUrl, {
      time: "when",
      columns: [{ column: "pulse", metric: "heart_rate" }],
    });
    expect(bad.statusCode).toBe(400);
    const started = await client.post(mappingUrl, waiting.preview?.suggested);
    expect(started.statusCode, started.body).toBe(200);
    const done = await waitForImport(client, waiting.id);
    expect(done.report).toMatchObject({ imported: 4, rejected: 0 });
    const again = await client.post(mappingUrl, waiting.preview?.suggested);
    expect(again.json()).toMatchObject({ code: "import_state" });
  });

  it("maps a CSV uploaded as any other CSV column by column, even one whose header looks like Withings'", async () => {
    const client = user.client(suite.app);
    const csv = "Date;Weight (kg);Heart rate\n2024-01-02;72,5;61\n2024-01-03;72,1;63\n";
    const generic = (await upload(client, "csv-file", "mine.csv", utf8(csv))).json() as Import;
    expect(generic.status).toBe("needs_mapping");
    expect(generic.preview?.suggested?.columns).toEqual([
      { column: "Weight (kg)", metric: "weight", unit: "kg" },
      { column: "Heart rate", metric: "heart_rate" },
    ]);
    const started = await client.post(
      IMPORTS_API.mapping.replace(":id", generic.id),
      generic.preview?.suggested,
    );
    expect(started.statusCode, started.body).toBe(200);
    // Both columns, where the Withings reader would have taken the weight alone.
    expect((await waitForImport(client, generic.id)).report).toMatchObject({ imported: 4, rejected: 0 });
    // Under Withings' own entry the same file is read as its export, without a mapping step.
    const withings = (await upload(client, "withings-body-comp", "w.csv", utf8(csv))).json() as Import;
    expect(withings).toMatchObject({ kind: "health_export", status: "queued" });
    // Samsung Health's header is not its first line: its own reader takes it even as any other CSV.
    const samsung = [
      "com.samsung.shealth.tracker.heart_rate,6313011,12",
      "com.samsung.health.heart_rate.start_time,com.samsung.health.heart_rate.heart_rate,com.samsung.health.heart_rate.time_offset,",
      "2024-02-01 06:30:00.000,58,UTC+0300,",
    ].join("\n");
    const fromSamsung = (await upload(client, "csv-file", "hr.csv", utf8(samsung))).json() as Import;
    expect(fromSamsung).toMatchObject({ kind: "health_export", status: "queued" });
  });

  it("reads a Russian spreadsheet's CSV (headers, units, day-first dates), and refuses its Windows-1251 copy as not UTF-8", async () => {
    const client = user.client(suite.app);
    const csv = "Дата;Пульс;Вес (кг)\n01.03.2024;62;72,5\n02.03.2024;60;72,4\n";
    const waiting = (await upload(client, "csv-file", "дневник.csv", utf8(csv))).json() as Import;
    expect(waiting.preview?.suggested).toEqual({
      time: "Дата",
      time_format: "dmy",
      columns: [
        { column: "Пульс", metric: "heart_rate" },
        { column: "Вес (кг)", metric: "weight", unit: "кг" },
      ],
    });
    await client.post(IMPORTS_API.mapping.replace(":id", waiting.id), waiting.preview?.suggested);
    expect((await waitForImport(client, waiting.id)).report).toMatchObject({ imported: 4, rejected: 0 });
    // The same file as Russian Excel saves it: a clear refusal that says to save it as UTF-8.
    // «Дата;Пульс» in Windows-1251, then a data line.
    const cp1251 = new Uint8Array([
      ...Buffer.from("c4e0f2e03bcff3ebfcf10a", "hex"),
      ...utf8("01.03.2024;62\n"),
    ]);
    const refused = await upload(client, "csv-file", "дневник-1251.csv", cp1251);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: "import_rejected", reason: "not_utf8" });
  });

  it("says on which line of a CSV a value outside its metric's range was refused", async () => {
    const client = user.client(suite.app);
    const csv = "time,heart rate\n2024-01-02 08:00,61\n2024-01-02 09:00,900\n";
    const waiting = (await upload(client, "csv-file", "pulse.csv", utf8(csv))).json() as Import;
    await client.post(IMPORTS_API.mapping.replace(":id", waiting.id), waiting.preview?.suggested);
    const done = await waitForImport(client, waiting.id);
    expect(done.report).toMatchObject({
      imported: 1,
      rejected: 1,
      rejections: [{ reason: "out_of_range", line: 3, detail: "heart_rate 900" }],
    });
  });

  it("turns an RR text file into one measurement dated as the client says", async () => {
    const rr = Array.from({ length: 120 }, (_, i) => 820 + ((i * 37) % 90)).join("\n");
    const done = await importDone("rr-file", "reading.txt", utf8(`${rr}\n`), {
      recorded_at: "2024-05-01T07:30:00+03:00",
    });
    expect(done.report?.measurements).toBe(1);
    const list = (await user.client(suite.app).get(API.measurements)).json() as MeasurementList;
    expect(list.results[0]?.started_at).toBe("2024-05-01T04:30:00.000Z");
    expect(list.results[0]?.source).toBe("file");
  });

  it("refuses unknown, empty and malformed uploads with a 4xx and keeps nothing", async () => {
    const client = user.client(suite.app);
    const unknown = await upload(client, "csv-file", "notes.bin", utf8("just some words"));
    expect(unknown.json()).toMatchObject({ code: "import_rejected", reason: "unknown_format" });
    const empty = await upload(client, "csv-file", "empty.csv", new Uint8Array(0));
    expect(empty.json()).toMatchObject({ code: "import_rejected", reason: "empty_file" });
    const noSource = await upload(client, "no-such-gadget", "x.csv", utf8(GENERIC_CSV));
    expect(noSource.statusCode).toBe(404);
    const noFile = await client.request(
      "POST",
      IMPORTS_API.imports,
      multipartBody({ source: "csv-file" }, null),
    );
    expect(noFile.statusCode).toBe(400);
    const json = await client.post(IMPORTS_API.imports, { source: "csv-file" });
    expect(json.statusCode).toBe(400);
    const badZone = await upload(client, "csv-file", "x.csv", utf8(GENERIC_CSV), {
      time_zone: "Mars/Olympus",
    });
    expect(badZone.statusCode).toBe(400);
    expect(storedFiles()).toEqual([]);
    expect(await suite.app.ctx.database.db.select().from(imports)).toHaveLength(0);
  });

  it("allows two unfinished imports at once and refuses files over the size limit (U9)", async () => {
    const client = user.client(suite.app);
    const first = await upload(client, "csv-file", "a.csv", utf8(GENERIC_CSV));
    const second = await upload(client, "csv-file", "b.csv", utf8(GENERIC_CSV));
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    const third = await upload(client, "csv-file", "c.csv", utf8(GENERIC_CSV));
    expect(third.statusCode).toBe(429);
    // It names the two unfinished imports, so the person can find them.
    expect(third.json()).toMatchObject({
      code: "too_many_imports",
      unfinished: [
        {
          id: (first.json() as Import).id,
          source_slug: "csv-file",
          file_name: "a.csv",
          status: "needs_mapping",
        },
        {
          id: (second.json() as Import).id,
          source_slug: "csv-file",
          file_name: "b.csv",
          status: "needs_mapping",
        },
      ],
    });
    const cancelled = await client.post(IMPORTS_API.cancel.replace(":id", (first.json() as Import).id));
    expect((cancelled.json() as Import).status).toBe("cancelled");
    expect((await upload(client, "csv-file", "c.csv", utf8(GENERIC_CSV))).statusCode).toBe(201);

    const limit = suite.app.ctx.config.IMPORT_MAX_FILE_MB;
    suite.app.ctx.config.IMPORT_MAX_FILE_MB = 1;
    try {
      await client.post(IMPORTS_API.cancel.replace(":id", (second.json() as Import).id));
      const big = utf8(`date,steps\n${"2024-01-01,1\n".repeat(120_000)}`);
      const res = await upload(client, "csv-file", "big.csv", big);
      expect(res.statusCode).toBe(413);
      expect(res.json()).toMatchObject({ code: "file_too_large" });
    } finally {
      suite.app.ctx.config.IMPORT_MAX_FILE_MB = limit;
    }
    expect(storedFiles()).toHaveLength(1);
  });

  it("refuses an upload under an entry with no export file, in English and Russian, storing nothing", async () => {
    const client = user.client(suite.app);
    for (const source of ["health-connect", "apple-watch", "wahoo-tickr"]) {
      const res = await upload(client, source, "export.xml", (await appleHealthXml(20_000)).data);
      expect(res.statusCode, source).toBe(400);
      expect(res.json()).toMatchObject({ code: "source_not_importable" });
      expect(res.json().error).toMatch(/no export file/);
    }
    const { payload, headers } = multipartBody(
      { source: "health-connect", time_zone: "UTC" },
      { name: "export.xml", data: utf8("<HealthData/>") },
    );
    const ru = await client.request("POST", IMPORTS_API.imports, {
      payload,
      headers: { ...headers, "accept-language": "ru-RU,ru;q=0.9" },
    });
    expect(ru.statusCode).toBe(400);
    expect(ru.json().error).toMatch(/нет файла выгрузки/);
    // The source field after the file: refused once the upload is read, and the file removed.
    const boundary = "----tonuslatesource";
    const late = await client.request("POST", IMPORTS_API.imports, {
      payload: Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="export.xml"\r\n` +
          `Content-Type: application/octet-stream\r\n\r\n<HealthData/>\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="time_zone"\r\n\r\nUTC\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="source"\r\n\r\nhealth-connect\r\n` +
          `--${boundary}--\r\n`,
      ),
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    expect(late.statusCode).toBe(400);
    expect(late.json()).toMatchObject({ code: "source_not_importable" });
    expect(storedFiles()).toEqual([]);
    expect((await client.get(IMPORTS_API.imports)).json()).toMatchObject({ results: [] });
  });

  it("stops a running import when asked, keeping what it had written", async () => {
    const client = user.client(suite.app);
    // Large enough for many batches: the cancel, asked as soon as the run starts, lands before the last.
    const { data, counts } = await appleHealthXml(20_000_000);
    const res = await upload(client, "apple-health", "export.xml", data);
    const id = (res.json() as Import).id;
    let current: Import | undefined;
    for (let i = 0; i < 1200; i++) {
      current = (await client.get(IMPORTS_API.import.replace(":id", id))).json() as Import;
      if (current.status !== "queued") break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(current?.status).toBe("running");
    const asked = await client.post(IMPORTS_API.cancel.replace(":id", id));
    expect((asked.json() as Import).cancel_requested).toBe(true);
    const ended = await waitForImport(client, id, 120_000);
    expect(ended.status).toBe("cancelled");
    expect(ended.report?.imported).toBeGreaterThan(0);
    expect(ended.report?.imported).toBeLessThan(counts.samples);
    expect(await eventually(() => storedFiles().length === 0)).toBe(true);
  }, 180_000);

  it("shows, maps and cancels only the owner's imports (A1)", async () => {
    const other = await createTestUser(suite.app.ctx.database);
    const res = await upload(user.client(suite.app), "csv-file", "mine.csv", utf8(GENERIC_CSV));
    const mine = res.json() as Import;
    const stranger = other.client(suite.app);
    for (const url of [
      IMPORTS_API.import.replace(":id", mine.id),
      IMPORTS_API.import.replace(":id", "nope"),
    ]) {
      const seen = await stranger.get(url);
      expect(seen.statusCode).toBe(404);
    }
    expect((await stranger.post(IMPORTS_API.cancel.replace(":id", mine.id))).statusCode).toBe(404);
    const mapped = await stranger.post(IMPORTS_API.mapping.replace(":id", mine.id), mine.preview?.suggested);
    expect(mapped.statusCode).toBe(404);
    expect(((await stranger.get(IMPORTS_API.imports)).json() as ImportList).results).toEqual([]);
    const row = await suite.app.ctx.database.db.select().from(imports).where(eq(imports.id, mine.id));
    expect(row[0]).toMatchObject({ status: "needs_mapping", cancelRequested: false });
  });

  it("cancels mappings left for a day and removes files no import refers to (hourly sweep)", async () => {
    const res = await upload(user.client(suite.app), "csv-file", "forgotten.csv", utf8(GENERIC_CSV));
    const waiting = res.json() as Import;
    const orphan = path.join(importsDir(), `${"ab".repeat(16)}.upload`);
    fs.writeFileSync(orphan, "left by a crashed upload");
    const old = new Date(Date.now() - 2 * 24 * 3600_000);
    fs.utimesSync(orphan, old, old);
    await suite.app.ctx.database.db.update(imports).set({ createdAt: old }).where(eq(imports.id, waiting.id));
    await sweepImports(suite.app.ctx, { name: "imports.run", send: async () => null });
    const [row] = await suite.app.ctx.database.db.select().from(imports).where(eq(imports.id, waiting.id));
    expect(row?.status).toBe("cancelled");
    expect(storedFiles()).toEqual([]);
  });

  it("removes the person's import files and rows when the account is deleted", async () => {
    await upload(user.client(suite.app), "csv-file", "kept.csv", utf8(GENERIC_CSV));
    expect(storedFiles()).toHaveLength(1);
    await deleteUserData(registryEnv(suite.app.ctx), user.userId);
    expect(storedFiles()).toEqual([]);
    const left = await suite.app.ctx.database.db
      .select()
      .from(imports)
      .where(and(eq(imports.userId, user.userId)));
    expect(left).toEqual([]);
  });
});
