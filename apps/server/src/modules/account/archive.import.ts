import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { ArchiveImportResponse } from "@tonus/contract";
import { findZipEntry, ImportInputError, openZip, readZipEntry, type ZipLimits } from "@tonus/importers";
import { openFileSource } from "@tonus/importers/node";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { countPortableRows, importUserData, registryEnv } from "../../lib/registry.ts";

/** The largest account.json an import reads (JSON.parse holds it whole; V8 strings stop near 512 MB). */
export const ACCOUNT_JSON_MAX_BYTES = 256 * 1024 * 1024;
/**
 * Caps for an uploaded archive, checked by the project's defensive zip reader before anything is
 * inflated and again while inflating (RELIABILITY U4): our archives hold a few dozen entries, account.json
 * and the same rows again as CSV and FHIR, so a gigabyte in all is far beyond any real one.
 */
export const ARCHIVE_ZIP_LIMITS: ZipLimits = {
  maxEntries: 1000,
  maxTotalUncompressedBytes: 1024 ** 3,
  maxRatio: 200,
};
/** Uploads wait here (FILES_DIR/imports) while they are read; a crash's leftovers go within the hour. */
export const IMPORT_AREA = "imports";
const STALE_UPLOAD_MS = 3_600_000;

type Ctx = Pick<AppContext, "config" | "database" | "services">;

/** A fresh path for an upload under FILES_DIR/imports (the folder is made if needed). */
export async function newUploadPath(filesDir: string): Promise<string> {
  const dir = path.join(filesDir, IMPORT_AREA);
  await fs.mkdir(dir, { recursive: true });
  return path.join(dir, `${randomBytes(16).toString("hex")}.zip`);
}

/** Removes uploads older than an hour (left by a crash mid-import); the archive-expiry job calls it. */
export async function removeStaleUploads(filesDir: string, now = new Date()): Promise<number> {
  const dir = path.join(filesDir, IMPORT_AREA);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const stat = await fs.stat(file).catch(() => null);
    if (stat && now.getTime() - stat.mtimeMs > STALE_UPLOAD_MS) {
      await fs.rm(file, { force: true, recursive: true });
      removed++;
    }
  }
  return removed;
}

function refuse(error: ImportInputError): AppError {
  const { reason } = error.rejection;
  if (reason === "zip_too_large" || reason === "zip_ratio_exceeded")
    return new AppError("payload_too_large", "The archive unpacks to more than this server accepts");
  return new AppError("validation_failed", `This file is not a readable zip archive (${reason})`);
}

/** `account.json` of an uploaded archive, parsed; a hostile or foreign zip is a 4xx, never read further. */
export async function readAccountJson(file: string): Promise<unknown> {
  const source = await openFileSource(file);
  try {
    const zip = await openZip(source, ARCHIVE_ZIP_LIMITS);
    const entry = findZipEntry(zip, "account.json");
    if (!entry) throw new AppError("validation_failed", "The zip holds no account.json: not a Tonus archive");
    if (entry.uncompressedSize > ACCOUNT_JSON_MAX_BYTES)
      throw new AppError(
        "payload_too_large",
        "The archive's account.json is larger than this server accepts",
      );
    const chunks: Uint8Array[] = [];
    for await (const chunk of readZipEntry(zip, entry)) chunks.push(chunk);
    try {
      return JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      throw new AppError("validation_failed", "The archive's account.json is not valid JSON");
    }
  } catch (error) {
    if (error instanceof ImportInputError) throw refuse(error);
    throw error;
  } finally {
    await source.close();
  }
}

/**
 * Restores an exported archive into the caller's account, which must still be empty (spec §4 Data
 * archive, PRODUCT.md "an import of that archive restores an account"): account.json goes through the
 * data registry's import in one transaction, so a refused archive leaves nothing behind.
 */
export async function importArchiveFile(
  ctx: Ctx,
  userId: string,
  file: string,
): Promise<ArchiveImportResponse> {
  const json = await readAccountJson(file);
  const env = registryEnv(ctx);
  await importUserData(env, json, { asUserId: userId, intoExistingAccount: true });
  return { ok: true, restored: await countPortableRows(env, userId) };
}
