import { SOURCES_API, SourceDetailSchema, SourceListSchema, SourceSlugParamsSchema } from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../lib/app-error.ts";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { findSourceEntry } from "./sources.catalogue.ts";
import { monogramSvg } from "./sources.logo.ts";
import { getSource, listSources } from "./sources.service.ts";

const LogoParamsSchema = z.object({ file: z.string().max(100) });

/** The data-source catalogue (spec §2 /data-sources, §4 Data sources: load). */
export function registerSourceRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    SOURCES_API.list,
    { config: { access: "user" }, schema: { response: { 200: SourceListSchema } } },
    async (request) => listSources(ctx, requireUserId(request)),
  );
  r.get(
    SOURCES_API.detail,
    {
      config: { access: "user" },
      schema: { params: SourceSlugParamsSchema, response: { 200: SourceDetailSchema } },
    },
    async (request) => getSource(ctx, requireUserId(request), request.params.slug),
  );
  // The monograms are public: they show nothing about anyone.
  r.get(
    SOURCES_API.logo,
    { config: { access: "public" }, schema: { params: LogoParamsSchema } },
    async (request, reply) => {
      const m = /^([a-z0-9-]+)\.svg$/.exec(request.params.file);
      const entry = m?.[1] ? findSourceEntry(m[1]) : undefined;
      if (!entry) throw new AppError("not_found", "Not found");
      return reply
        .type("image/svg+xml")
        .header("cache-control", "public, max-age=86400")
        .header("x-content-type-options", "nosniff")
        .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'")
        .send(monogramSvg(entry));
    },
  );
}
