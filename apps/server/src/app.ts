import fs from "node:fs";
import path from "node:path";
import cookie from "@fastify/cookie";
import multipart from "@fastify/multipart";
import fastifyStatic from "@fastify/static";
import { isSharePagePath } from "@tonus/contract";
import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { type Database, openDatabase } from "./db/client.ts";
import { AppError } from "./lib/app-error.ts";
import { registerAuth } from "./lib/auth.ts";
import type { Config } from "./lib/config.ts";
import type { AppContext } from "./lib/context.ts";
import {
  auditDataSection,
  eventsDataSection,
  mailDataSection,
  rateLimitDataSection,
} from "./lib/core-data.ts";
import { registerErrorHandler } from "./lib/error-handler.ts";
import { createEventBus } from "./lib/events.ts";
import { defineFileRemovalJob, FILE_REMOVAL_JOB } from "./lib/file-removals.ts";
import { registerIdempotency } from "./lib/idempotency.ts";
import { createJobRunner } from "./lib/jobs.ts";
import { genRequestId, loggerOptions } from "./lib/logger.ts";
import { createMailer, type Mailer } from "./lib/mailer.ts";
import { reapplyDeletionLedger, registryEnv, UserDataRegistry } from "./lib/registry.ts";
import { registerSecurityHeaders } from "./lib/security-headers.ts";
import { type ModuleRegistrar, registerModules } from "./modules/index.ts";

export type BuildOptions = {
  /** A database opened by the caller (tests share one per worker); otherwise opened from config. */
  database?: Database;
  mailer?: Mailer;
  /** Modules registered after the built-in ones (tests add stand-in routes, e.g. a share viewer). */
  modules?: readonly ModuleRegistrar[];
  /** Work background jobs in this process (default true); false only sends them (tests, tools). */
  workJobs?: boolean;
};

/** One registered route, as collected by the onRoute hook (tests walk this table). */
export type RouteInfo = {
  method: string;
  url: string;
  config: Record<string, unknown>;
  /** The route's body and query-string schemas (the contract's zod schemas), when it declares them. */
  bodySchema?: unknown;
  querySchema?: unknown;
};

export type App = FastifyInstance & { ctx: AppContext; routeTable: RouteInfo[] };

const API_PREFIXES = ["/dashboard_api/", "/api/", "/oauth2/", "/ifttt/"];
/** The consent page lives under /oauth2/ but is the web app's (spec §2 "/oauth2/authorize/ifttt"). */
const WEB_PAGES_UNDER_API = ["/oauth2/authorize/ifttt"];
const isApiPath = (url: string) =>
  API_PREFIXES.some((p) => url.startsWith(p)) &&
  !WEB_PAGES_UNDER_API.some((p) => url === p || url.startsWith(`${p}?`) || url.startsWith(`${p}/`));

/**
 * Fastify's `trustProxy` from TRUST_PROXY. Trusting every X-Forwarded-For would let any client pick the
 * address the per-IP limits count (sign-in, recovery, share look-ups, invitations).
 */
export function trustProxyOf(value: string): boolean | string | ((address: string, hop: number) => boolean) {
  if (value === "true") return true;
  if (value === "false" || value === "") return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value;
}

/** Builds the whole server: plugins, hooks, modules and the web app. Used by main.ts and by tests. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    logger: loggerOptions(config.LOG_LEVEL),
    genReqId: genRequestId,
    requestIdHeader: false,
    trustProxy: trustProxyOf(config.TRUST_PROXY),
    return503OnClosing: true,
    bodyLimit: 1024 * 1024,
    forceCloseConnections: "idle",
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const database =
    options.database ??
    (await openDatabase({ url: config.DATABASE_URL, pgliteDir: path.join(config.DATA_DIR, "pgdata") }));
  const ownsDatabase = !options.database;
  const mailer =
    options.mailer ??
    createMailer({ db: database.db, smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, log: app.log });
  const registry = new UserDataRegistry();
  // With its own embedded database, this process holds the data-directory lock: nobody else works jobs.
  const jobs = createJobRunner(database, app.log, {
    isSoleProcess: !options.database && Boolean(database.pglite),
  });
  const events = createEventBus(database.db, jobs, app.log);
  const ctx: AppContext = {
    config,
    database,
    log: app.log,
    services: { mailer, jobs, events, registry, shareKinds: new Map() },
  };
  app.decorate("ctx", ctx);
  const routeTable: RouteInfo[] = [];
  app.decorate("routeTable", routeTable);
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const schema = route.schema as { body?: unknown; querystring?: unknown } | undefined;
      routeTable.push({
        method,
        url: route.url,
        config: (route.config ?? {}) as Record<string, unknown>,
        ...(schema?.body ? { bodySchema: schema.body } : {}),
        ...(schema?.querystring ? { querySchema: schema.querystring } : {}),
      });
    }
  });

  registerErrorHandler(app);
  registerSecurityHeaders(app, config);
  await app.register(cookie);
  await app.register(multipart, { limits: { fileSize: 5 * 1024 * 1024, files: 1, fields: 10, parts: 11 } });

  app.addHook("onRequest", async (request) => {
    if (config.MAINTENANCE && isApiPath(request.url))
      throw new AppError("maintenance", "Maintenance in progress, please come back later");
  });
  registerAuth(app, { config, db: database.db, query: database.query });
  await registerModules(app, ctx, options.modules);
  registry.register(auditDataSection);
  registry.register(mailDataSection);
  registry.register(eventsDataSection);
  registry.register(rateLimitDataSection);
  defineFileRemovalJob(ctx, jobs);
  registerIdempotency(ctx);
  await registerWebApp(app, config);

  // Jobs start once every module has defined its own, and stop before the database closes. Before any
  // request or job runs, the deletion ledger deletes again accounts a restored backup brought back (X7).
  app.addHook("onReady", async () => {
    await jobs.start({ work: false });
    await reapplyDeletionLedger(registryEnv(ctx));
    await jobs.start({ work: options.workJobs !== false });
    // Files queued for removal by a server killed meanwhile: its removal job may be held as running
    // (on PostgreSQL until it expires), so a fresh one goes at once.
    await jobs.send(FILE_REMOVAL_JOB, {});
  });
  app.addHook("onClose", async () => {
    await jobs.stop();
    if (ownsDatabase) await database.close();
  });
  return app as unknown as App;
}

/** The web app's direct-login page (its address carries the pair until the page has used it). */
const LOGIN_DIRECT_PAGE = "/user/login-direct";

/**
 * Serves the built web app with history fallback; unknown API paths get the JSON 404. The share pages
 * and the direct-login page get their own headers.
 */
async function registerWebApp(app: FastifyInstance, config: Config): Promise<void> {
  const hasDist = fs.existsSync(path.join(config.webDist, "index.html"));
  if (hasDist) {
    await app.register(fastifyStatic, { root: config.webDist, wildcard: false, index: false });
  }
  app.setNotFoundHandler((request, reply) => {
    const accept = request.headers.accept ?? "";
    if (
      hasDist &&
      request.method === "GET" &&
      !isApiPath(request.url) &&
      !/\.[a-z0-9]{1,8}$/i.test(request.url.split("?")[0] ?? "")
    ) {
      const pathname = request.url.split("?")[0] ?? "";
      if (isSharePagePath(pathname)) {
        // A share page (RELIABILITY H1/H3): not indexed, not cached, no referrer to anywhere it links.
        reply
          .header("x-robots-tag", "noindex, nofollow")
          .header("referrer-policy", "no-referrer")
          .header("cache-control", "no-store");
      } else if (pathname === LOGIN_DIRECT_PAGE) {
        // The direct-login page carries sign-in credentials in its address until it has used them.
        reply.header("referrer-policy", "no-referrer").header("cache-control", "no-store");
      } else reply.header("cache-control", "no-cache");
      // cacheControl off: @fastify/static would otherwise replace the header set above.
      return reply.type("text/html").sendFile("index.html", { cacheControl: false });
    }
    if (!hasDist && accept.includes("text/html") && !isApiPath(request.url)) {
      return reply.status(503).type("text/plain").send("The web app is not built: run `npm run build`.");
    }
    throw new AppError("not_found", "Not found");
  });
}
