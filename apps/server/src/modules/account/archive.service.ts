import fs from "node:fs/promises";
import { ARCHIVE_API, type ArchiveStatus } from "@tonus/contract";
import { and, desc, eq, inArray, lte } from "drizzle-orm";
import { dataArchives, users } from "../../db/schema.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { translate } from "../../lib/i18n.ts";
import type { JobRef } from "../../lib/jobs.ts";
import { exportUserData, registryEnv } from "../../lib/registry.ts";
import { archivePath, deleteArchiveFile, newArchiveName, writeArchiveFile } from "./archive.files.ts";
import { ARCHIVE_README, toCsv, toFhirBundle } from "./archive.format.ts";
import { buildZip, type ZipEntry } from "./zip.ts";

/** Spec §9: an archive is ready within 24 hours; it can be downloaded for 24 hours after that. */
export const ARCHIVE_TTL_MS = 24 * 3600_000;
/** pg-boss retries a failed packing this many times before the archive is marked failed. */
export const ARCHIVE_RETRIES = 3;

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
 * The packing job: idempotent (a finished archive is left alone; a rerun after a crash writes a new file
 * and only then points the row at it). The last failed attempt marks the archive failed.
 */
export async function packArchive(ctx: Ctx, archiveId: string, retryCount: number): Promise<void> {
  const db = ctx.database.db;
  const [row] = await db.select().from(dataArchives).where(eq(dataArchives.id, archiveId));
  if (row?.status !== "packing") return;
  try {
    const zip = await buildArchive(ctx, row.userId);
    const name = newArchiveName();
    await writeArchiveFile(ctx.config.filesDir, name, zip);
    const now = new Date();
    const [updated] = await db
      .update(dataArchives)
      .set({
        status: "ready",
        fileName: name,
        sizeBytes: zip.length,
        readyAt: now,
        expiresAt: new Date(now.getTime() + ARCHIVE_TTL_MS),
      })
      .where(and(eq(dataArchives.id, archiveId), eq(dataArchives.status, "packing")))
      .returning();
    if (!updated) {
      // Deleted (or finished by another worker) meanwhile: this file belongs to nobody.
      await deleteArchiveFile(ctx.config.filesDir, name);
      return;
    }
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
  } catch (error) {
    ctx.log.warn({ err: error, archiveId, retryCount }, "archive packing failed");
    if (retryCount >= ARCHIVE_RETRIES)
      await db.update(dataArchives).set({ status: "failed" }).where(eq(dataArchives.id, archiveId));
    throw error;
  }
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

/** Hourly: expired archives lose their file; archives stuck in packing past 24 h are failed. */
export async function expireArchives(ctx: Ctx, now = new Date()): Promise<void> {
  const db = ctx.database.db;
  const expired = await db
    .select()
    .from(dataArchives)
    .where(and(eq(dataArchives.status, "ready"), lte(dataArchives.expiresAt, now)));
  for (const row of expired) {
    if (row.fileName) await deleteArchiveFile(ctx.config.filesDir, row.fileName);
    await db
      .update(dataArchives)
      .set({ status: "expired", fileName: null })
      .where(eq(dataArchives.id, row.id));
  }
  await db
    .update(dataArchives)
    .set({ status: "failed" })
    .where(
      and(
        inArray(dataArchives.status, ["packing"]),
        lte(dataArchives.requestedAt, new Date(now.getTime() - ARCHIVE_TTL_MS)),
      ),
    );
}
