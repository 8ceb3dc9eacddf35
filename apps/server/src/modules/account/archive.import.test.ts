import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { crc32, deflateRawSync } from "node:zlib";
import { API, ARCHIVE_API, BILLING_API, NOTIFICATIONS_API } from "@tonus/contract";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import type { Db } from "../../db/client.ts";
import { academyMaterials, academyProgress, dashboardValues } from "../../db/schema.ts";
import type { UserDataRegistry } from "../../lib/registry.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, type TestClient } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { reloadAcademy } from "../academy/academy.sync.ts";
import { SampleBatchBuilder } from "../dashboard-values/dashboard-values.samples.ts";
import { recordSampleBatch } from "../dashboard-values/dashboard-values.service.ts";
import { IMPORT_AREA } from "./archive.import.ts";
import { buildArchive } from "./archive.service.ts";
import { buildZip, readZip } from "./zip.ts";

const HEAVY = Boolean(process.env.TONUS_HEAVY);

/** A multipart body with the given files (name "file"), as a browser's FormData sends it. */
function multipart(files: { data: Buffer; name?: string }[]) {
  const boundary = `----archive-import-${randomBytes(4).toString("hex")}`;
  const parts = files.flatMap((f) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f.name ?? "tonus.zip"}"\r\nContent-Type: application/zip\r\n\r\n`,
    ),
    f.data,
    Buffer.from("\r\n"),
  ]);
  return {
    payload: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  };
}

/**
 * A zip written by hand, so a test can say what our own writer never would: unsafe names, sizes that lie,
 * thousands of entries.
 */
function rawZip(entries: { name: string; data: Buffer; declaredSize?: number }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, "utf8");
    const packed = deflateRawSync(e.data);
    const size = e.declaredSize ?? e.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(e.data), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(e.data), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * Every portable table's rows of one person, each row reduced to the columns an import restores (the
 * registry's allowlist, minus the account's own identity), sorted: what "the same data" means.
 */
async function restorable(app: App, userId: string): Promise<Record<string, string[]>> {
  const registry: UserDataRegistry = app.ctx.services.registry;
  const out: Record<string, string[]> = {};
  for (const section of registry.sections) {
    for (const [table, spec] of Object.entries(section.tables)) {
      if (spec.policy !== "portable") continue;
      const key = spec.key ?? "user_id";
      const columns = (spec.importColumns ?? []).filter(
        (c) => c !== key && !(spec.identityColumns ?? []).includes(c),
      );
      // Dashboard values derived from measurements and readings are written again by those modules.
      const derived =
        table === "dashboard_values" || table === "dashboard_samples"
          ? " and source not in ('measurement', 'bp_log')"
          : "";
      const { rows } = await app.ctx.database.query<{ row: Record<string, unknown> | string }>(
        `select to_jsonb(t) as row from "${table}" t where "${key}" = $1${derived}`,
        [userId],
      );
      out[table] = rows
        .map(({ row }) => {
          const value = typeof row === "string" ? JSON.parse(row) : row;
          return JSON.stringify(Object.fromEntries(columns.map((c) => [c, value[c] ?? null])));
        })
        .sort();
    }
  }
  return out;
}

describe.each(BACKENDS)("archive import on %s", (backend) => {
  let app: App;
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-import-"));
  const uploads = () => {
    const dir = path.join(filesDir, IMPORT_AREA);
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };

  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend), { FILES_DIR: filesDir }, { workJobs: false });
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(filesDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    await reloadAcademy(app.ctx.database.db);
  });

  /** A person with a row in every portable table, a filled profile and a photo. */
  async function seedPerson(): Promise<{ userId: string; client: TestClient }> {
    const person = await createTestUser(app.ctx.database);
    const client = person.client(app);
    const profile = await client.put(API.profile, {
      name: "=Ada Lovelace",
      gender: "female",
      date_of_birth: "1985-12-10",
      height: 168.5,
      weight: 59.25,
      units: "imperial",
      newsletter_language: "ru",
      timezone: "Europe/Moscow",
    });
    expect(profile.statusCode, profile.body).toBe(200);
    const png = await sharp({
      create: { width: 48, height: 48, channels: 3, background: { r: 10, g: 120, b: 200 } },
    })
      .png()
      .toBuffer();
    const photo = await client.request("POST", API.userpicUpload, multipart([{ data: png, name: "me.png" }]));
    expect(photo.statusCode, photo.body).toBe(200);
    const q = app.ctx.database.query;
    await q(
      `insert into bp_readings (user_id, client_id, systolic, diastolic, pulse, measured_at, time_zone, arm, note)
       values ($1, $2, 128, 82, 64, '2026-03-01T08:00:00Z', 'Europe/Moscow', 'left', 'после кофе'),
              ($1, null, 117, 76, null, '2026-03-02T20:30:00Z', 'UTC', null, '')`,
      [person.userId, randomUUID()],
    );
    const rr = Array.from({ length: 120 }, (_, i) => 800 + ((i * 37) % 90) - 45);
    await q(
      `insert into measurements (user_id, client_id, source, device, started_at, time_zone, rr_ms, feel, mood, tags, labels)
       values ($1, $2, 'strap', 'Polar H10', '2026-03-03T07:00:00Z', 'Europe/Moscow', $3::jsonb, 4, 3, '{morning,rest}', '{after sleep}')`,
      [person.userId, randomUUID(), JSON.stringify(rr)],
    );
    await app.ctx.database.db.insert(dashboardValues).values([
      {
        userId: person.userId,
        metric: "weight",
        at: new Date("2026-03-01T07:00:00Z"),
        value: 59.3,
        source: "manual",
        clientId: "w1",
      },
      {
        userId: person.userId,
        metric: "steps",
        at: new Date("2026-03-01T23:00:00Z"),
        value: 8042,
        source: "manual",
        clientId: "s1",
      },
    ]);
    // An import's samples (the bulk store): two UTC days of a watch's heart rate.
    const samples = new SampleBatchBuilder();
    for (const [i, at] of ["2026-03-01T06:00:00Z", "2026-03-01T06:01:00Z", "2026-03-02T00:00:00Z"].entries())
      samples.add(
        "heart_rate",
        Date.parse(at),
        60 + i,
        "apple_health.watch",
        `heart_rate:${at}:"{x,y}"\\`,
        true,
      );
    await app.ctx.database.db.transaction((tx) =>
      recordSampleBatch(tx as unknown as Db, person.userId, samples.build()),
    );
    // A customer's layout is stored from their first edit on (until then the defaults are shown).
    await q(
      `insert into dashboard_charts (user_id, item, position) values ($1, 'weight', 0), ($1, 'steps', 1)`,
      [person.userId],
    );
    const settings = await client.put(NOTIFICATIONS_API.settings, {
      weekly_report: true,
      weekly_report_day: 5,
      reminders: true,
      reminder_time: "07:45",
    });
    expect(settings.statusCode, settings.body).toBe(200);
    const materials = await app.ctx.database.db
      .select({ id: academyMaterials.id })
      .from(academyMaterials)
      .limit(2);
    await app.ctx.database.db.insert(academyProgress).values([
      { userId: person.userId, materialId: materials[0]?.id ?? "", state: 4, answers: { q1: 2 } },
      { userId: person.userId, materialId: materials[1]?.id ?? "", state: 1, answers: null },
    ]);
    return { userId: person.userId, client };
  }

  it("restores an exported archive into a new empty account: the same data, table by table (X1)", async () => {
    const a = await seedPerson();
    const before = await restorable(app, a.userId);
    for (const [table, rows] of Object.entries(before)) expect(rows.length, table).toBeGreaterThan(0);
    const zip = await buildArchive(app.ctx, a.userId);
    expect((await a.client.post(BILLING_API.userDelete)).statusCode).toBe(200);

    const b = await createTestUser(app.ctx.database);
    const client = b.client(app);
    const res = await client.request("POST", ARCHIVE_API.import, multipart([{ data: zip }]));
    expect(res.statusCode, res.body).toBe(200);
    // The two readings' systolic and diastolic values and the one pulse come back on the dashboard,
    // written again.
    const derivedValues = 5;
    expect(res.json()).toEqual({
      ok: true,
      restored: Object.fromEntries(
        Object.entries(before)
          .filter(([table]) => table !== "users")
          .map(([table, rows]) => [table, rows.length + (table === "dashboard_values" ? derivedValues : 0)]),
      ),
    });
    expect(await restorable(app, b.userId)).toEqual(before);
    const bpValues = await app.ctx.database.query<{ metric: string; value: number }>(
      "select metric, value from dashboard_values where user_id = $1 and source = 'bp_log' order by at, metric",
      [b.userId],
    );
    expect(bpValues.rows.map((r) => [r.metric, Number(r.value)])).toEqual([
      ["bp_diastolic", 82],
      ["bp_pulse", 64],
      ["bp_systolic", 128],
      ["bp_diastolic", 76],
      ["bp_systolic", 117],
    ]);
    // The account keeps its own e-mail; the photo comes back as a fresh file of the same picture.
    const profile = (await client.get(API.profile)).json();
    expect(profile).toMatchObject({ email: b.email, name: "=Ada Lovelace", units: "imperial" });
    expect(profile.userpic).toMatch(/^\/media\/userpics\/[0-9a-f]{32}\.webp$/);
    const picture = await client.get(profile.userpic);
    expect(picture.statusCode).toBe(200);
    expect((await sharp(picture.rawPayload).metadata()).width).toBeGreaterThan(0);
    expect(uploads()).toEqual([]);
    const audit = await app.ctx.database.query(
      "select 1 from audit_log where action = 'account.imported' and user_id = $1",
      [b.userId],
    );
    expect(audit.rows).toHaveLength(1);
  });

  it("refuses an account that already holds data, and writes nothing (409)", async () => {
    const a = await seedPerson();
    const zip = await buildArchive(app.ctx, a.userId);
    const b = await createTestUser(app.ctx.database);
    await app.ctx.database.query(
      "insert into bp_readings (user_id, systolic, diastolic, measured_at, time_zone) values ($1, 120, 80, now(), 'UTC')",
      [b.userId],
    );
    const before = await restorable(app, b.userId);
    const res = await b.client(app).request("POST", ARCHIVE_API.import, multipart([{ data: zip }]));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: "account_not_empty", tables: ["bp_readings"] });
    expect(await restorable(app, b.userId)).toEqual(before);
    // Importing into the account the archive came from is refused the same way.
    expect((await a.client.request("POST", ARCHIVE_API.import, multipart([{ data: zip }]))).statusCode).toBe(
      409,
    );
    expect(uploads()).toEqual([]);
  });

  it("takes an archive larger than the 5 MB upload limit of photos", async () => {
    const a = await seedPerson();
    const files = await readZip(await buildArchive(app.ctx, a.userId));
    // Random bytes do not compress: the zip grows past 6 MB.
    const big = buildZip([
      { name: "account.json", data: files.get("account.json") ?? "" },
      { name: "padding.bin", data: randomBytes(6 * 1024 * 1024) },
    ]);
    expect(big.length).toBeGreaterThan(6 * 1024 * 1024);
    const b = await createTestUser(app.ctx.database);
    const res = await b.client(app).request("POST", ARCHIVE_API.import, multipart([{ data: big }]));
    expect(res.statusCode, res.body).toBe(200);
  });

  it("refuses hostile and foreign uploads with a 4xx, restoring nothing and keeping no file (U4)", async () => {
    const a = await seedPerson();
    const json =
      (await readZip(await buildArchive(app.ctx, a.userId))).get("account.json") ?? Buffer.from("");
    const b = await createTestUser(app.ctx.database);
    const client = b.client(app);
    const cases: [
      string,
      ReturnType<typeof multipart> | { payload: string; headers: Record<string, string> },
      number,
      string,
    ][] = [
      [
        "not a zip",
        multipart([{ data: Buffer.from("just some text, not a zip at all") }]),
        400,
        "validation_failed",
      ],
      [
        "no account.json",
        multipart([{ data: rawZip([{ name: "other.json", data: json }]) }]),
        400,
        "validation_failed",
      ],
      [
        "zip slip",
        multipart([{ data: rawZip([{ name: "../account.json", data: json }]) }]),
        400,
        "validation_failed",
      ],
      [
        "absolute name",
        multipart([{ data: rawZip([{ name: "/account.json", data: json }]) }]),
        400,
        "validation_failed",
      ],
      [
        "declared ratio bomb",
        multipart([
          {
            data: rawZip([
              { name: "account.json", data: Buffer.alloc(4096), declaredSize: 300 * 1024 * 1024 },
            ]),
          },
        ]),
        413,
        "payload_too_large",
      ],
      [
        "size that lies low",
        multipart([{ data: rawZip([{ name: "account.json", data: json, declaredSize: 10 }]) }]),
        400,
        "validation_failed",
      ],
      [
        "too many entries",
        multipart([
          {
            data: rawZip(
              Array.from({ length: 1001 }, (_, i) => ({ name: `e${i}.txt`, data: Buffer.from("x") })),
            ),
          },
        ]),
        400,
        "validation_failed",
      ],
      [
        "not JSON",
        multipart([{ data: rawZip([{ name: "account.json", data: Buffer.from("{not json") }]) }]),
        400,
        "validation_failed",
      ],
      [
        "JSON of another kind",
        multipart([{ data: rawZip([{ name: "account.json", data: Buffer.from('{"format":"zip"}') }]) }]),
        400,
        "validation_failed",
      ],
      [
        "two files",
        multipart([{ data: Buffer.from("a") }, { data: Buffer.from("b") }]),
        400,
        "validation_failed",
      ],
      [
        "no file",
        { payload: "{}", headers: { "content-type": "application/json" } },
        400,
        "validation_failed",
      ],
    ];
    for (const [name, body, status, code] of cases) {
      const res = await client.request("POST", ARCHIVE_API.import, body);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(status);
      expect(res.json().code, name).toBe(code);
    }
    expect(Object.values(await restorable(app, b.userId)).flat().length).toBe(1);
    expect(uploads()).toEqual([]);
    // Signed out: refused before anything is read.
    expect(
      (await app.inject({ method: "POST", url: ARCHIVE_API.import, ...multipart([{ data: json }]) }))
        .statusCode,
    ).toBe(403);
  });

  it.runIf(HEAVY)(
    "refuses an upload over 100 MB with 413 while it streams",
    { timeout: 120_000 },
    async () => {
      const b = await createTestUser(app.ctx.database);
      const res = await b
        .client(app)
        .request("POST", ARCHIVE_API.import, multipart([{ data: Buffer.alloc(101 * 1024 * 1024) }]));
      expect(res.statusCode).toBe(413);
      expect(res.json().code).toBe("file_too_large");
      expect(uploads()).toEqual([]);
    },
  );
});
