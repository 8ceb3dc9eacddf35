import {
  API,
  ApiTokenCreatedSchema,
  ApiTokenCreateRequestSchema,
  ApiTokenListSchema,
  OkSchema,
} from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../lib/app-error.ts";
import { writeAudit } from "../../lib/audit.ts";
import { API_TOKEN_PREFIX, requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { randomToken, sha256 } from "../../lib/crypto.ts";
import { insertApiToken, listApiTokens, revokeApiToken } from "./auth.repo.ts";

const TokenParamsSchema = z.object({ id: z.uuid() });

function toWire(row: { id: string; name: string; createdAt: Date; lastUsedAt: Date | null }) {
  return {
    id: row.id,
    name: row.name,
    created: row.createdAt.toISOString(),
    last_used: row.lastUsedAt?.toISOString() ?? null,
  };
}

/** API tokens for the companion app: the key is shown once; only its SHA-256 is stored. */
export function registerApiTokenRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = ctx.database;

  r.post(
    API.apiTokens,
    {
      config: { access: "user" },
      schema: { body: ApiTokenCreateRequestSchema, response: { 200: ApiTokenCreatedSchema } },
    },
    async (request, reply) => {
      const userId = requireUserId(request);
      const key = `${API_TOKEN_PREFIX}${randomToken(32)}`;
      const row = await insertApiToken(db, userId, request.body.name, sha256(key));
      await writeAudit(db, { action: "token.created", userId, objectId: row.id, request });
      reply.header("cache-control", "no-store");
      return { ...toWire(row), key };
    },
  );

  r.get(
    API.apiTokens,
    { config: { access: "user" }, schema: { response: { 200: ApiTokenListSchema } } },
    async (request) => ({ results: (await listApiTokens(db, requireUserId(request))).map(toWire) }),
  );

  r.delete(
    API.apiToken,
    { config: { access: "user" }, schema: { params: TokenParamsSchema, response: { 200: OkSchema } } },
    async (request) => {
      const userId = requireUserId(request);
      if (!(await revokeApiToken(db, userId, request.params.id)))
        throw new AppError("not_found", "Not found");
      await writeAudit(db, { action: "token.revoked", userId, objectId: request.params.id, request });
      return { ok: true as const };
    },
  );
}
