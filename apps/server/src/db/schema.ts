import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  pgView,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
const createdAt = () => ts("created_at").notNull().defaultNow();

/** People with an account. Height in cm and weight in kg (SI-derived) whatever their display units. */
export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    email: text("email").notNull(),
    username: text("username").notNull(),
    passwordHash: text("password_hash"),
    name: text("name").notNull().default(""),
    gender: text("gender"),
    dateOfBirth: date("date_of_birth", { mode: "string" }),
    heightCm: real("height_cm"),
    weightKg: real("weight_kg"),
    units: text("units").notNull().default("metric"),
    /** kcal or kJ for energy (spec §3 "kcal variants"), whatever `units` says. */
    energyUnit: text("energy_unit").notNull().default("kcal"),
    newsletterLanguage: text("newsletter_language").notNull().default("en"),
    timezone: text("timezone").notNull().default("UTC"),
    userpicPath: text("userpic_path"),
    role: text("role").notNull().default("user"),
    billingStatus: text("billing_status").notNull().default("none"),
    isCustomerOverride: boolean("is_customer_override").notNull().default(false),
    isIosUser: boolean("is_ios_user").notNull().default(false),
    isAndroidUser: boolean("is_android_user").notNull().default(false),
    passwordChangedAt: ts("password_changed_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_key").on(t.email), uniqueIndex("users_username_key").on(t.username)],
);

/** Server-side sessions; the cookie holds a random id whose SHA-256 is the key here. */
export const sessions = pgTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    userId: uuid("user_id").references(() => users.id, { onDelete: "cascade" }),
    csrfSecret: text("csrf_secret").notNull(),
    createdAt: createdAt(),
    lastSeenAt: ts("last_seen_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

/** `Authorization: Token <key>` keys for the companion app; only the hash is stored. */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    keyHash: text("key_hash").notNull(),
    createdAt: createdAt(),
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [uniqueIndex("api_tokens_key_hash_key").on(t.keyHash), index("api_tokens_user_idx").on(t.userId)],
);

/** Single-use codes: password resets and direct-login pairs. */
export const oneTimeCodes = pgTable(
  "one_time_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose").notNull(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("one_time_codes_user_idx").on(t.userId)],
);

/** Social sign-in identities (OpenID Connect `sub` per provider). */
export const socialIdentities = pgTable(
  "social_identities",
  {
    provider: text("provider").notNull(),
    subject: text("subject").notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("social_identities_key").on(t.provider, t.subject),
    index("social_user_idx").on(t.userId),
  ],
);

/** Capability links to one object (a BP log, a measurement); the token is shown once, stored hashed. */
export const shareLinks = pgTable(
  "share_links",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    targetId: text("target_id").notNull(),
    tokenHash: text("token_hash").notNull(),
    createdAt: createdAt(),
    revokedAt: ts("revoked_at"),
    lastOpenedAt: ts("last_opened_at"),
  },
  (t) => [uniqueIndex("share_links_token_key").on(t.tokenHash), index("share_links_user_idx").on(t.userId)],
);

/** Fixed-window attempt counters for rate limits, kept in the database so they survive restarts. */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  windowStart: ts("window_start").notNull(),
  count: integer("count").notNull(),
});

/** Who did what, when, from where: no secrets, no health values. user_id is pseudonymised on deletion. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: ts("at").notNull().defaultNow(),
    userId: uuid("user_id"),
    action: text("action").notNull(),
    objectId: text("object_id"),
    ip: text("ip"),
    requestId: text("request_id"),
    meta: jsonb("meta").notNull().default(sql`'{}'::jsonb`),
  },
  (t) => [index("audit_log_user_idx").on(t.userId)],
);

/** Domain events written in the same transaction as the change; delivered once per subscriber. */
export const outboxEvents = pgTable(
  "outbox_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: uuid("user_id"),
    type: text("type").notNull(),
    payload: jsonb("payload").notNull(),
    createdAt: createdAt(),
    /**
     * Set while the writer that recorded the event still runs (an import: its id): the dispatcher leaves
     * the event alone until the writer releases it, so a large import's thousands of events are
     * delivered after it, not by the server's main thread while it runs.
     */
    heldBy: uuid("held_by"),
  },
  (t) => [
    index("outbox_events_user_idx").on(t.userId),
    index("outbox_events_held_idx").on(t.heldBy).where(sql`${t.heldBy} is not null`),
  ],
);

/** Which subscriber has handled which event: the exactly-once ledger. */
export const outboxDeliveries = pgTable(
  "outbox_deliveries",
  {
    eventId: bigint("event_id", { mode: "number" }).notNull(),
    subscriber: text("subscriber").notNull(),
    deliveredAt: createdAt(),
  },
  (t) => [uniqueIndex("outbox_deliveries_key").on(t.eventId, t.subscriber)],
);

/** Mail kept in development (and always recorded for the dev outbox page). */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: uuid("user_id"),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html"),
    createdAt: createdAt(),
    sentAt: ts("sent_at"),
  },
  (t) => [index("mail_outbox_user_idx").on(t.userId)],
);

/**
 * Academy courses and materials, loaded from content/academy at start. Ids are the slugs from the files,
 * so they are the same on every installation; a course or material whose file disappeared is kept with
 * `active = false` so users' progress stays attached if it comes back.
 */
export const academyCourses = pgTable("academy_courses", {
  id: text("id").primaryKey(),
  position: integer("position").notNull(),
  title: jsonb("title").$type<Record<string, string>>().notNull(),
  description: jsonb("description").$type<Record<string, string>>().notNull(),
  cover: text("cover"),
  active: boolean("active").notNull().default(true),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

export const academyMaterials = pgTable(
  "academy_materials",
  {
    id: text("id").primaryKey(),
    courseId: text("course_id")
      .notNull()
      .references(() => academyCourses.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    kind: text("kind").notNull(),
    durationMin: integer("duration_min").notNull(),
    pro: boolean("pro").notNull(),
    parameters: jsonb("parameters").$type<string[]>().notNull(),
    pacer: jsonb("pacer").$type<{ inhale_s: number; exhale_s: number; duration_min: number }>(),
    /** Per language: { title, markdown, quiz }. A language absent here is not available. */
    content: jsonb("content").$type<Record<string, unknown>>().notNull(),
    active: boolean("active").notNull().default(true),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("academy_materials_course_idx").on(t.courseId)],
);

/** A person's progress per material: state 0 not started, 1 in progress, 4 finished; quiz answers. */
export const academyProgress = pgTable(
  "academy_progress",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    materialId: text("material_id")
      .notNull()
      .references(() => academyMaterials.id, { onDelete: "cascade" }),
    state: integer("state").notNull().default(0),
    answers: jsonb("answers").$type<Record<string, number>>(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("academy_progress_key").on(t.userId, t.materialId)],
);

/**
 * Blood-pressure readings (modules/bp). mmHg and beats per minute; `client_id` (the client's own UUID)
 * makes a create idempotent. `time_zone` is where the reading was taken (for local days).
 */
export const bpReadings = pgTable(
  "bp_readings",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    clientId: uuid("client_id"),
    systolic: integer("systolic").notNull(),
    diastolic: integer("diastolic").notNull(),
    pulse: integer("pulse"),
    measuredAt: ts("measured_at").notNull(),
    timeZone: text("time_zone").notNull(),
    arm: text("arm"),
    note: text("note").notNull().default(""),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("bp_readings_client_key").on(t.userId, t.clientId),
    index("bp_readings_user_time_idx").on(t.userId, t.measuredAt),
  ],
);

/**
 * HRV measurements (modules/measurements): the raw RR series as uploaded and what the server computed
 * from it (`result`, the wire values plus the detail's analysis) with the `algorithm_version` that
 * computed it; a row whose version differs from the current one (or whose `result` is null, after an
 * archive import) is recomputed by the recompute job. Idempotent by (user, client_id).
 */
export const measurements = pgTable(
  "measurements",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    clientId: uuid("client_id").notNull(),
    source: text("source").notNull(),
    device: text("device"),
    startedAt: ts("started_at").notNull(),
    timeZone: text("time_zone").notNull(),
    rrMs: jsonb("rr_ms").$type<number[]>().notNull(),
    /** Indices into `rr_ms` of intervals that do not follow the one before (untimed beats between). */
    rrBreaks: jsonb("rr_breaks").$type<number[]>().notNull().default(sql`'[]'::jsonb`),
    feel: integer("feel"),
    mood: integer("mood"),
    tags: text("tags").array().notNull().default(sql`'{}'::text[]`),
    labels: text("labels").array().notNull().default(sql`'{}'::text[]`),
    algorithmVersion: text("algorithm_version").notNull().default(""),
    result: jsonb("result").$type<Record<string, unknown>>(),
    // The three numbers a later measurement's baseline reads, kept by PostgreSQL from `result`: an
    // import reads them for 60 days of measurements per batch, without reading each whole result.
    baselineRmssd: doublePrecision("baseline_rmssd").generatedAlwaysAs(
      sql`(result -> 'values' ->> 'rmssd')::double precision`,
    ),
    baselinePsi: doublePrecision("baseline_psi").generatedAlwaysAs(
      sql`(result -> 'values' ->> 'psi')::double precision`,
    ),
    baselineHeartRate: doublePrecision("baseline_heart_rate").generatedAlwaysAs(
      sql`(result -> 'values' ->> 'heart_rate')::double precision`,
    ),
    bpReadingId: uuid("bp_reading_id"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("measurements_client_key").on(t.userId, t.clientId),
    index("measurements_user_time_idx").on(t.userId, t.startedAt),
    index("measurements_version_idx").on(t.algorithmVersion),
    // The measurements computed with a reading: recomputed when it changes or goes.
    index("measurements_bp_reading_idx").on(t.bpReadingId).where(sql`${t.bpReadingId} is not null`),
  ],
);

/**
 * Every dated value the dashboard charts (modules/dashboard-values, issue 5's write path): metric, time,
 * value in the metric's storage unit, source and the source's own id, idempotent by
 * (user, source, client_id). Summaries over these belong to the dashboard module.
 */
export const dashboardValues = pgTable(
  "dashboard_values",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    // No foreign key: checking one per row took a fifth of a bulk import's database time. Every writer
    // holds the user's dashboard lock and finds the user first, and account deletion takes that lock
    // before it deletes the user's values (dashboard-values.data.ts), so no row outlives its account.
    userId: uuid("user_id").notNull(),
    metric: text("metric").notNull(),
    at: ts("at").notNull(),
    value: doublePrecision("value").notNull(),
    source: text("source").notNull(),
    clientId: text("client_id").notNull(),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("dashboard_values_client_key").on(t.userId, t.source, t.clientId),
    index("dashboard_values_user_metric_at_idx").on(t.userId, t.metric, t.at),
  ],
);

/**
 * The bulk store of dashboard values (modules/dashboard-values `dashboard-values.samples.ts`): the samples a
 * file import brings, one row per (user, source, metric, UTC day) holding that day's samples as arrays,
 * ascending by time: milliseconds since 1970, values in the metric's storage unit, and each sample's
 * client id. A sample is identified by (source, client id) within its metric and UTC day (an importer's
 * ids fix both), and no key is both here and in `dashboard_values` (each write path looks in the other
 * store first). PostgreSQL then maintains one index entry per day instead of one per sample. No foreign
 * key, for the reason `dashboard_values` has none.
 */
export const dashboardSamples = pgTable(
  "dashboard_samples",
  {
    userId: uuid("user_id").notNull(),
    source: text("source").notNull(),
    metric: text("metric").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    n: integer("n").notNull(),
    atMs: bigint("at_ms", { mode: "number" }).array().notNull(),
    vals: doublePrecision("vals").array().notNull(),
    keys: text("keys").array().notNull(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.source, t.metric, t.day] })],
);

/**
 * Every dashboard value, whichever store holds it (`dashboard_values` or an import's `dashboard_samples`),
 * one row per value: for reading (operators, tests), never written. Made by migration 0021.
 */
export const dashboardValuesAll = pgView("dashboard_values_all", {
  userId: uuid("user_id").notNull(),
  metric: text("metric").notNull(),
  at: ts("at").notNull(),
  value: doublePrecision("value").notNull(),
  source: text("source").notNull(),
  clientId: text("client_id").notNull(),
}).existing();

/**
 * Daily summaries of `dashboard_values`, one row per (user, metric, local day, source), kept right by
 * the write path in the same transaction: the chart API answers from these, never from raw samples.
 * `day` is the local calendar day in the user's time zone recorded in `dashboard_settings.summary_tz`.
 */
export const dashboardDaily = pgTable(
  "dashboard_daily",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    metric: text("metric").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    source: text("source").notNull(),
    n: integer("n").notNull(),
    sum: doublePrecision("sum").notNull(),
    min: doublePrecision("min").notNull(),
    max: doublePrecision("max").notNull(),
    lastAt: ts("last_at").notNull(),
    lastValue: doublePrecision("last_value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.metric, t.day, t.source] })],
);

/** The charts of a person's "My graphs" tab, in order. */
export const dashboardCharts = pgTable(
  "dashboard_charts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    item: text("item").notNull(),
    position: integer("position").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("dashboard_charts_user_idx").on(t.userId, t.position)],
);

/**
 * A person's dashboard settings: the stats table's parameters, per-metric source priorities, and the
 * time zone the daily summaries were built in (a profile time-zone change rebuilds them).
 */
export const dashboardSettings = pgTable("dashboard_settings", {
  userId: uuid("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  tableParameters: text("table_parameters").array().notNull().default(sql`'{}'::text[]`),
  sourcePriority: jsonb("source_priority").$type<Record<string, string[]>>().notNull().default({}),
  summaryTz: text("summary_tz"),
  /** The default charts were added once; removing them all later leaves the tab empty. */
  layoutInitialized: boolean("layout_initialized").notNull().default(false),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * Billing products (plans), configured by the operator (CLI `plans-import FILE`; defaults seeded into an
 * empty table). One row per currency: a price never converts. Amounts in minor units.
 */
export const billingProducts = pgTable(
  "billing_products",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    slug: text("slug").notNull(),
    plan: text("plan").notNull(),
    currency: text("currency").notNull(),
    amount: integer("amount").notNull(),
    interval: text("interval"),
    intervalCount: integer("interval_count").notNull().default(1),
    trialDays: integer("trial_days"),
    discountPercent: integer("discount_percent"),
    title: jsonb("title").$type<Record<string, string>>().notNull(),
    active: boolean("active").notNull().default(true),
    position: integer("position").notNull().default(0),
    /** For the gift product: the slug of the plan its code grants (in the code's currency). */
    grantsSlug: text("grants_slug"),
  },
  (t) => [uniqueIndex("billing_products_slug_currency_key").on(t.slug, t.currency)],
);

/** Promo codes (operator CLI) and gift codes (bought as the gift product). No personal data. */
export const billingCoupons = pgTable("billing_coupons", {
  code: text("code").primaryKey(),
  kind: text("kind").notNull().default("promo"),
  percentOff: integer("percent_off").notNull(),
  /** Only for this product slug (any currency); null = any product. */
  productSlug: text("product_slug"),
  maxRedemptions: integer("max_redemptions"),
  redeemed: integer("redeemed").notNull().default(0),
  expiresAt: ts("expires_at"),
  active: boolean("active").notNull().default(true),
  /** The transaction that bought a gift code. */
  sourceTransactionId: uuid("source_transaction_id"),
  createdAt: createdAt(),
});

/** A person's subscription or one-time purchase (spec §3 Purchase / Subscription). */
export const subscriptions = pgTable(
  "subscriptions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    productId: integer("product_id").notNull(),
    provider: text("provider").notNull(),
    /** incomplete, active, cancelled (no renewal, paid period runs on), past_due, expired. */
    status: text("status").notNull(),
    providerCustomer: text("provider_customer"),
    providerPaymentMethod: text("provider_payment_method"),
    cardBrand: text("card_brand"),
    cardLast4: text("card_last4"),
    cardExpMonth: integer("card_exp_month"),
    cardExpYear: integer("card_exp_year"),
    currentPeriodStart: ts("current_period_start"),
    /** null for a one-time (lifetime) purchase. */
    currentPeriodEnd: ts("current_period_end"),
    renews: boolean("renews").notNull().default(true),
    lastPaymentAt: ts("last_payment_at"),
    cancelledAt: ts("cancelled_at"),
    createdAt: createdAt(),
  },
  (t) => [index("subscriptions_user_idx").on(t.userId)],
);

/**
 * Payments (spec §3 Transaction): the accounting record. On account deletion `user_id` is pseudonymised
 * and the row stays (GDPR art. 17(3)(b)); it holds no card data or other personal data.
 */
export const billingTransactions = pgTable(
  "billing_transactions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id").notNull(),
    subscriptionId: uuid("subscription_id"),
    productId: integer("product_id").notNull(),
    kind: text("kind").notNull().default("payment"),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    description: text("description").notNull(),
    coupon: text("coupon"),
    /** pending, requires_action, succeeded, failed, refunded. */
    status: text("status").notNull(),
    provider: text("provider").notNull(),
    providerIntent: text("provider_intent"),
    idempotencyKey: text("idempotency_key").notNull(),
    /** What the request asked for (product, coupon, token), to refuse a reused key with another body. */
    requestHash: text("request_hash").notNull(),
    /** The provider's card token or payment method this payment is charged to (no card data). */
    providerSource: text("provider_source"),
    failureMessage: text("failure_message"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("billing_transactions_idem_key").on(t.userId, t.idempotencyKey),
    index("billing_transactions_intent_idx").on(t.providerIntent),
  ],
);

/** Provider webhook events already processed: each event id is applied once. */
export const billingEvents = pgTable(
  "billing_events",
  {
    provider: text("provider").notNull(),
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    receivedAt: createdAt(),
  },
  (t) => [uniqueIndex("billing_events_key").on(t.provider, t.eventId)],
);

/** The sandbox provider's own card tokens (its stand-in for Stripe.js): never the number, only its test behaviour. */
export const sandboxTokens = pgTable("sandbox_tokens", {
  id: text("id").primaryKey(),
  behaviour: text("behaviour").notNull(),
  brand: text("brand").notNull(),
  last4: text("last4").notNull(),
  expMonth: integer("exp_month").notNull(),
  expYear: integer("exp_year").notNull(),
  createdAt: createdAt(),
});

/** The sandbox provider's ledger of payment intents, with Stripe's idempotency-key semantics. */
export const sandboxIntents = pgTable(
  "sandbox_intents",
  {
    id: text("id").primaryKey(),
    idempotencyKey: text("idempotency_key").notNull(),
    paramsHash: text("params_hash").notNull(),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    token: text("token").notNull(),
    /** The sandbox customer the card was charged for, when one was given. */
    customer: text("customer"),
    status: text("status").notNull(),
    failure: text("failure"),
    refunded: integer("refunded").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("sandbox_intents_idem_key").on(t.idempotencyKey)],
);

/**
 * Data-export archives (spec §4 Data archive): requested → packing (a job) → ready until `expires_at`,
 * or failed. The zip lives in FILES_DIR/archives under a server-generated name.
 */
export const dataArchives = pgTable(
  "data_archives",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** packing, ready, failed, expired. */
    status: text("status").notNull(),
    fileName: text("file_name"),
    sizeBytes: integer("size_bytes"),
    requestedAt: createdAt(),
    readyAt: ts("ready_at"),
    expiresAt: ts("expires_at"),
    /** When the "archive ready" e-mail went out; null while it is still owed. */
    notifiedAt: ts("notified_at"),
    /** Packing attempts that failed with an error (a killed process is not one). */
    failures: integer("failures").notNull().default(0),
  },
  (t) => [index("data_archives_user_idx").on(t.userId)],
);

/**
 * OAuth2 clients (IFTTT first), registered by an operator with `npm run cli -- register-oauth-client`.
 * Redirect URIs are compared as exact strings. No secret hash means a public client (PKCE S256 required).
 * `token_policy`: `non_expiring` (IFTTT forbids time-based expiry: no refresh token, revocable) or
 * `expiring` (short access tokens with rotating refresh tokens).
 */
export const oauthClients = pgTable("oauth_clients", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  secretHash: text("secret_hash"),
  redirectUris: jsonb("redirect_uris").$type<string[]>().notNull(),
  scopes: jsonb("scopes").$type<string[]>().notNull(),
  tokenPolicy: text("token_policy").notNull().default("expiring"),
  createdAt: createdAt(),
});

/** A validated `/oauth2/authorize/` request waiting for the person's decision on the consent page. */
export const oauthRequests = pgTable("oauth_requests", {
  id: text("id").primaryKey(),
  clientId: text("client_id")
    .notNull()
    .references(() => oauthClients.id, { onDelete: "cascade" }),
  redirectUri: text("redirect_uri").notNull(),
  scope: text("scope").notNull(),
  state: text("state"),
  codeChallenge: text("code_challenge"),
  createdAt: createdAt(),
  expiresAt: ts("expires_at").notNull(),
});

/** A person's consent to one client: a "connected service". Revoking deletes it with its codes and tokens. */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    scope: text("scope").notNull(),
    createdAt: createdAt(),
    lastUsedAt: ts("last_used_at"),
  },
  (t) => [uniqueIndex("oauth_grants_user_client_key").on(t.userId, t.clientId)],
);

/** Single-use authorization codes (stored hashed), ≤ 10 minutes, bound to client and redirect URI. */
export const oauthCodes = pgTable(
  "oauth_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    grantId: uuid("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    clientId: text("client_id").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge"),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
  },
  (t) => [index("oauth_codes_user_idx").on(t.userId)],
);

/** Access (and refresh) tokens, stored as SHA-256 only; `code_hash` ties them to the code they came from. */
export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    grantId: uuid("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    clientId: text("client_id").notNull(),
    accessHash: text("access_hash").notNull(),
    refreshHash: text("refresh_hash"),
    accessExpiresAt: ts("access_expires_at"),
    refreshExpiresAt: ts("refresh_expires_at"),
    codeHash: text("code_hash"),
    createdAt: createdAt(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [
    uniqueIndex("oauth_tokens_access_key").on(t.accessHash),
    uniqueIndex("oauth_tokens_refresh_key").on(t.refreshHash),
    index("oauth_tokens_user_idx").on(t.userId),
    index("oauth_tokens_grant_idx").on(t.grantId),
  ],
);

/** IFTTT trigger subscriptions seen while polling (`trigger_identity`), removed by IFTTT's DELETE. */
export const iftttTriggerIdentities = pgTable(
  "ifttt_trigger_identities",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    triggerIdentity: text("trigger_identity").notNull(),
    trigger: text("trigger").notNull(),
    fields: jsonb("fields").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    lastPolledAt: ts("last_polled_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("ifttt_trigger_identities_key").on(t.userId, t.triggerIdentity)],
);

/**
 * What IFTTT triggers report: one row per new measurement or blood-pressure reading, written from the
 * domain events those modules emit; `data` holds the numbers the trigger fields filter on.
 */
export const iftttEvents = pgTable(
  "ifttt_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    sourceId: text("source_id").notNull(),
    occurredAt: ts("occurred_at").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("ifttt_events_source_key").on(t.userId, t.kind, t.sourceId),
    index("ifttt_events_user_idx").on(t.userId, t.kind, t.occurredAt),
  ],
);

/**
 * People whose new trigger events IFTTT has not been told of yet (its realtime API). A new event moves
 * the person to the back with a fresh `seq`; the sender deletes only the `seq` it posted, so an event
 * that arrives while a batch is in flight is sent in a later batch.
 */
export const iftttRealtimePending = pgTable(
  "ifttt_realtime_pending",
  {
    userId: uuid("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    noticedAt: ts("noticed_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("ifttt_realtime_pending_seq_key").on(t.seq)],
);

/**
 * First-party analytics: allow-listed event names and property keys only, never health values. The
 * person is a keyed pseudonym (`user_key`), so rows can be deleted with the account without naming it.
 */
export const analyticsEvents = pgTable(
  "analytics_events",
  {
    eventId: uuid("event_id").primaryKey(),
    userKey: text("user_key"),
    deviceKey: text("device_key"),
    name: text("name").notNull(),
    props: jsonb("props").$type<Record<string, string | number | boolean>>().notNull(),
    dateCreated: ts("date_created").notNull(),
    timeOfDay: text("time_of_day").notNull(),
    receivedAt: createdAt(),
  },
  (t) => [
    index("analytics_events_user_idx").on(t.userKey),
    index("analytics_events_date_idx").on(t.dateCreated),
  ],
);

/**
 * What a person receives by e-mail (modules/notifications): the weekly report and its ISO weekday
 * (1 Monday … 7 Sunday), measurement reminders at a local `HH:MM` on chosen ISO weekdays, product news.
 * No row means the defaults: everything off.
 */
export const notificationSettings = pgTable("notification_settings", {
  userId: uuid("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  weeklyReport: boolean("weekly_report").notNull().default(false),
  weeklyReportDay: integer("weekly_report_day").notNull().default(1),
  reminders: boolean("reminders").notNull().default(false),
  reminderTime: text("reminder_time").notNull().default("08:00"),
  reminderDays: integer("reminder_days").array().notNull().default(sql`'{1,2,3,4,5,6,7}'::integer[]`),
  productNews: boolean("product_news").notNull().default(false),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * The send ledger: one row per person, kind and period (a weekly report's local send date, a reminder's
 * local date, a news issue's id), so nothing is sent twice, also after a crash or a restart. `status`
 * moves pending → sending → sent (or skipped, expired, failed); a row left in `sending` by a crash is
 * never sent again (at most once).
 */
export const notificationDeliveries = pgTable(
  "notification_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    periodKey: text("period_key").notNull(),
    scheduledAt: ts("scheduled_at").notNull(),
    status: text("status").notNull().default("pending"),
    newsId: bigint("news_id", { mode: "number" }),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("notification_deliveries_period_key").on(t.userId, t.kind, t.periodKey),
    index("notification_deliveries_status_idx").on(t.status, t.scheduledAt),
  ],
);

/**
 * Product news issues queued by an operator (`npm run cli -- send-news …`): subject and Markdown per
 * language. The notifications job fans an issue out to the people who opted in, then sets `fanned_out_at`.
 */
export const notificationNews = pgTable("notification_news", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  content: jsonb("content").$type<Record<string, { subject: string; markdown: string }>>().notNull(),
  createdAt: createdAt(),
  fannedOutAt: ts("fanned_out_at"),
  recipients: integer("recipients"),
});

/**
 * Referrals (spec §3 Referral, §4 Friend invite). Each person's referral code: random and unguessable
 * (not the user id), made the first time they open /referral.
 */
export const referralCodes = pgTable(
  "referral_codes",
  {
    userId: uuid("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    code: text("code").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("referral_codes_code_key").on(t.code)],
);

/** Invitations a person sent by e-mail to an address without an account (lower-cased as typed). */
export const referralInvitations = pgTable(
  "referral_invitations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    /** The language the invitation was written in. */
    locale: text("locale").notNull(),
    sendCount: integer("send_count").notNull().default(1),
    createdAt: createdAt(),
    lastSentAt: ts("last_sent_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("referral_invitations_user_email_key").on(t.userId, t.email),
    index("referral_invitations_email_idx").on(t.email),
  ],
);

/**
 * Who brought whom: one row per referred person (`user_id`), naming the referrer, and the reward state.
 * `rewarded_at` is set once, when the friend's first payment is confirmed (RELIABILITY P2).
 */
export const referrals = pgTable(
  "referrals",
  {
    userId: uuid("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    referrerId: uuid("referrer_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** link (registered through the referral link) or invitation (the invited address registered). */
    via: text("via").notNull(),
    createdAt: createdAt(),
    rewardedAt: ts("rewarded_at"),
    rewardDays: integer("reward_days"),
    /** The friend's payment that earned the reward. */
    rewardTransactionId: uuid("reward_transaction_id"),
  },
  (t) => [index("referrals_referrer_idx").on(t.referrerId)],
);

/** The operator's referral reward (CLI `referral-reward`); without a row REFERRAL_REWARD_DAYS applies. */
export const referralSettings = pgTable("referral_settings", {
  key: text("key").primaryKey(),
  /** Free PRO days per friend whose first payment is confirmed; 0 turns rewards off. */
  rewardDays: integer("reward_days").notNull(),
  /** At most this many rewarded friends per person; null: no limit. */
  maxRewards: integer("max_rewards"),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * File imports (modules/imports, issue 7): the upload lives in FILES_DIR/imports under `stored_name`
 * until the job ends; `checkpoint` is written in the same transaction as each batch of values, so a
 * restarted job continues exactly after the last committed batch. Counters are the progress the web
 * app polls; `report` is final once the status is done, failed or cancelled.
 */
export const imports = pgTable(
  "imports",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The catalogue entry the file was uploaded from (its page shows the import). */
    sourceSlug: text("source_slug").notNull(),
    fileName: text("file_name").notNull(),
    storedName: text("stored_name"),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull().default(0),
    sha256: text("sha256"),
    /** What the content turned out to be (ImportKind). */
    kind: text("kind").notNull(),
    /** needs_mapping, queued, running, done, failed, cancelled. */
    status: text("status").notNull(),
    cancelRequested: boolean("cancel_requested").notNull().default(false),
    /** Time zone, RR date, CSV mapping: what the job needs besides the file. */
    options: jsonb("options").$type<Record<string, unknown>>().notNull(),
    preview: jsonb("preview").$type<Record<string, unknown>>(),
    checkpoint: jsonb("checkpoint").$type<Record<string, unknown>>(),
    bytesRead: bigint("bytes_read", { mode: "number" }).notNull().default(0),
    recordsRead: integer("records_read").notNull().default(0),
    importedCount: integer("imported_count").notNull().default(0),
    duplicateCount: integer("duplicate_count").notNull().default(0),
    rejectedCount: integer("rejected_count").notNull().default(0),
    report: jsonb("report").$type<Record<string, unknown>>(),
    /** The running job's lease, renewed with every batch; a job finding it unexpired leaves the import alone. */
    lockedUntil: ts("locked_until"),
    /** Which process holds the lease (a restarted PGlite server frees the leases of the one it replaced). */
    lockedBy: text("locked_by"),
    createdAt: createdAt(),
    startedAt: ts("started_at"),
    finishedAt: ts("finished_at"),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("imports_user_created_idx").on(t.userId, t.createdAt),
    index("imports_status_idx").on(t.status),
  ],
);

/**
 * Cloud connectors (modules/connectors): one row per person and provider. Holds no secret: tokens live
 * in `connector_tokens`. `cursors` is each data stream's position (moved only in the transaction that
 * writes that stream's data, so a sync resumes where committed data ends); `history_start` bounds the
 * first sync. `run_report` counts the sync under way (kept with each committed page, so a resumed sync
 * goes on counting); the other sync columns are what the person sees: state, last report, last error.
 */
export const connectorConnections = pgTable(
  "connector_connections",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    status: text("status").notNull().default("active"),
    externalUserId: text("external_user_id"),
    scopes: text("scopes").notNull().default(""),
    connectedAt: ts("connected_at").notNull().defaultNow(),
    historyStart: ts("history_start").notNull(),
    cursors: jsonb("cursors").$type<Record<string, unknown>>().notNull().default({}),
    syncState: text("sync_state").notNull().default("idle"),
    syncRequestedAt: ts("sync_requested_at"),
    syncStartedAt: ts("sync_started_at"),
    retryAt: ts("retry_at"),
    failures: integer("failures").notNull().default(0),
    lastSyncAt: ts("last_sync_at"),
    lastSyncReport: jsonb("last_sync_report").$type<Record<string, unknown>>(),
    runReport: jsonb("run_report").$type<Record<string, unknown>>(),
    lastErrorCode: text("last_error_code"),
    lastErrorAt: ts("last_error_at"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("connector_connections_user_provider_key").on(t.userId, t.provider),
    index("connector_connections_due_idx").on(t.status, t.lastSyncAt),
  ],
);

/** A connection's OAuth tokens, AES-256-GCM encrypted with a key derived from SECRET_KEY (never exported). */
export const connectorTokens = pgTable(
  "connector_tokens",
  {
    connectionId: uuid("connection_id")
      .primaryKey()
      .references(() => connectorConnections.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessToken: text("access_token").notNull(),
    refreshToken: text("refresh_token"),
    expiresAt: ts("expires_at"),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("connector_tokens_user_idx").on(t.userId)],
);

/**
 * A started connect waiting for the provider's callback: the state's hash, the session that started it
 * and the PKCE verifier (encrypted). Single use, ten minutes.
 */
export const connectorAuthorizations = pgTable(
  "connector_authorizations",
  {
    stateHash: text("state_hash").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    sessionHash: text("session_hash").notNull(),
    codeVerifier: text("code_verifier"),
    returnTo: text("return_to").notNull(),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("connector_authorizations_user_idx").on(t.userId)],
);

/**
 * Answers stored under a client's `Idempotency-Key` (lib/idempotency.ts, RELIABILITY F2): the request's
 * fingerprint and the response it got, written in the same transaction as the work itself, so a stored
 * row always means "done" and a crash leaves no half-claimed key. Kept at least 24 hours, then pruned.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    statusCode: integer("status_code").notNull(),
    response: jsonb("response").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("idempotency_keys_user_key").on(t.userId, t.key),
    index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);

/**
 * The sandbox provider's customers (its stand-in for Stripe customers): created once per idempotency key,
 * removed with the cards charged for them when the account is deleted.
 */
export const sandboxCustomers = pgTable(
  "sandbox_customers",
  {
    id: text("id").primaryKey(),
    idempotencyKey: text("idempotency_key").notNull(),
    /** What Stripe keeps in the customer's metadata: our user id. */
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("sandbox_customers_idem_key").on(t.idempotencyKey)],
);

/** The payment provider's customer of each person, made once and reused for every payment. */
export const billingCustomers = pgTable(
  "billing_customers",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    customerId: text("customer_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("billing_customers_user_provider").on(t.userId, t.provider)],
);

/**
 * Provider customers of deleted accounts still to delete at the provider (a job works this list until it
 * is empty). Holds the provider's opaque id only, no person.
 */
export const providerCleanups = pgTable(
  "provider_cleanups",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    provider: text("provider").notNull(),
    customerId: text("customer_id").notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("provider_cleanups_key").on(t.provider, t.customerId)],
);

/**
 * Stored files still to remove (FILES_DIR/<area>/<name>), written in the same transaction that drops the
 * rows pointing at them; a job removes each file and then its row, retrying until the file is gone.
 * Names are server-generated and random: no person can be read from them.
 */
export const fileRemovals = pgTable(
  "file_removals",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    area: text("area").notNull(),
    name: text("name").notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("file_removals_key").on(t.area, t.name)],
);

/**
 * The deletion ledger (RELIABILITY X7): a SHA-256 of every deleted account's id, written in the deletion's
 * transaction and copied to DELETION_LEDGER outside the database. At start the server deletes again any
 * account whose id is listed, so restoring an older backup does not bring a deleted person back.
 */
export const deletedAccounts = pgTable("deleted_accounts", {
  idHash: text("id_hash").primaryKey(),
  deletedAt: ts("deleted_at").notNull().defaultNow(),
});
