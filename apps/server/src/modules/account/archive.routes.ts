import fs from "node:fs/promises";
import { ARCHIVE_API, ArchiveImportResponseSchema, ArchiveStatusSchema } from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { writeAudit } from "../../lib/audit.ts";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { importArchiveFile, removeStaleUploads } from "./archive.import.ts";
import {
  ARCHIVE_JOB_RETRIES,
  archiveStatus,
  expireArchives,
  openArchive,
  packArchive,
  requestArchive,
} from "./archive.service.ts";
import { receiveArchiveUpload } from "./archive.upload.ts";

const ParamsSchema = z.object({ id: z.uuid() });

/**
 * Data-export archive (spec §4, §9): request → packing (a job) → ready to download for 24 hours; and its
 * import into an empty account.
 */
export function registerArchiveRoutes(app: FastifyInstance, ctx: AppContext): void {
  // Failures are counted on the archive row (ARCHIVE_RETRIES); pg-boss's own retries also cover runs a
  // killed process left behind, so they are many and quick. A dead worker is noticed at the next start
  // (embedded database) or by its missing heartbeat (PostgreSQL), not after the hour's expiry.
  const job = ctx.services.jobs.defineJob<{ archiveId: string }>(
    "account.archive",
    async (data) => {
      if (typeof data.archiveId === "string") await packArchive(ctx, data.archiveId);
    },
    {
      retryLimit: ARCHIVE_JOB_RETRIES,
      retryDelay: 5,
      retryBackoff: true,
      retryDelayMax: 120,
      expireInSeconds: 3600,
      heartbeatSeconds: 15,
    },
  );
  ctx.services.jobs.defineJob(
    "account.archive-expiry",
    async () => {
      await expireArchives(ctx);
      await removeStaleUploads(ctx.config.filesDir);
    },
    { cron: "41 * * * *" },
  );

  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    ARCHIVE_API.archive,
    { config: { access: "user" }, schema: { response: { 200: ArchiveStatusSchema } } },
    async (request) => archiveStatus(ctx, requireUserId(request)),
  );
  r.post(
    ARCHIVE_API.archive,
    { config: { access: "user" }, schema: { response: { 200: ArchiveStatusSchema } } },
    async (request) => {
      const userId = requireUserId(request);
      const status = await requestArchive(ctx, job, userId);
      // The archive's id only: what it holds is the person's data, never the log's (X8).
      await writeAudit(ctx.database.db, {
        action: "account.archive_requested",
        userId,
        objectId: status.id,
        request,
      });
      return status;
    },
  );
  r.post(
    ARCHIVE_API.import,
    { config: { access: "user" }, schema: { response: { 200: ArchiveImportResponseSchema } } },
    async (request) => {
      const userId = requireUserId(request);
      const file = await receiveArchiveUpload(request, ctx.config.filesDir);
      try {
        const result = await importArchiveFile(ctx, userId, file);
        await writeAudit(ctx.database.db, { action: "account.imported", userId, request });
        return result;
      } finally {
        await fs.rm(file, { force: true });
      }
    },
  );
  r.get(
    ARCHIVE_API.download,
    { config: { access: "user" }, schema: { params: ParamsSchema } },
    async (request, reply) => {
      const userId = requireUserId(request);
      const { data, row } = await openArchive(ctx, userId, request.params.id);
      await writeAudit(ctx.database.db, {
        action: "account.archive_downloaded",
        userId,
        objectId: row.id,
        request,
      });
      const day = row.readyAt?.toISOString().slice(0, 10) ?? "archive";
      const name = `tonus-data-${day}.zip`;
      return reply
        .type("application/zip")
        .header("cache-control", "no-store")
        .header(
          "content-disposition",
          `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`,
        )
        .send(data);
    },
  );
}
