import { API } from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppContext } from "../../lib/context.ts";

const HealthSchema = z.object({ status: z.literal("ok"), database: z.enum(["pglite", "postgres"]) });

export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(API.health, { schema: { response: { 200: HealthSchema } } }, async () => {
      await ctx.database.query("select 1");
      return { status: "ok" as const, database: ctx.database.kind };
    });
}
