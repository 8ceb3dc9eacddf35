// Every data type a catalogue entry declares is one of its routes can really produce (issue 7: "every
// entry of the catalogue must tell the truth"). What a route produces is measured, not declared: each
// file importer's sample files (test/route-samples.ts) are uploaded and imported through the API and the
// person's stored rows read back; a strap's live measurement is uploaded as the Measure page does; a
// cloud connector produces its provider's metrics (connectors.sync.test.ts checks, against the
// stand-ins, that a sync stores every one of them); the mobile app sends what the ingest API accepts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  API,
  CsvMetricSchema,
  type FileImporter,
  IMPORTS_API,
  type Import,
  INGEST_METRICS,
  type SourceDataType,
} from "@tonus/contract";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { dashboardValuesAll, measurements } from "../../db/schema.ts";
import { getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { findProvider } from "../connectors/connectors.providers.ts";
import { upload, waitForImport } from "../imports/test/import-client.ts";
import { CATALOGUE } from "./sources.catalogue.ts";
import { DATA_TYPE_OF_METRIC, dataTypesOfMetrics } from "./sources.data-types.ts";
import type { MethodDef, SourceEntry } from "./sources.entries.ts";
import { ROUTE_SAMPLES } from "./test/route-samples.ts";

function typesOfMetrics(metrics: Iterable<string>): Set<SourceDataType> {
  const list = [...metrics];
  for (const m of list) expect(m in DATA_TYPE_OF_METRIC, `metric ${m} has no data type`).toBe(true);
  return dataTypesOfMetrics(list);
}

/** A plausible value of each metric a generic CSV column can be mapped to, in its default unit. */
const CSV_VALUES: Record<string, number> = {
  heart_rate: 61,
  resting_heart_rate: 55,
  rmssd: 45,
  sdnn: 50,
  steps: 120,
  distance: 1000,
  active_energy: 100,
  weight: 70.5,
  muscle_mass: 31,
  bone_mass: 3.1,
  fat_mass: 15.2,
  body_fat: 21.5,
  height: 1.75,
  spo2: 97,
  respiratory_rate: 15,
  sleep: 25_000,
  skin_temperature: 33.5,
};

describe("the catalogue's data types against what its routes produce", () => {
  let app: App;
  let filesDir: string;
  const produced = new Map<string, Set<SourceDataType>>();

  beforeAll(async () => {
    filesDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-sources-truth-"));
    app = await buildTestApp(await getTestDatabase("pglite"), { FILES_DIR: filesDir });
    await resetDatabase(app.ctx.database);
  }, 60_000);
  afterAll(async () => {
    await app.close();
    fs.rmSync(filesDir, { recursive: true, force: true });
  });

  /** The data types stored for `person`: the metrics of their dashboard values, and RR from measurements. */
  async function storedTypes(person: TestUser): Promise<Set<SourceDataType>> {
    const db = app.ctx.database.db;
    const values = await db
      .selectDistinct({ metric: dashboardValuesAll.metric })
      .from(dashboardValuesAll)
      .where(eq(dashboardValuesAll.userId, person.userId));
    const types = typesOfMetrics(values.map((v) => v.metric));
    const rr = await db.select().from(measurements).where(eq(measurements.userId, person.userId));
    if (rr.some((m) => (m.rrMs as number[]).length > 0)) types.add("rr_intervals");
    return types;
  }

  async function importAll(importer: FileImporter): Promise<Set<SourceDataType>> {
    const person = await createTestUser(app.ctx.database, { isCustomerOverride: true });
    const client = person.client(app);
    // Uploaded under an entry of that importer: under "Other CSV file" every CSV waits for its columns.
    const entry = CATALOGUE.find((e) => e.methods.some((m) => m.kind === "file" && m.importer === importer));
    for (const file of ROUTE_SAMPLES[importer]) {
      const res = await upload(client, entry?.slug ?? "csv-file", file.name, file.data, file.fields);
      expect(res.statusCode, `${file.name}: ${res.body}`).toBe(201);
      const done = await waitForImport(client, (res.json() as Import).id);
      expect(done.status, `${file.name}: ${JSON.stringify(done.report)}`).toBe("done");
      expect(done.report?.imported, file.name).toBeGreaterThan(0);
    }
    if (importer === "csv") {
      const metrics = CsvMetricSchema.options;
      const csv = `time,${metrics.join(",")}\n2024-02-01 08:00,${metrics.map((m) => CSV_VALUES[m]).join(",")}\n`;
      const res = await upload(client, "csv-file", "my-data.csv", new TextEncoder().encode(csv));
      const waiting = res.json() as Import;
      expect(waiting.status, res.body).toBe("needs_mapping");
      const mapping = {
        time: "time",
        time_format: "iso",
        columns: metrics.map((m) => ({ column: m, metric: m })),
      };
      const started = await client.post(IMPORTS_API.mapping.replace(":id", waiting.id), mapping);
      expect(started.statusCode, started.body).toBe(200);
      const done = await waitForImport(client, waiting.id);
      expect(done.report?.imported, JSON.stringify(done.report)).toBe(metrics.length);
    }
    return storedTypes(person);
  }

  beforeAll(async () => {
    for (const importer of Object.keys(ROUTE_SAMPLES) as FileImporter[])
      produced.set(`file:${importer}`, await importAll(importer));
    // A chest strap is measured live on the Measure page, which uploads the RR series it recorded.
    const person = await createTestUser(app.ctx.database, { isCustomerOverride: true });
    const rr = Array.from({ length: 300 }, (_, i) => 800 + ((i * 37) % 80) - 40);
    const res = await person.client(app).post(API.measurements, {
      client_id: "5e0a3f51-2a1c-4f0e-9d55-1f3c5c2b9e01",
      rr_ms: rr,
      source: "strap",
      started_at: "2024-02-01T07:00:00Z",
      time_zone: "UTC",
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    produced.set("bluetooth", await storedTypes(person));
    // The mobile app sends what the ingest API accepts: samples of its metrics, RR series, readings.
    produced.set(
      "mobile_app",
      new Set([...typesOfMetrics(Object.keys(INGEST_METRICS)), "rr_intervals", "hrv", "blood_pressure"]),
    );
  }, 600_000);

  function routeTypes(method: MethodDef): Set<SourceDataType> {
    switch (method.kind) {
      case "file":
        return produced.get(`file:${method.importer}`) ?? new Set();
      case "aggregator": {
        const via = CATALOGUE.find((e) => e.slug === method.via);
        const files = via?.methods.filter((m) => m.kind === "file") ?? [];
        return new Set(files.flatMap((m) => [...routeTypes(m)]));
      }
      case "cloud": {
        const provider = findProvider(method.provider);
        expect(provider, method.provider).toBeDefined();
        const types = typesOfMetrics(provider?.metrics ?? []);
        if (provider?.bloodPressure) types.add("blood_pressure");
        return types;
      }
      case "bluetooth":
        return produced.get("bluetooth") ?? new Set();
      case "mobile_app":
        return produced.get("mobile_app") ?? new Set();
    }
  }

  it("measures something for every file importer and the strap", () => {
    for (const [route, types] of produced) expect(types.size, route).toBeGreaterThan(0);
    // A sanity check on the measuring itself: Apple Health's export carries almost everything.
    expect([...(produced.get("file:apple_health") ?? [])].sort()).toEqual(
      expect.arrayContaining([
        "blood_pressure",
        "heart_rate",
        "hrv",
        "rr_intervals",
        "sleep",
        "steps",
        "workouts",
      ]),
    );
  });

  /** The declared data types none of the entry's routes produces. */
  function overclaimed(entry: Pick<SourceEntry, "dataTypes" | "methods">): SourceDataType[] {
    const possible = new Set(entry.methods.flatMap((m) => [...routeTypes(m)]));
    return entry.dataTypes.filter((t) => !possible.has(t));
  }

  it("catches an entry that claims what its route cannot give", () => {
    const rrFile: MethodDef = { kind: "file", importer: "rr_text", guide: "rr_file_any" };
    expect(overclaimed({ dataTypes: ["hrv", "water", "sleep"], methods: [rrFile] })).toEqual([
      "water",
      "sleep",
    ]);
  });

  it.each(CATALOGUE.map((e) => [e.slug, e] as const))(
    "%s declares only data types its routes produce",
    (_slug, entry) => {
      expect(overclaimed(entry), `${entry.slug} via ${entry.methods.map((m) => m.kind).join(", ")}`).toEqual(
        [],
      );
    },
  );
});
