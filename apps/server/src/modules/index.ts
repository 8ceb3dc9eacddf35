import type { FastifyInstance } from "fastify";
import type { AppContext } from "../lib/context.ts";
import { registerAcademyRoutes } from "./academy/academy.routes.ts";
import { registerAccountRoutes } from "./account/account.routes.ts";
import { registerAnalyticsRoutes } from "./analytics/analytics.routes.ts";
import { registerAuthRoutes } from "./auth/auth.routes.ts";
import { registerBillingRoutes } from "./billing/billing.routes.ts";
import { registerBpRoutes } from "./bp/bp.routes.ts";
import { registerConfigRoutes } from "./config/config.routes.ts";
import { registerConnectorRoutes } from "./connectors/connectors.routes.ts";
import { registerDashboardRoutes } from "./dashboard/dashboard.routes.ts";
import { registerDashboardValues } from "./dashboard-values/dashboard-values.module.ts";
import { registerHealthRoutes } from "./health/health.routes.ts";
import { registerIftttRoutes } from "./ifttt/ifttt.routes.ts";
import { registerImportRoutes } from "./imports/imports.routes.ts";
import { registerIngestRoutes } from "./ingest/ingest.routes.ts";
import { registerMeasurementRoutes } from "./measurements/measurements.routes.ts";
import { registerNotificationRoutes } from "./notifications/notifications.routes.ts";
import { registerOAuthRoutes } from "./oauth/oauth.routes.ts";
import { registerProfileRoutes } from "./profile/profile.routes.ts";
import { registerReferralRoutes } from "./referral/referral.routes.ts";
import { registerShareRoutes } from "./shares/shares.routes.ts";
import { registerSocialRoutes } from "./social/social.routes.ts";
import { registerSourceRoutes } from "./sources/sources.routes.ts";

export type ModuleRegistrar = (app: FastifyInstance, ctx: AppContext) => void | Promise<void>;

/** Every server module, in registration order. A new module adds one line here. */
const MODULES: ModuleRegistrar[] = [
  registerHealthRoutes,
  registerConfigRoutes,
  registerAuthRoutes,
  registerProfileRoutes,
  registerSocialRoutes,
  registerAcademyRoutes,
  registerShareRoutes,
  registerBillingRoutes,
  registerDashboardValues,
  registerBpRoutes,
  registerMeasurementRoutes,
  registerDashboardRoutes,
  registerOAuthRoutes,
  registerIftttRoutes,
  registerAnalyticsRoutes,
  registerNotificationRoutes,
  registerReferralRoutes,
  registerSourceRoutes,
  registerImportRoutes,
  registerConnectorRoutes,
  registerIngestRoutes,
  // Last: account deletion ends the caller's account, so route walkers reach it after everything else.
  registerAccountRoutes,
];

export async function registerModules(
  app: FastifyInstance,
  ctx: AppContext,
  extra: readonly ModuleRegistrar[] = [],
): Promise<void> {
  for (const register of [...MODULES, ...extra]) await register(app, ctx);
}
