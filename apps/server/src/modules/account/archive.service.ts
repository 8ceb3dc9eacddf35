import fs from "node:fs/promises";
import { ARCHIVE_API, type ArchiveStatus } from "@tonus/contract";
import { and, desc, eq, isNotNull, isNull, lte, sql } from "drizzle-orm";
import { dataArchives, users } from "../../db/schema.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { translate } from "../../lib/i18n.ts";
import type { JobRef } from "../../lib/jobs.ts";
import { exportUserData, registryEnv } from "../../lib/registry.ts";
import {
  archivePath,
  deleteArchiveFile,
  newArchiveName,
  removeArchiveTempFiles,
  removeOrphanArchiveFiles,
  writeArchiveFile,
} from "./archive.files.ts";
import { ARCHIVE_README, toCsv, toFhirBundle } from "./archive.format.ts";
import { buildZip, type ZipEntry } from "./zip.ts";

/** Spec §9: an archive is ready within 24 hours; it can be downloaded for 24 hours after that. */
export const ARCHIVE_TTL_MS = 24 * 3600_000;
/** Packing attempts that may fail with an error before the archive is marked failed. */
export const ARCHIVE_RETRIES = 3;
/** pg-boss's retries of the packing job: failures and runs a killed process left behind alike. */
export const ARCHIVE_JOB_RETRIES = 50;
/** A "ready" mail still owed this long after the archive was ready is sent by the hourly sweep. */
const OWED_MAIL_AFTER_MS = 10 * 60_000;

type Ctx = Pick<AppContext, "config" | "database" | "services" | "log">;
type Row = typeof dataArchives.$inferSelect;

function statusOut(row: Row | undefined, now = new Date()): ArchiveStatus {
  if (!row)
    return {
      id: null,
      status: "none",
      requested_at: null,
      ready_at: null,
      expires_at: null,
      download_url: null,
      size_bytes: null,
    };
  const expired = row.status === "ready" && row.expiresAt !== null && row.expiresAt <= now;
  const status = expired ? "expired" : (row.status as ArchiveStatus["status"]);
  return {
    id: row.id,
    status,
    requested_at: row.requestedAt.toISOString(),
    ready_at: row.readyAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    download_url: status === "ready" ? ARCHIVE_API.download.replace(":id", row.id) : null,
    size_bytes: status === "ready" ? row.sizeBytes : null,
  };
}

export async function archiveStatus(ctx: Ctx, userId: string): Promise<ArchiveStatus> {
  const [row] = await ctx.database.db
    .select()
    .from(dataArchives)
    .where(eq(dataArchives.userId, userId))
    .orderBy(desc(dataArchives.requestedAt))
    .limit(1);
  return statusOut(row);
}

/** Requests a new archive: one being packed is answered as it is; otherwise a job starts packing. */
export async function requestArchive(
  ctx: Ctx,
  job: JobRef<{ archiveId: string }>,
  userId: string,
): Promise<ArchiveStatus> {
  const db = ctx.database.db;
  const [packing] = await db
    .select()
    .from(dataArchives)
    .where(and(eq(dataArchives.userId, userId), eq(dataArchives.status, "packing")));
  if (packing) return statusOut(packing);
  const row = await db.transaction(async (tx) => {
    const [created] = await tx.insert(dataArchives).values({ userId, status: "packing" }).returning();
    if (!created) throw new Error("archive row not inserted");
    // The job exists only if the request committed; it survives a restart (pg-boss in our database).
    await job.send({ archiveId: created.id }, { tx: tx as never, singletonKey: created.id });
    return created;
  });
  return statusOut(row);
}

/** Builds the zip for one user: account.json, a CSV per table, the FHIR bundle and a README. */
export async function buildArchive(ctx: Ctx, userId: string): Promise<Buffer> {
  const archive = await exportUserData(registryEnv(ctx), userId);
  const entries: ZipEntry[] = [
    { name: "README.txt", data: ARCHIVE_README },
    { name: "account.json", data: JSON.stringify(archive, null, 2) },
    { name: "fhir-bundle.json", data: JSON.stringify(toFhirBundle(archive), null, 2) },
  ];
  for (const [section, data] of Object.entries(archive.sections)) {
    for (const [table, rows] of Object.entries(data.tables)) {
      entries.push({ name: `${section}/${table}.csv`, data: toCsv(rows) });
    }
  }
  return buildZip(entries);
}

/**
 * The packing job, idempotent and resumable (RELIABILITY F6):
 * - the file name is recorded on the row before the file is written, so a crash between the write and
 *   the row update leaves no orphan: the next run writes the same name again, and deletion or expiry
 *   find it;
 * - `failures` counts attempts that failed with an error; after ARCHIVE_RETRIES of them the archive is
 *   failed (a killed process is no failure: its run is simply repeated);
 * - the "ready" e-mail is its own step, owed until `notified_at` is set: a run after a failed mail sends
 *   it again instead of finding the archive ready and leaving.
 */
export async function packArchive(ctx: Ctx, archiveId: string): Promise<void> {
  const db = ctx.database.db;
  const [row] = await db.select().from(dataArchives).where(eq(dataArchives.id, archiveId));
  if (row?.status === "ready" && row.notifiedAt === null) return mailArchiveReady(ctx, row);
  if (row?.status !== "packing") return;
  const filesDir = ctx.config.filesDir;
  let name = row.fileName;
  if (!name) {
    const [named] = await db
      .update(dataArchives)
      .set({ fileName: newArchiveName() })
      .where(and(eq(dataArchives.id, archiveId), eq(dataArchives.status, "packing")))
      .returning();
    if (!named?.fileName) return;
    name = named.fileName;
  }
  await removeArchiveTempFiles(filesDir, name);
  let size: number;
  try {
    const zip = await buildArchive(ctx, row.userId);
    await writeArchiveFile(filesDir, name, zip);
    size = zip.length;
  } catch (error) {
    ctx.log.warn({ err: error, archiveId }, "archive packing failed");
    const [counted] = await db
      .update(dataArchives)
      .set({ failures: sql`${dataArchives.failures} + 1` })
      .where(and(eq(dataArchives.id, archiveId), eq(dataArchives.status, "packing")))
      .returning();
    if (!counted || counted.failures < ARCHIVE_RETRIES) throw error;
    // Out of attempts: "Failed to create a new archive", and no retry after this one.
    await db
      .update(dataArchives)
      .set({ status: "failed", fileName: null })
      .where(and(eq(dataArchives.id, archiveId), eq(dataArchives.status, "packing")));
    // Whatever was written goes now, or with the hourly sweep of files no row names.
    await deleteArchiveFile(filesDir, name).catch(() => {});
    return;
  }
  const now = new Date();
  const [updated] = await db
    .update(dataArchives)
    .set({
      status: "ready",
      sizeBytes: size,
      readyAt: now,
      expiresAt: new Date(now.getTime() + ARCHIVE_TTL_MS),
    })
    .where(and(eq(dataArchives.id, archiveId), eq(dataArchives.status, "packing")))
    .returning();
  if (!updated) {
    // The account was deleted meanwhile (its removal may have run before this file existed); an archive
    // another run finished keeps its file, which has the same name.
    const [still] = await db.select().from(dataArchives).where(eq(dataArchives.id, archiveId));
    if (!still) await deleteArchiveFile(filesDir, name);
    return;
  }
  await mailArchiveReady(ctx, updated);
}

/** The "archive ready" e-mail, then the mark that it went; a failure leaves it owed (the job retries). */
async function mailArchiveReady(ctx: Ctx, row: Row): Promise<void> {
  const db = ctx.database.db;
  const [user] = await db
    .select({ email: users.email, language: users.newsletterLanguage })
    .from(users)
    .where(eq(users.id, row.userId));
  if (user) {
    const locale = user.language === "ru" ? "ru" : "en";
    const link = `${ctx.config.PUBLIC_URL ?? ""}/user/profile`;
    await ctx.services.mailer.send({
      to: user.email,
      userId: row.userId,
      subject: translate(locale, "mail.archive_ready.subject"),
      text: translate(locale, "mail.archive_ready.body", { link }),
    });
  }
  await db
    .update(dataArchives)
    .set({ notifiedAt: new Date() })
    .where(and(eq(dataArchives.id, row.id), isNull(dataArchives.notifiedAt)));
}

/** The owner's ready archive file, or 404 for anyone else, an unknown id or an expired archive (X4). */
export async function openArchive(ctx: Ctx, userId: string, archiveId: string) {
  const [row] = await ctx.database.db
    .select()
    .from(dataArchives)
    .where(and(eq(dataArchives.id, archiveId), eq(dataArchives.userId, userId)));
  const status = statusOut(row);
  if (!row || status.status !== "ready" || !row.fileName) throw new AppError("not_found", "Not found");
  try {
    return { data: await fs.readFile(archivePath(ctx.config.filesDir, row.fileName)), row };
  } catch {
    throw new AppError("not_found", "Not found");
  }
}

/**
 * Hourly: expired archives lose their file; archives stuck in packing past 24 h are failed; "ready" mails
 * still owed (every retry of the job failed to send) are sent; archive files and temporary files no row
 * names, older than an hour, are removed.
 */
export async function expireArchives(ctx: Ctx, now = new Date()): Promise<void> {
  const db = ctx.database.db;
  const filesDir = ctx.config.filesDir;
  const expired = await db
    .select()
    .from(dataArchives)
    .where(and(eq(dataArchives.status, "ready"), lte(dataArchives.expiresAt, now)));
  for (const row of expired) {
    if (row.fileName) await deleteArchiveFile(filesDir, row.fileName);
    await db
      .update(dataArchives)
      .set({ status: "expired", fileName: null })
      .where(eq(dataArchives.id, row.id));
  }
  await db
    .update(dataArchives)
    .set({ status: "failed", fileName: null })
    .where(
      and(
        eq(dataArchives.status, "packing"),
        lte(dataArchives.requestedAt, new Date(now.getTime() - ARCHIVE_TTL_MS)),
      ),
    );
  const owed = await db
    .select()
    .from(dataArchives)
    .where(
      and(
        eq(dataArchives.status, "ready"),
        isNull(dataArchives.notifiedAt),
        lte(dataArchives.readyAt, new Date(now.getTime() - OWED_MAIL_AFTER_MS)),
      ),
    );
  for (const row of owed) {
    try {
      await mailArchiveReady(ctx, row);
    } catch (error) {
      ctx.log.warn(
        { err: error, archiveId: row.id },
        "the archive-ready mail could not be sent; tried again hourly",
      );
    }
  }
  const named = await db
    .select({ fileName: dataArchives.fileName })
    .from(dataArchives)
    .where(isNotNull(dataArchives.fileName));
  await removeOrphanArchiveFiles(
    filesDir,
    new Set(named.flatMap((r) => (r.fileName ? [r.fileName] : []))),
    now,
  );
}
