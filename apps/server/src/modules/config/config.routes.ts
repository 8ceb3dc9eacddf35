import { API, ConfigEnvSchema } from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppContext } from "../../lib/context.ts";
import { getPublicConfig } from "./config.service.ts";

export function registerConfigRoutes(app: FastifyInstance, ctx: AppContext): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(API.configEnv, { schema: { response: { 200: ConfigEnvSchema } } }, async () =>
      getPublicConfig(ctx.config),
    );
}
