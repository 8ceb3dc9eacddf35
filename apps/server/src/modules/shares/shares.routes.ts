import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../lib/context.ts";
import { sharesDataSection } from "./shares.data.ts";

export function registerShareRoutes(_app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(sharesDataSection);
}
