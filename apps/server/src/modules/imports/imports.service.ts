import path from "node:path";
import {
  type CsvMapping,
  type CsvPreview,
  IMPORT_LIMITS,
  type Import,
  type ImportKind,
  type ImportList,
  type ImportListQuery,
  type ImportReport,
  type ImportStatus,
  type ImportUploadFields,
} from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import type { JobRef } from "../../lib/jobs.ts";
import { UUID_RE } from "../../lib/uuid.ts";
import { findSourceEntry, isGenericCsv, takesFiles } from "../sources/sources.catalogue.ts";
import type { SourceEntry } from "../sources/sources.entries.ts";
import { detectUpload } from "./imports.detect.ts";
import { deleteImportFile, importFilePath, listOldImportFiles, type SavedUpload } from "./imports.files.ts";
import { type ImportOptions, INSTANCE_ID } from "./imports.job.ts";
import {
  activeUsage,
  findImportOf,
  finishImport,
  type ImportRow,
  insertImport,
  latestImportPerSource,
  listImportsOf,
  lockUserImports,
  queueWithOptions,
  referencedStoredNames,
  releaseLeasesOfOthers,
  requestCancel,
  staleMappings,
  unfinishedImports,
  unfinishedImportsOf,
} from "./imports.repo.ts";

type Ctx = Pick<AppContext, "config" | "database" | "services" | "log">;
export type ImportJob = JobRef<{ importId: string; userId: string }>;

const NO_ID = "00000000-0000-0000-0000-000000000000";
const idOrNone = (id: string) => (UUID_RE.test(id) ? id : NO_ID);
const MB = 1024 * 1024;
/** Room for the multipart framing and form fields around the file in a declared Content-Length. */
const MULTIPART_SLACK_BYTES = 64 * 1024;

export function importLimits(ctx: Pick<AppContext, "config">) {
  return { maxFileBytes: ctx.config.IMPORT_MAX_FILE_MB * MB, quotaBytes: ctx.config.IMPORT_QUOTA_MB * MB };
}

export function toWire(row: ImportRow): Import {
  return {
    id: row.id,
    source_slug: row.sourceSlug,
    file_name: row.fileName,
    size_bytes: row.sizeBytes,
    kind: row.kind as ImportKind,
    status: row.status as ImportStatus,
    cancel_requested: row.cancelRequested,
    created: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
    progress: {
      bytes_read: Math.min(row.bytesRead, row.sizeBytes),
      bytes_total: row.sizeBytes,
      records_read: row.recordsRead,
      imported: row.importedCount,
      duplicates: row.duplicateCount,
      rejected: row.rejectedCount,
    },
    report: (row.report as ImportReport | null) ?? null,
    preview: row.status === "needs_mapping" ? ((row.preview as CsvPreview | null) ?? null) : null,
  };
}

/** 429 for a third unfinished import, naming the two there are and where they wait (their entries). */
async function tooMany(db: Db, userId: string): Promise<AppError> {
  const unfinished = await unfinishedImportsOf(db, userId);
  return new AppError(
    "too_many_imports",
    `You already have ${IMPORT_LIMITS.maxActive} unfinished imports (running, or waiting for a CSV's columns to be chosen); let one finish or cancel one first`,
    {
      retryAfterS: 60,
      unfinished: unfinished.map((u) => ({
        id: u.id,
        source_slug: u.sourceSlug,
        file_name: u.fileName,
        status: u.status,
      })),
    },
  );
}

/**
 * Checks, before a byte is stored, that the person may start another import, and answers how many
 * bytes the upload may have (the smaller of the file limit and what the quota leaves).
 */
export async function allowUpload(
  ctx: Ctx,
  userId: string,
  declaredBytes: number | undefined,
): Promise<number> {
  const { maxFileBytes, quotaBytes } = importLimits(ctx);
  if (declaredBytes !== undefined && declaredBytes > maxFileBytes + MULTIPART_SLACK_BYTES)
    throw new AppError("file_too_large", `The file must be at most ${ctx.config.IMPORT_MAX_FILE_MB} MB`);
  const usage = await activeUsage(ctx.database.db, userId);
  if (usage.count >= IMPORT_LIMITS.maxActive) throw await tooMany(ctx.database.db, userId);
  const left = quotaBytes - usage.bytes;
  if (left <= 0 || (declaredBytes !== undefined && declaredBytes > left + MULTIPART_SLACK_BYTES))
    throw quotaError(ctx);
  return Math.min(maxFileBytes, left);
}

function quotaError(ctx: Pick<AppContext, "config">): AppError {
  return new AppError(
    "storage_quota_exceeded",
    `Imports in progress may keep at most ${ctx.config.IMPORT_QUOTA_MB} MB of files; wait for them to finish`,
  );
}

/** Minutes east of UTC of `timeZone` now (exports without zones are read in the person's zone). */
export function offsetMinutes(timeZone: string, at = new Date()): number {
  const name = new Intl.DateTimeFormat("en", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(at)
    .find((p) => p.type === "timeZoneName")?.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name ?? "");
  if (!m) return 0;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** A client's file name, reduced to its last path segment, without control characters, capped. */
export function cleanFileName(name: string): string {
  const base = path.posix.basename(name.replaceAll("\\", "/")).replace(/\p{Cc}/gu, "");
  return base.slice(0, IMPORT_LIMITS.fileNameMaxLength) || "upload";
}

/**
 * Refuses an upload under an unknown catalogue entry (404) or one with no export file to read (400
 * `source_not_importable`: Health Connect is read on the phone only, a cloud service is connected).
 */
export function checkUploadSource(slug: string): SourceEntry {
  const entry = findSourceEntry(slug);
  if (!entry) throw new AppError("not_found", "No such data source");
  if (!takesFiles(entry))
    throw new AppError("source_not_importable", `${entry.name} has no export file Tonus can import`);
  return entry;
}

/**
 * Turns a stored upload into an import: recognises it (a hostile zip or an unknown format is refused
 * whole, the file removed), then — under the person's lock, checking the limits again — records it as
 * queued (with its job sent in the same transaction) or, for a generic CSV, waiting for its mapping.
 */
export async function createImport(
  ctx: Ctx,
  job: ImportJob,
  userId: string,
  input: { storedName: string; saved: SavedUpload; fileName: string; fields: ImportUploadFields },
): Promise<Import> {
  const { storedName, saved, fields } = input;
  const file = importFilePath(ctx.config.filesDir, storedName);
  const discard = () => deleteImportFile(ctx.config.filesDir, storedName);
  try {
    const entry = checkUploadSource(fields.source);
    const fileName = cleanFileName(input.fileName);
    const detected = await detectUpload(file, saved.head, fileName, { mapColumns: isGenericCsv(entry) });
    if (!detected.ok)
      throw new AppError("import_rejected", "Tonus cannot import this file", {
        reason: detected.reason,
        ...(detected.detail ? { detail: detected.detail } : {}),
      });
    const options: ImportOptions = {
      timeZone: fields.time_zone,
      timezoneOffsetMin: offsetMinutes(fields.time_zone),
      recordedAtMs: fields.recorded_at ? Date.parse(fields.recorded_at) : Date.now(),
    };
    const status = detected.kind === "csv" ? "needs_mapping" : "queued";
    const row = await ctx.database.db.transaction(async (t) => {
      const tx = t as unknown as typeof ctx.database.db;
      await lockUserImports(tx, userId);
      const usage = await activeUsage(tx, userId);
      if (usage.count >= IMPORT_LIMITS.maxActive) throw await tooMany(tx, userId);
      if (usage.bytes + saved.size > importLimits(ctx).quotaBytes) throw quotaError(ctx);
      const created = await insertImport(tx, {
        userId,
        sourceSlug: fields.source,
        fileName,
        storedName,
        sizeBytes: saved.size,
        sha256: saved.sha256,
        kind: detected.kind,
        status,
        options,
        preview: detected.preview ?? null,
      });
      if (status === "queued")
        await job.send({ importId: created.id, userId }, { tx, singletonKey: created.id });
      return created;
    });
    return toWire(row);
  } catch (error) {
    await discard();
    throw error;
  }
}

export async function listImports(ctx: Ctx, userId: string, q: ImportListQuery): Promise<ImportList> {
  const rows = await listImportsOf(ctx.database.db, userId, q);
  return { results: rows.map(toWire) };
}

export async function getImport(ctx: Ctx, userId: string, id: string): Promise<Import> {
  const row = await findImportOf(ctx.database.db, userId, idOrNone(id));
  if (!row) throw new AppError("not_found", "Not found");
  return toWire(row);
}

/** The latest import per catalogue entry, for the data-source pages. */
export async function latestImportsBySource(ctx: Ctx, userId: string): Promise<Map<string, Import>> {
  const rows = await latestImportPerSource(ctx.database.db, userId);
  return new Map(rows.map((r) => [r.sourceSlug, toWire(r)]));
}

/** Starts a generic CSV's import with the mapping the person confirmed. */
export async function setMapping(
  ctx: Ctx,
  job: ImportJob,
  userId: string,
  id: string,
  mapping: CsvMapping,
): Promise<Import> {
  const row = await findImportOf(ctx.database.db, userId, idOrNone(id));
  if (!row) throw new AppError("not_found", "Not found");
  if (row.status !== "needs_mapping")
    throw new AppError("import_state", "This import is not waiting for a column mapping");
  const header = ((row.preview as CsvPreview | null)?.header ?? []).map((h) => h.trim());
  const missing = [mapping.time, ...mapping.columns.map((c) => c.column)].filter((c) => !header.includes(c));
  if (missing.length > 0)
    throw new AppError("validation_failed", "The mapping names columns the file does not have", {
      issues: missing.map((c) => ({ path: "columns", message: `No column ${c}` })),
    });
  const queued = await ctx.database.db.transaction(async (t) => {
    const tx = t as unknown as typeof ctx.database.db;
    const updated = await queueWithOptions(tx, userId, row.id, { ...row.options, mapping });
    if (!updated) throw new AppError("import_state", "This import is not waiting for a column mapping");
    await job.send({ importId: row.id, userId }, { tx, singletonKey: row.id });
    return updated;
  });
  return toWire(queued);
}

/**
 * Cancels an import: one waiting for its mapping or its turn ends at once (its file removed); a running
 * one stops after its current batch. What was already imported stays.
 */
export async function cancelImport(ctx: Ctx, userId: string, id: string): Promise<Import> {
  const db = ctx.database.db;
  const row = await findImportOf(db, userId, idOrNone(id));
  if (!row) throw new AppError("not_found", "Not found");
  if (!["needs_mapping", "queued", "running"].includes(row.status)) return toWire(row);
  if (row.status !== "running") {
    // Nothing was read yet: it ends now. (A run claiming it meanwhile finds it ended and stops.)
    const ended = await finishImport(db, row.id, "cancelled", emptyReport(row.kind));
    await deleteImportFile(ctx.config.filesDir, row.storedName);
    if (ended) return toWire(ended);
  }
  const asked = await requestCancel(db, userId, row.id);
  if (!asked) throw new AppError("not_found", "Not found");
  return toWire(asked);
}

function emptyReport(format: string): ImportReport {
  return {
    format,
    read: 0,
    imported: 0,
    duplicates: 0,
    rejected: 0,
    ignored: 0,
    measurements: 0,
    bp_readings: 0,
    rejections: [],
    warnings: [],
    fatal: null,
  };
}

/**
 * Sends a run for every unfinished import (at start and from the hourly sweep): runs are idempotent and
 * only one holds an import at a time, so an extra one does nothing. On PGlite the leases of the server
 * this one replaced are freed first, so a killed server's import continues at once.
 */
export async function resumeImports(ctx: Ctx, job: ImportJob): Promise<number> {
  const db = ctx.database.db;
  if (ctx.database.pglite) await releaseLeasesOfOthers(db, INSTANCE_ID);
  const rows = await unfinishedImports(db);
  for (const row of rows) {
    const lease = row.lockedUntil ? row.lockedUntil.getTime() - Date.now() : 0;
    await job.send(
      { importId: row.id, userId: row.userId },
      lease > 0 ? { startAfter: new Date(Date.now() + lease + 1000) } : {},
    );
  }
  return rows.length;
}

/** Hourly: mappings never confirmed for a day are cancelled; files no import refers to are removed. */
export async function sweepImports(ctx: Ctx, job: ImportJob, now = Date.now()): Promise<void> {
  const db = ctx.database.db;
  for (const row of await staleMappings(db, new Date(now - 24 * 3600_000))) {
    await cancelImport(ctx, row.userId, row.id);
  }
  await resumeImports(ctx, job);
  const old = await listOldImportFiles(ctx.config.filesDir, 24 * 3600_000, now);
  const referenced = await referencedStoredNames(db, old);
  for (const name of old) if (!referenced.has(name)) await deleteImportFile(ctx.config.filesDir, name);
}
