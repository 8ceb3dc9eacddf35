import { BILLING_API, OkSchema } from "@tonus/contract";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { AppError } from "../../lib/app-error.ts";
import { writeAudit } from "../../lib/audit.ts";
import { requireUserId, resetSessionCookies } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { pseudonymUuid } from "../../lib/crypto.ts";
import { deleteUserData, registryEnv } from "../../lib/registry.ts";
import { hasActivePaidSubscription } from "../billing/billing.service.ts";
import { registerArchiveRoutes } from "./archive.routes.ts";

/**
 * Account deletion (spec §4, §7 `POST user/delete/`): refused while a paid subscription renews;
 * otherwise every row of the account goes in one transaction through the data registry (payments stay,
 * pseudonymised; the account is listed in the deletion ledger), files right after and by a job until gone,
 * and the browser's session is replaced by an anonymous one.
 */
export async function registerAccountRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  registerArchiveRoutes(app, ctx);
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    BILLING_API.userDelete,
    { config: { access: "user" }, schema: { response: { 200: OkSchema } } },
    async (request, reply) => {
      const userId = requireUserId(request);
      if (ctx.config.BILLING_MODE !== "off" && (await hasActivePaidSubscription(ctx.database.db, userId)))
        throw new AppError(
          "subscription_active",
          "Unable to delete account (cancel your subscription first)",
        );
      await deleteUserData(registryEnv(ctx), userId);
      // The account is gone: from here on nothing may turn the answer into an error.
      resetSessionCookies(reply, ctx.config);
      try {
        await writeAudit(ctx.database.db, {
          action: "account.deleted",
          userId: pseudonymUuid(ctx.config.secretKey, userId),
          request,
        });
      } catch (error) {
        request.log.error({ err: error }, "the account deletion could not be written to the audit log");
      }
      return { ok: true as const };
    },
  );
}
