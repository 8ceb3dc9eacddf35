import { randomUUID } from "node:crypto";
import { BpReadingCreateSchema } from "@tonus/contract";
import { and, eq } from "drizzle-orm";
import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import type { Db } from "../../db/client.ts";
import { iftttTriggerIdentities, oauthGrants, users } from "../../db/schema.ts";
import { AppError } from "../../lib/app-error.ts";
import { writeAudit } from "../../lib/audit.ts";
import type { AppContext } from "../../lib/context.ts";
import { safeEqual } from "../../lib/crypto.ts";
import { createReading } from "../bp/bp.service.ts";
import { recordValues } from "../dashboard-values/dashboard-values.service.ts";
import { findClient, registerOAuthClient } from "../oauth/oauth.clients.ts";
import { type BearerGrant, findBearerGrant, mintTokenForFixture } from "../oauth/oauth.service.ts";
import { iftttDataSection } from "./ifttt.data.ts";
import {
  IFTTT_EVENT_TYPES,
  pollTrigger,
  recordIftttEvent,
  seedFixtureEvents,
  TRIGGERS,
} from "./ifttt.triggers.ts";

export const IFTTT_PREFIX = "/ifttt/v1";
export const FIXTURE_EMAIL = "ifttt-fixture@tonus.invalid";
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 50;

/** An IFTTT protocol error: `{errors: [{message}]}` (plus `status: "SKIP"` for a permanent action failure). */
export class IftttError extends Error {
  readonly status: number;
  readonly skip: boolean;
  constructor(status: number, message: string, skip = false) {
    super(message);
    this.status = status;
    this.skip = skip;
  }
}

type Body = Record<string, unknown>;
const asObject = (v: unknown): Body => (v && typeof v === "object" && !Array.isArray(v) ? (v as Body) : {});

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

function parseLimit(body: Body): number {
  if (!("limit" in body) || body.limit === null) return DEFAULT_LIMIT;
  const n = typeof body.limit === "number" ? body.limit : Number(body.limit);
  if (!Number.isInteger(n) || n < 0) throw new IftttError(400, "limit must be a non-negative integer");
  return Math.min(n, MAX_LIMIT);
}

/** Actions: each writes through the owning domain's write path and answers the new record's id. */
type ActionDef = {
  sample: Record<string, string>;
  skipSample: Record<string, string>;
  run: (ctx: AppContext, userId: string, fields: Body) => Promise<string>;
};

/** A number IFTTT sends as a string (or a number), or NaN. */
const numberField = (v: unknown) =>
  typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;

/** The person's time zone for an action's record (IFTTT sends none with actions). */
async function userTimeZone(db: Db, userId: string): Promise<string> {
  const [row] = await db.select({ tz: users.timezone }).from(users).where(eq(users.id, userId));
  return row?.tz ?? "UTC";
}

const ACTIONS: Record<string, ActionDef> = {
  // Through modules/bp: validated there like any reading (ESC/ESH category, bp.reading_added event).
  log_blood_pressure: {
    sample: { systolic: "128", diastolic: "82", pulse: "70" },
    skipSample: { systolic: "80", diastolic: "120", pulse: "" },
    run: async (ctx, userId, fields) => {
      const systolic = numberField(fields.systolic);
      const diastolic = numberField(fields.diastolic);
      const pulseRaw = fields.pulse;
      const pulse =
        pulseRaw === undefined || pulseRaw === null || pulseRaw === "" ? undefined : numberField(pulseRaw);
      const parsed = BpReadingCreateSchema.safeParse({
        systolic,
        diastolic,
        ...(pulse !== undefined ? { pulse } : {}),
        measured_at: new Date().toISOString(),
        time_zone: await userTimeZone(ctx.database.db, userId),
      });
      if (!parsed.success)
        throw new IftttError(400, parsed.error.issues[0]?.message ?? "The reading is not valid", true);
      const { reading } = await createReading(ctx, userId, parsed.data);
      return reading.id;
    },
  },
  // The profile's weight (kg, as users.weight_kg stores it) and a dated dashboard value.
  log_weight: {
    sample: { weight_kg: "70.5" },
    skipSample: { weight_kg: "-3" },
    run: async (ctx, userId, fields) => {
      const kg = numberField(fields.weight_kg);
      if (!Number.isFinite(kg) || kg < 20 || kg > 400)
        throw new IftttError(400, "Weight must be a number of kilograms from 20 to 400", true);
      const id = randomUUID();
      const weightKg = Math.round(kg * 100) / 100;
      await ctx.database.db.transaction(async (tx) => {
        await tx.update(users).set({ weightKg }).where(eq(users.id, userId));
        await recordValues(tx as unknown as Db, userId, [
          { metric: "weight", at: new Date(), value: weightKg, source: "ifttt", clientId: id },
        ]);
      });
      return id;
    },
  },
  // Water through the dashboard's write path, stored in litres.
  log_water: {
    sample: { amount_ml: "250" },
    skipSample: { amount_ml: "0" },
    run: async (ctx, userId, fields) => {
      const ml = numberField(fields.amount_ml);
      if (!Number.isFinite(ml) || ml <= 0 || ml > 10_000)
        throw new IftttError(400, "Amount must be from 1 to 10000 millilitres", true);
      const id = randomUUID();
      await ctx.database.db.transaction((tx) =>
        recordValues(tx as unknown as Db, userId, [
          { metric: "water", at: new Date(), value: ml / 1000, source: "ifttt", clientId: id },
        ]),
      );
      return id;
    },
  },
};

/**
 * IFTTT's service API (https://ifttt.com/docs/api_reference): status and test setup behind the service
 * key, user info, triggers (polled, newest first) and actions behind the person's OAuth token. Every
 * route is CSRF-exempt (no cookies are read) and answers errors in IFTTT's `errors` shape, with the
 * app's `error`/`code` beside it so generic clients read them too.
 */
export async function registerIftttRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  ctx.services.registry.register(iftttDataSection);
  const { db } = ctx.database;
  // IFTTT's realtime API: "this person has new trigger events, poll now" (ifttt.com/docs/api_reference).
  // One queued job per person at a time, so a burst of readings is one notification.
  const realtime = ctx.services.jobs.defineJob<{ userId: string }>("ifttt.realtime", async ({ userId }) => {
    const url = ctx.config.IFTTT_REALTIME_URL;
    const key = ctx.config.IFTTT_SERVICE_KEY;
    if (!url || !key) return;
    const res = await fetch(url, {
      method: "POST",
      headers: { "IFTTT-Service-Key": key, "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ data: [{ user_id: userId }] }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`IFTTT realtime answered ${res.status}`);
  });
  ctx.services.events.subscribe({
    name: "ifttt.events",
    types: Object.values(IFTTT_EVENT_TYPES),
    handle: async (tx, event) => {
      const added = await recordIftttEvent(tx, event);
      if (!added || !event.userId || !ctx.config.IFTTT_REALTIME_URL || !ctx.config.IFTTT_SERVICE_KEY) return;
      const [connected] = await tx
        .select({ id: oauthGrants.id })
        .from(oauthGrants)
        .where(
          and(eq(oauthGrants.userId, event.userId), eq(oauthGrants.clientId, ctx.config.IFTTT_CLIENT_ID)),
        )
        .limit(1);
      if (connected)
        await realtime.send({ userId: event.userId }, { tx, singletonKey: `ifttt-realtime:${event.userId}` });
    },
  });

  await app.register(async (scope) => {
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
      code ??= status === 401 ? "not_authenticated" : status === 503 ? "unavailable" : "validation_failed";
      return reply.status(status).send({
        errors: [skip ? { status: "SKIP", message } : { message }],
        error: message,
        code,
      });
    });
    const exempt = { config: { csrfExempt: true } };
    // No automatic HEAD twins: IFTTT only GETs these, and every exempt route is listed by hand.
    const exemptGet = { ...exempt, exposeHeadRoute: false };

    scope.get(`${IFTTT_PREFIX}/status`, exemptGet, async (request) => {
      requireServiceKey(ctx, request);
      return {};
    });

    scope.post(`${IFTTT_PREFIX}/test/setup`, exempt, async (request) => {
      if (!ctx.config.IFTTT_TEST_MODE) throw new AppError("not_found", "Not found");
      requireServiceKey(ctx, request);
      return { data: await testSetup(ctx) };
    });

    scope.get(`${IFTTT_PREFIX}/user/info`, exemptGet, async (request) => {
      const grant = await requireBearer(db, request);
      const [user] = await db
        .select({ id: users.id, name: users.name, username: users.username })
        .from(users)
        .where(eq(users.id, grant.userId));
      if (!user) throw new IftttError(401, "The access token is invalid or has been revoked");
      return { data: { name: user.name || user.username, id: user.id } };
    });

    scope.post(`${IFTTT_PREFIX}/triggers/:trigger`, exempt, async (request) => {
      const { trigger } = request.params as { trigger: string };
      const def = TRIGGERS[trigger];
      if (!def) throw new AppError("not_found", "Not found");
      const grant = await requireBearer(db, request);
      const body = asObject(request.body);
      const fieldNames = Object.keys(def.fields);
      const fields = asObject(body.triggerFields);
      if (fieldNames.length && (!body.triggerFields || typeof body.triggerFields !== "object"))
        throw new IftttError(400, "triggerFields is missing");
      for (const name of fieldNames) {
        if (!(name in fields)) throw new IftttError(400, `triggerFields.${name} is missing`);
        const problem = def.fields[name]?.validate(fields[name]);
        if (problem) throw new IftttError(400, `triggerFields.${name}: ${problem}`);
      }
      const limit = parseLimit(body);
      const identity = typeof body.trigger_identity === "string" ? body.trigger_identity.slice(0, 200) : null;
      if (identity) {
        const picked = Object.fromEntries(fieldNames.map((n) => [n, fields[n]]));
        await db
          .insert(iftttTriggerIdentities)
          .values({ userId: grant.userId, triggerIdentity: identity, trigger, fields: picked })
          .onConflictDoUpdate({
            target: [iftttTriggerIdentities.userId, iftttTriggerIdentities.triggerIdentity],
            set: { fields: picked, trigger, lastPolledAt: new Date() },
          });
      }
      return { data: await pollTrigger(db, grant.userId, trigger, def, fields, limit) };
    });

    scope.delete(`${IFTTT_PREFIX}/triggers/:trigger/trigger_identity/:identity`, exempt, async (request) => {
      const { trigger, identity } = request.params as { trigger: string; identity: string };
      if (!TRIGGERS[trigger]) throw new AppError("not_found", "Not found");
      const grant = await requireBearer(db, request);
      await db
        .delete(iftttTriggerIdentities)
        .where(
          and(
            eq(iftttTriggerIdentities.userId, grant.userId),
            eq(iftttTriggerIdentities.triggerIdentity, identity.slice(0, 200)),
          ),
        );
      return {};
    });

    scope.post(`${IFTTT_PREFIX}/triggers/:trigger/fields/:field/options`, exempt, async (request) => {
      const { trigger, field } = request.params as { trigger: string; field: string };
      const def = TRIGGERS[trigger]?.fields[field];
      if (!def?.options) throw new AppError("not_found", "Not found");
      await requireBearer(db, request);
      return { data: def.options };
    });

    scope.post(`${IFTTT_PREFIX}/triggers/:trigger/fields/:field/validate`, exempt, async (request) => {
      const { trigger, field } = request.params as { trigger: string; field: string };
      const def = TRIGGERS[trigger]?.fields[field];
      if (!def) throw new AppError("not_found", "Not found");
      await requireBearer(db, request);
      const problem = def.validate(asObject(request.body).value);
      return { data: problem ? { valid: false, message: problem } : { valid: true } };
    });

    scope.post(`${IFTTT_PREFIX}/actions/:action`, exempt, async (request) => {
      const { action } = request.params as { action: string };
      const def = ACTIONS[action];
      if (!def) throw new AppError("not_found", "Not found");
      const grant = await requireBearer(db, request);
      const body = asObject(request.body);
      if (!body.actionFields || typeof body.actionFields !== "object")
        throw new IftttError(400, "actionFields is missing");
      const id = await def.run(ctx, grant.userId, asObject(body.actionFields));
      await writeAudit(db, {
        action: "ifttt.action",
        userId: grant.userId,
        objectId: id,
        request,
        meta: { action, client: grant.clientId },
      });
      return { data: [{ id }] };
    });
  });
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
