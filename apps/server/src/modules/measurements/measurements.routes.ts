import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../lib/context.ts";
import { measurementsDataSection } from "./measurements.data.ts";

/** HRV measurements: upload, list, detail, edit, delete, share viewer. */
export function registerMeasurementRoutes(_app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(measurementsDataSection);
}
