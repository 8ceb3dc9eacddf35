import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../lib/context.ts";
import { dashboardValuesDataSection } from "./dashboard-values.data.ts";

/** The dashboard's value store: no routes yet (issue 5 adds the chart API); registers its data section. */
export function registerDashboardValues(_app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(dashboardValuesDataSection);
}
