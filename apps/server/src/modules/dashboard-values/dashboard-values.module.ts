import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../lib/context.ts";
import { dashboardValuesDataSection } from "./dashboard-values.data.ts";

/** The dashboard's value store and its write path (no routes: the chart API is modules/dashboard). */
export function registerDashboardValues(_app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(dashboardValuesDataSection);
}
