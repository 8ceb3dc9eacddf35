import path from "node:path";
import { z } from "zod";

const bool = z.enum(["0", "1", "true", "false", ""]).transform((v) => v === "1" || v === "true");
const optionalUrl = z
  .string()
  .optional()
  .transform((v) => (v === "" ? undefined : v))
  .pipe(z.url().optional());

/**
 * Every environment variable the server reads, with its default. docs/configuration.md lists the same
 * set; a test keeps the two in step.
 */
export const ConfigSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  /** The address people use to reach Tonus; redirects and e-mail links are built from it. */
  PUBLIC_URL: optionalUrl,
  /** Extra hosts (comma-separated origins) the app may redirect to and accept unsafe requests from. */
  TRUSTED_ORIGINS: z.string().default(""),
  DATA_DIR: z.string().default("./data"),
  DATABASE_URL: optionalUrl,
  FILES_DIR: z.string().optional(),
  /** The deletion ledger's file, kept when a backup is restored (docs/operations.md). */
  DELETION_LEDGER: z.string().optional(),
  SECRET_KEY: z.string().min(32).optional(),
  COOKIE_DOMAIN: z.string().optional(),
  /**
   * Which proxies may set X-Forwarded-For/-Proto/-Host: `false` (none: the connection's own address),
   * `true` (any — only when nothing reaches the app but the proxy), a hop count, or addresses/CIDRs.
   */
  TRUST_PROXY: z
    .string()
    .trim()
    .default("false")
    .refine(
      (v) => /^(true|false|\d{1,2}|[0-9a-fA-F.:/, ]+)$/.test(v),
      "true, false, a hop count or addresses",
    ),
  SESSION_IDLE_DAYS: z.coerce.number().positive().default(30),
  SESSION_MAX_DAYS: z.coerce.number().positive().default(90),
  BILLING_MODE: z.enum(["off", "sandbox", "stripe"]).default("off"),
  /** Stripe's secret API key (`sk_…`), for BILLING_MODE=stripe. */
  STRIPE_SECRET_KEY: z.string().optional(),
  /**
   * Stripe's publishable key (`pk_…`), handed to the web app for Stripe.js card entry. Anything else is
   * refused at start: a secret key put here by mistake would reach every browser.
   */
  STRIPE_PUBLISHABLE_KEY: z
    .string()
    .regex(/^pk_(test|live)_[A-Za-z0-9]+$/, "must be a publishable key (pk_test_… or pk_live_…)")
    .optional(),
  /** The webhook endpoint's signing secret (`whsec_…`); webhooks are refused without it. */
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  /** Another address for Stripe's API (a local Stripe mock in tests); Stripe itself when unset. */
  STRIPE_API_URL: optionalUrl,
  MAINTENANCE: bool.default(false),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().default("Tonus <no-reply@tonus.local>"),
  APP_TOKEN: z.string().default("tonus-public-app-token"),
  HELP_CENTER_URL: z.string().url().default("https://github.com/tonus-health/tonus/wiki"),
  INTERCOM_KEY: z.string().optional(),
  INTERCOM_SECRET: z.string().optional(),
  CHAT_WIDGET_URL: optionalUrl,
  ANALYTICS_ENABLED: bool.default(false),
  ANALYTICS_TOKEN: z.string().optional(),
  /** Days analytics events are kept; older ones are removed by a daily job. */
  ANALYTICS_RETENTION_DAYS: z.coerce.number().int().positive().default(395),
  /** The key IFTTT sends in `IFTTT-Service-Key`; without it the IFTTT status and test endpoints answer 401. */
  IFTTT_SERVICE_KEY: z.string().optional(),
  /** The registered OAuth client that is IFTTT (non-expiring tokens, the IFTTT service API). */
  IFTTT_CLIENT_ID: z.string().default("ifttt"),
  /** Turns on `POST /ifttt/v1/test/setup` (a fixture user and its token) for IFTTT's endpoint tests. */
  IFTTT_TEST_MODE: bool.default(false),
  /** IFTTT's realtime notification endpoint; unset, no notifications are sent (IFTTT keeps polling). */
  IFTTT_REALTIME_URL: optionalUrl,
  OIDC_GOOGLE_ISSUER: optionalUrl,
  OIDC_GOOGLE_CLIENT_ID: z.string().optional(),
  OIDC_GOOGLE_CLIENT_SECRET: z.string().optional(),
  OIDC_APPLE_ISSUER: optionalUrl,
  OIDC_APPLE_CLIENT_ID: z.string().optional(),
  OIDC_APPLE_CLIENT_SECRET: z.string().optional(),
  WEB_DIST: z.string().optional(),
  /** Folder of academy courses; the repository's content/academy when unset. */
  ACADEMY_CONTENT_DIR: z.string().optional(),
  RATE_LIMIT_SIGNIN_PER_HOUR: z.coerce.number().int().positive().default(100),
  /** `false` stops scheduling notification e-mails (weekly reports, reminders, news), e.g. on a staging copy. */
  NOTIFICATIONS_ENABLED: bool.default(true),
  /** Free PRO days a person earns per referred friend whose first payment is confirmed (0: no rewards). */
  REFERRAL_REWARD_DAYS: z.coerce.number().int().min(0).max(3660).default(30),
  /** At most this many rewarded friends per person (0: no limit). The CLI's `referral-reward` overrides both. */
  REFERRAL_REWARD_MAX: z.coerce.number().int().min(0).max(100_000).default(12),
  /** Largest file one import may upload, in MB (Apple Health exports reach several GB). */
  IMPORT_MAX_FILE_MB: z.coerce.number().int().positive().default(4096),
  /** Most MB of uploaded files one person's unfinished imports may keep at once. */
  IMPORT_QUOTA_MB: z.coerce.number().int().positive().default(8192),
  // Cloud connectors (modules/connectors): a provider is offered only when its client id and secret are
  // set; `*_BASE_URL` replaces every host of that provider (a local stand-in in tests).
  OURA_CLIENT_ID: z.string().optional(),
  OURA_CLIENT_SECRET: z.string().optional(),
  OURA_BASE_URL: optionalUrl,
  WITHINGS_CLIENT_ID: z.string().optional(),
  WITHINGS_CLIENT_SECRET: z.string().optional(),
  WITHINGS_BASE_URL: optionalUrl,
  POLAR_CLIENT_ID: z.string().optional(),
  POLAR_CLIENT_SECRET: z.string().optional(),
  POLAR_BASE_URL: optionalUrl,
  FITBIT_CLIENT_ID: z.string().optional(),
  FITBIT_CLIENT_SECRET: z.string().optional(),
  FITBIT_BASE_URL: optionalUrl,
  GOOGLE_HEALTH_CLIENT_ID: z.string().optional(),
  GOOGLE_HEALTH_CLIENT_SECRET: z.string().optional(),
  GOOGLE_HEALTH_BASE_URL: optionalUrl,
  WHOOP_CLIENT_ID: z.string().optional(),
  WHOOP_CLIENT_SECRET: z.string().optional(),
  WHOOP_BASE_URL: optionalUrl,
  /** Days of history the first sync of a new connection reads. */
  CONNECTORS_HISTORY_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** Minutes between background syncs of one connection. */
  CONNECTORS_SYNC_INTERVAL_MINUTES: z.coerce.number().int().min(5).max(10_080).default(60),
});

export type Config = z.infer<typeof ConfigSchema> & {
  secretKey: string;
  filesDir: string;
  deletionLedger: string;
  webDist: string;
  academyContentDir: string | undefined;
};

export class ConfigError extends Error {}

/** Reads and validates the environment; the error names the first bad variable in one line. */
export function loadConfig(env: Record<string, string | undefined>, root = process.cwd()): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? "environment");
    throw new ConfigError(`Invalid configuration: ${name}: ${issue?.message ?? "invalid value"}`);
  }
  const c = parsed.data;
  const dataDir = path.resolve(root, c.DATA_DIR);
  return {
    ...c,
    DATA_DIR: dataDir,
    secretKey: c.SECRET_KEY ?? "",
    filesDir: path.resolve(root, c.FILES_DIR ?? path.join(c.DATA_DIR, "files")),
    deletionLedger: path.resolve(root, c.DELETION_LEDGER ?? path.join(c.DATA_DIR, "deletion-ledger.log")),
    webDist: path.resolve(root, c.WEB_DIST ?? path.join(import.meta.dirname, "../../../web/dist")),
    academyContentDir: c.ACADEMY_CONTENT_DIR ? path.resolve(root, c.ACADEMY_CONTENT_DIR) : undefined,
  };
}
