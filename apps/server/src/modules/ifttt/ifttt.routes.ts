import {
  IFTTT_DEFAULT_LIMIT,
  IFTTT_MAX_LIMIT,
  IftttActionRequestSchema,
  IftttFieldOptionsRequestSchema,
  IftttFieldValidateRequestSchema,
  IftttTriggerRequestSchema,
} from "@tonus/contract";
import { and, eq, inArray } from "drizzle-orm";
import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Db } from "../../db/client.ts";
import { iftttTriggerIdentities, oauthGrants, users } from "../../db/schema.ts";
import { AppError } from "../../lib/app-error.ts";
import { writeAudit } from "../../lib/audit.ts";
import type { AppContext } from "../../lib/context.ts";
import { safeEqual } from "../../lib/crypto.ts";
import { findClient, registerOAuthClient } from "../oauth/oauth.clients.ts";
import { type BearerGrant, findBearerGrant, mintTokenForFixture } from "../oauth/oauth.service.ts";
import { ACTIONS, profileTimeZone } from "./ifttt.actions.ts";
import { iftttDataSection } from "./ifttt.data.ts";
import { IftttError } from "./ifttt.errors.ts";
import { noteRealtimeNotice, sendRealtimeNotices } from "./ifttt.realtime.ts";
import {
  IFTTT_EVENT_TYPES,
  isTimeZone,
  pollTrigger,
  recordIftttEvents,
  seedFixtureEvents,
  TRIGGERS,
} from "./ifttt.triggers.ts";

export const IFTTT_PREFIX = "/ifttt/v1";
export const FIXTURE_EMAIL = "ifttt-fixture@tonus.invalid";
export const REALTIME_JOB = "ifttt.realtime";

function requireServiceKey(ctx: AppContext, request: FastifyRequest): void {
  const key = ctx.config.IFTTT_SERVICE_KEY;
  const sent = request.headers["ifttt-service-key"] ?? request.headers["ifttt-channel-key"];
  if (!key || typeof sent !== "string" || !safeEqual(sent, key))
    throw new IftttError(401, "Invalid service key");
}

async function requireBearer(db: Db, request: FastifyRequest): Promise<BearerGrant> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
  const grant = m?.[1] ? await findBearerGrant(db, m[1]) : null;
  if (!grant?.scope.split(" ").includes("ifttt"))
    throw new IftttError(401, "The access token is invalid or has been revoked");
  return grant;
}

/** The body against its contract schema; a refusal is IFTTT's 400 naming the field. */
function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  throw new IftttError(400, `${where}${issue?.message ?? "The request is not valid"}`);
}

/** A trigger, field or action by the name in the path: own entries only (never `constructor`). */
const own = <T>(table: Record<string, T> | undefined, name: string): T | undefined =>
  table && Object.hasOwn(table, name) ? table[name] : undefined;

/** The zone IFTTT sent for the person when this runtime knows it, else the profile's. */
async function timeZoneFor(db: Db, userId: string, sent: unknown): Promise<string> {
  return isTimeZone(sent) ? sent : profileTimeZone(db, userId);
}

/**
 * IFTTT's service API (https://ifttt.com/docs/api_reference): status and test setup behind the service
 * key, user info, triggers (polled, newest first) and actions behind the person's OAuth token. Every
 * route is CSRF-exempt (no cookies are read) and answers errors in IFTTT's `errors` shape, with the
 * app's `error`/`code` beside it so generic clients read them too. The token is checked before the
 * trigger, field or action is looked up, so a caller without one learns nothing (401, never 404).
 */
export async function registerIftttRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  ctx.services.registry.register(iftttDataSection);
  const { db } = ctx.database;
  // IFTTT's realtime API: "these people have new trigger events, poll now". Notices wait in
  // ifttt_realtime_pending and go out in batches; one queued run at a time, and a safety-net schedule.
  const realtime = ctx.services.jobs.defineJob<Record<string, never>>(
    REALTIME_JOB,
    async () => {
      const url = ctx.config.IFTTT_REALTIME_URL;
      const serviceKey = ctx.config.IFTTT_SERVICE_KEY;
      if (!url || !serviceKey) return;
      const { more } = await sendRealtimeNotices(db, { url, serviceKey });
      if (more) await realtime.send({}, { singletonKey: REALTIME_JOB });
    },
    { cron: "*/5 * * * *" },
  );
  ctx.services.events.subscribe({
    name: "ifttt.events",
    types: Object.values(IFTTT_EVENT_TYPES),
    handle: async (tx, events) => {
      const added = await recordIftttEvents(tx, events);
      if (added.size === 0 || !ctx.config.IFTTT_REALTIME_URL || !ctx.config.IFTTT_SERVICE_KEY) return;
      const connected = await tx
        .selectDistinct({ userId: oauthGrants.userId })
        .from(oauthGrants)
        .where(
          and(inArray(oauthGrants.userId, [...added]), eq(oauthGrants.clientId, ctx.config.IFTTT_CLIENT_ID)),
        );
      if (connected.length === 0) return;
      await noteRealtimeNotice(
        tx,
        connected.map((c) => c.userId),
      );
      await realtime.send({}, { tx, singletonKey: REALTIME_JOB });
    },
  });

  await app.register(
    async (scope) => {
      scope.setErrorHandler((err: FastifyError, request, reply) => {
        let status: number;
        let message: string;
        let skip = false;
        let code: string | undefined;
        if (err instanceof IftttError) {
          status = err.status;
          message = err.message;
          skip = err.skip;
        } else if (err instanceof AppError) {
          status = err.code === "not_authenticated" ? 401 : err.status;
          message = err.message;
          code = err.code;
        } else if ((err.statusCode ?? 500) < 500) {
          status = err.statusCode === 413 ? 413 : 400;
          message = "The request could not be read";
        } else {
          request.log.error({ err }, "IFTTT request failed");
          // A database outage is temporary: IFTTT retries a 503 (RELIABILITY O7).
          status = 503;
          message = "Temporarily unavailable, try again later";
        }
        reply.header("cache-control", "no-store");
        code ??=
          status === 401
            ? "not_authenticated"
            : status === 503
              ? "unavailable"
              : status === 404
                ? "not_found"
                : "validation_failed";
        return reply.status(status).send({
          errors: [skip ? { status: "SKIP", message } : { message }],
          error: message,
          code,
        });
      });
      const exempt = { config: { csrfExempt: true } };
      // No automatic HEAD twins: IFTTT only GETs these, and every exempt route is listed by hand.
      const exemptGet = { ...exempt, exposeHeadRoute: false };
      const notFound = () => new AppError("not_found", "Not found");
      // Any other path under /ifttt/v1 (an empty or unknown segment) is a 404 in IFTTT's shape too.
      scope.setNotFoundHandler(async () => {
        throw notFound();
      });

      scope.get("/status", exemptGet, async (request) => {
        requireServiceKey(ctx, request);
        return {};
      });

      scope.post("/test/setup", exempt, async (request) => {
        if (!ctx.config.IFTTT_TEST_MODE) throw notFound();
        requireServiceKey(ctx, request);
        return { data: await testSetup(ctx) };
      });

      scope.get("/user/info", exemptGet, async (request) => {
        const grant = await requireBearer(db, request);
        const [user] = await db
          .select({ id: users.id, name: users.name, username: users.username })
          .from(users)
          .where(eq(users.id, grant.userId));
        if (!user) throw new IftttError(401, "The access token is invalid or has been revoked");
        return { data: { name: user.name || user.username, id: user.id } };
      });

      scope.post("/triggers/:trigger", exempt, async (request) => {
        const grant = await requireBearer(db, request);
        const { trigger } = request.params as { trigger: string };
        const def = own(TRIGGERS, trigger);
        if (!def) throw notFound();
        const body = parseBody(IftttTriggerRequestSchema, request.body);
        const fieldNames = Object.keys(def.fields);
        const fields = body.triggerFields ?? {};
        if (fieldNames.length && !body.triggerFields) throw new IftttError(400, "triggerFields is missing");
        for (const name of fieldNames) {
          if (!(name in fields)) throw new IftttError(400, `triggerFields.${name} is missing`);
          const problem = def.fields[name]?.validate(fields[name]);
          if (problem) throw new IftttError(400, `triggerFields.${name}: ${problem}`);
        }
        const limit = Math.min(body.limit ?? IFTTT_DEFAULT_LIMIT, IFTTT_MAX_LIMIT);
        if (body.trigger_identity) {
          const picked = Object.fromEntries(fieldNames.map((n) => [n, fields[n]]));
          await db
            .insert(iftttTriggerIdentities)
            .values({ userId: grant.userId, triggerIdentity: body.trigger_identity, trigger, fields: picked })
            .onConflictDoUpdate({
              target: [iftttTriggerIdentities.userId, iftttTriggerIdentities.triggerIdentity],
              set: { fields: picked, trigger, lastPolledAt: new Date() },
            });
        }
        const timeZone = await timeZoneFor(db, grant.userId, body.user?.timezone);
        return {
          data: await pollTrigger(db, { userId: grant.userId, slug: trigger, def, fields, limit, timeZone }),
        };
      });

      scope.delete("/triggers/:trigger/trigger_identity/:identity", exempt, async (request) => {
        const grant = await requireBearer(db, request);
        const { trigger, identity } = request.params as { trigger: string; identity: string };
        if (!own(TRIGGERS, trigger)) throw notFound();
        // An identity no poll could have stored (the contract's limits) names nothing: already forgotten.
        if (identity.length > 200 || identity.includes("\0")) return {};
        await db
          .delete(iftttTriggerIdentities)
          .where(
            and(
              eq(iftttTriggerIdentities.userId, grant.userId),
              eq(iftttTriggerIdentities.triggerIdentity, identity),
            ),
          );
        return {};
      });

      scope.post("/triggers/:trigger/fields/:field/options", exempt, async (request) => {
        await requireBearer(db, request);
        const { trigger, field } = request.params as { trigger: string; field: string };
        const def = own(own(TRIGGERS, trigger)?.fields, field);
        if (!def?.options) throw notFound();
        parseBody(IftttFieldOptionsRequestSchema, request.body);
        return { data: def.options };
      });

      scope.post("/triggers/:trigger/fields/:field/validate", exempt, async (request) => {
        await requireBearer(db, request);
        const { trigger, field } = request.params as { trigger: string; field: string };
        const def = own(own(TRIGGERS, trigger)?.fields, field);
        if (!def) throw notFound();
        const problem = def.validate(parseBody(IftttFieldValidateRequestSchema, request.body).value);
        return { data: problem ? { valid: false, message: problem } : { valid: true } };
      });

      scope.post("/actions/:action", exempt, async (request) => {
        const grant = await requireBearer(db, request);
        const { action } = request.params as { action: string };
        const def = own(ACTIONS, action);
        if (!def) throw notFound();
        const body = parseBody(IftttActionRequestSchema, request.body);
        const timeZone = await timeZoneFor(db, grant.userId, body.user?.timezone);
        const id = await def.run(ctx, { userId: grant.userId, fields: body.actionFields, timeZone });
        await writeAudit(db, {
          action: "ifttt.action",
          userId: grant.userId,
          objectId: id,
          request,
          meta: { action, client: grant.clientId },
        });
        return { data: [{ id }] };
      });
    },
    { prefix: IFTTT_PREFIX },
  );
}

/** IFTTT's test setup: the fixture user's token and a sample for every trigger, field and action. */
async function testSetup(ctx: AppContext) {
  const { db } = ctx.database;
  let client = await findClient(db, ctx.config.IFTTT_CLIENT_ID);
  if (!client) {
    // Test mode only: the client is created so the endpoint tests can run before an operator registers it.
    await registerOAuthClient(db, {
      id: ctx.config.IFTTT_CLIENT_ID,
      name: "IFTTT",
      redirectUris: ["https://ifttt.com/channels/tonus/authorize"],
      isPublic: false,
      tokenPolicy: "non_expiring",
    });
    client = await findClient(db, ctx.config.IFTTT_CLIENT_ID);
  }
  if (!client) throw new Error("IFTTT client not registered");
  await db
    .insert(users)
    .values({ email: FIXTURE_EMAIL, username: FIXTURE_EMAIL, name: "IFTTT test user" })
    .onConflictDoNothing();
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, FIXTURE_EMAIL));
  if (!user) throw new Error("fixture user missing");
  await seedFixtureEvents(db, user.id);
  const accessToken = await mintTokenForFixture(db, client, user.id);
  const triggers: Record<string, Record<string, string>> = {};
  const triggerFieldValidations: Record<string, Record<string, { valid: string; invalid: string }>> = {};
  for (const [slug, def] of Object.entries(TRIGGERS)) {
    triggers[slug] = Object.fromEntries(Object.entries(def.fields).map(([n, f]) => [n, f.sample]));
    if (Object.keys(def.fields).length)
      triggerFieldValidations[slug] = Object.fromEntries(
        Object.entries(def.fields).map(([n, f]) => [n, { valid: f.sample, invalid: f.invalidSample }]),
      );
  }
  const actions = Object.fromEntries(Object.entries(ACTIONS).map(([slug, a]) => [slug, a.sample]));
  const actionRecordSkipping = Object.fromEntries(
    Object.entries(ACTIONS).map(([slug, a]) => [slug, a.skipSample]),
  );
  return { accessToken, samples: { triggers, triggerFieldValidations, actions, actionRecordSkipping } };
}
