import {
  API,
  OkSchema,
  ShareLinkCreatedSchema,
  ShareLinkCreateRequestSchema,
  ShareLinkListSchema,
} from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { UUID_RE } from "../../lib/uuid.ts";
import { sharesDataSection } from "./shares.data.ts";
import { createShareLink, listShareLinks, revokeShareLink } from "./shares.service.ts";

// A malformed id can never name a link: answer 404 like any unknown id, not 400.
const LinkParamsSchema = z.object({ id: z.string().max(100) });

/** The owner's share links. The share-viewer pages themselves belong to the modules that own each kind. */
export function registerShareRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(sharesDataSection);
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    API.shareLinks,
    { config: { access: "user" }, schema: { response: { 200: ShareLinkListSchema } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return { results: await listShareLinks(ctx, requireUserId(request)) };
    },
  );

  r.post(
    API.shareLinks,
    {
      config: { access: "user" },
      schema: { body: ShareLinkCreateRequestSchema, response: { 200: ShareLinkCreatedSchema } },
    },
    async (request, reply) => {
      const { kind, target_id: targetId } = request.body;
      const created = await createShareLink(ctx, requireUserId(request), { kind, targetId }, request);
      reply.header("cache-control", "no-store");
      return created;
    },
  );

  r.delete(
    API.shareLink,
    { config: { access: "user" }, schema: { params: LinkParamsSchema, response: { 200: OkSchema } } },
    async (request) => {
      const userId = requireUserId(request);
      const id = UUID_RE.test(request.params.id) ? request.params.id : "00000000-0000-0000-0000-000000000000";
      await revokeShareLink(ctx, userId, id, request);
      return { ok: true as const };
    },
  );
}
