import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { IMPORTS_API } from "@tonus/contract";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { imports } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { multipartBody } from "./test/import-client.ts";

const HEAVY = Boolean(process.env.TONUS_HEAVY);

/** Hostile multipart bodies: odd fields and names, several files, bytes that are no format at all. */
const hostileUpload = fc.record({
  fields: fc.dictionary(
    fc.oneof(
      fc.constantFrom("source", "time_zone", "recorded_at", "__proto__", "constructor", "file"),
      fc.string(),
    ),
    fc.oneof(fc.string(), fc.constantFrom("apple-health", "csv-file", "Europe/Moscow", "x".repeat(5000))),
    { maxKeys: 6 },
  ),
  file: fc.option(
    fc.record({
      name: fc.oneof(fc.string(), fc.constantFrom("../../etc/passwd", "export.zip", "a.fit", "\u0000.csv")),
      data: fc.oneof(
        fc.uint8Array({ maxLength: 2048 }),
        fc.constant(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3])),
        fc.constant(new TextEncoder().encode("<HealthData><Record")),
      ),
      field: fc.constantFrom("file", "upload", "file"),
    }),
    { nil: null },
  ),
  raw: fc.option(fc.uint8Array({ maxLength: 512 }), { nil: null }),
});

describe.each(BACKENDS)("import routes under hostile input on %s (Z1)", (backend) => {
  let app: App;
  let filesDir: string;
  let user: TestUser;
  beforeAll(async () => {
    filesDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-imports-fuzz-"));
    app = await buildTestApp(await getTestDatabase(backend), { FILES_DIR: filesDir });
    await resetDatabase(app.ctx.database);
    user = await createTestUser(app.ctx.database);
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(filesDir, { recursive: true, force: true });
  });

  it("answers every hostile upload with a 2xx or a 4xx in the error shape, never a 5xx", async () => {
    const client = user.client(app);
    await fc.assert(
      fc.asyncProperty(hostileUpload, async ({ fields, file, raw }) => {
        const body = multipartBody(fields, file);
        const payload = raw
          ? Buffer.concat([body.payload.subarray(0, body.payload.length / 2), raw])
          : body.payload;
        const res = await client.request("POST", IMPORTS_API.imports, { payload, headers: body.headers });
        if (res.statusCode >= 500) throw new Error(`answered ${res.statusCode}: ${res.body}`);
        if (res.statusCode >= 400) {
          const json = res.json() as { error?: unknown; code?: unknown };
          expect(typeof json.error === "string" && typeof json.code === "string", res.body).toBe(true);
        }
        // Keep the per-person limit from turning every later case into a 429.
        if (res.statusCode === 201) await client.post(IMPORTS_API.cancel.replace(":id", res.json().id));
      }),
      { numRuns: HEAVY ? 2000 : 60 },
    );
    // Nothing refused left a file behind.
    const rows = await app.ctx.database.db.select().from(imports);
    const kept = fs.existsSync(path.join(filesDir, "imports"))
      ? fs.readdirSync(path.join(filesDir, "imports"))
      : [];
    const referenced = new Set(rows.flatMap((r) => (r.storedName ? [r.storedName] : [])));
    expect(kept.filter((name) => !referenced.has(name))).toEqual([]);
  }, 300_000);
});
