import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { IMPORTS_API, type Import } from "@tonus/contract";
import { afterAll, beforeAll } from "vitest";
import type { App } from "../../../app.ts";
import { type Backend, getTestDatabase } from "../../../test/databases.ts";
import { buildTestApp, type TestClient } from "../../../test/harness.ts";

/**
 * The app an import suite talks to, with an uploads folder of its own: built before the suite's tests,
 * closed and its folder removed after them. Read `app` and `filesDir` inside tests and hooks.
 */
export function importSuite(backend: Backend, name: string): { app: App; filesDir: string } {
  const suite = { app: undefined as unknown as App, filesDir: "" };
  beforeAll(async () => {
    suite.filesDir = fs.mkdtempSync(path.join(os.tmpdir(), `tonus-imports-${name}-`));
    suite.app = await buildTestApp(await getTestDatabase(backend), { FILES_DIR: suite.filesDir });
  });
  afterAll(async () => {
    await suite.app?.close();
    fs.rmSync(suite.filesDir, { recursive: true, force: true });
  });
  return suite;
}

/** A multipart/form-data body with `fields` and one file (as a browser's FormData would send it). */
export function multipartBody(
  fields: Record<string, string>,
  file: { name: string; data: Uint8Array; field?: string } | null,
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----tonus${randomBytes(8).toString("hex")}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? "file"}"; filename="${file.name}"\r\n` +
          "Content-Type: application/octet-stream\r\n\r\n",
      ),
      Buffer.from(file.data),
      Buffer.from("\r\n"),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(parts),
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  };
}

/** Uploads `data` as an import from the catalogue entry `source`. */
export async function upload(
  client: TestClient,
  source: string,
  name: string,
  data: Uint8Array,
  fields: Record<string, string> = {},
) {
  const body = multipartBody({ source, time_zone: "Europe/Moscow", ...fields }, { name, data });
  return client.request("POST", IMPORTS_API.imports, body);
}

const ENDED = new Set(["done", "failed", "cancelled"]);

/** Polls an import until it has ended (the job runs in the test app's own job runner). */
export async function waitForImport(client: TestClient, id: string, timeoutMs = 60_000): Promise<Import> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.get(IMPORTS_API.import.replace(":id", id));
    const body = res.json() as Import;
    if (res.statusCode !== 200) throw new Error(`GET import answered ${res.statusCode}: ${res.body}`);
    if (ENDED.has(body.status)) return body;
    if (Date.now() > deadline) throw new Error(`import ${id} still ${body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until `check` holds (a file removed after the import's row has ended, for instance). */
export async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
