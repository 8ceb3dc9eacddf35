import { ARCHIVE_API, ArchiveStatusSchema } from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import {
  ARCHIVE_RETRIES,
  archiveStatus,
  expireArchives,
  openArchive,
  packArchive,
  requestArchive,
} from "./archive.service.ts";

const ParamsSchema = z.object({ id: z.uuid() });

/** Data-export archive (spec §4, §9): request → packing (a job) → ready to download for 24 hours. */
export function registerArchiveRoutes(app: FastifyInstance, ctx: AppContext): void {
  const job = ctx.services.jobs.defineJob<{ archiveId: string }>(
    "account.archive",
    async (data, run) => {
      if (typeof data.archiveId === "string") await packArchive(ctx, data.archiveId, run.retryCount);
    },
    { retryLimit: ARCHIVE_RETRIES, retryDelay: 30, retryBackoff: true, expireInSeconds: 3600 },
  );
  ctx.services.jobs.defineJob("account.archive-expiry", async () => expireArchives(ctx), {
    cron: "41 * * * *",
  });

  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    ARCHIVE_API.archive,
    { config: { access: "user" }, schema: { response: { 200: ArchiveStatusSchema } } },
    async (request) => archiveStatus(ctx, requireUserId(request)),
  );
  r.post(
    ARCHIVE_API.archive,
    { config: { access: "user" }, schema: { response: { 200: ArchiveStatusSchema } } },
    async (request) => requestArchive(ctx, job, requireUserId(request)),
  );
  r.get(
    ARCHIVE_API.download,
    { config: { access: "user" }, schema: { params: ParamsSchema } },
    async (request, reply) => {
      const { data, row } = await openArchive(ctx, requireUserId(request), request.params.id);
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
