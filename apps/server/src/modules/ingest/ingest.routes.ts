import { API, IngestBatchSchema, IngestResponseSchema } from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import {
  readIdempotencyKey,
  requestFingerprint,
  runIdempotent,
  sendIdempotent,
} from "../../lib/idempotency.ts";
import { ingestBatch } from "./ingest.service.ts";

/** Room for 20 RR measurements of 5,000 intervals beside the samples. */
const INGEST_BODY_LIMIT = 2 * 1024 * 1024;

/**
 * The ingest API (docs/ingest.md): an API token only (cookies are ignored, so no CSRF), a required
 * Idempotency-Key per batch, one transaction per batch, the answer after the commit.
 */
export function registerIngestRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    API.ingest,
    {
      config: { access: "user", csrfExempt: true },
      bodyLimit: INGEST_BODY_LIMIT,
      schema: { body: IngestBatchSchema, response: { 200: IngestResponseSchema } },
    },
    async (request, reply) => {
      const userId = requireUserId(request);
      const key = readIdempotencyKey(request, { required: true }) ?? "";
      const outcome = await runIdempotent(
        { db: ctx.database.db, userId, key, fingerprint: requestFingerprint(request) },
        async (tx) => ({ status: 200, body: await ingestBatch(ctx, tx, userId, request.body.records) }),
      );
      return sendIdempotent(reply, outcome);
    },
  );
}
