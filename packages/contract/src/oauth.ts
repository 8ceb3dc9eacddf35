import { z } from "zod";
import { storableText } from "./common.ts";

/**
 * The OAuth2 authorization server (IFTTT first, any registered client after), the connected-services
 * list, and first-party analytics. Paths live here rather than in paths.ts so this domain's wire format
 * is read in one place.
 */
export const OAUTH_API = {
  /** The browser's entry: validates the request and sends it to the consent page (spec §7). */
  authorize: "/oauth2/authorize/",
  /** Code → tokens, refresh → rotated tokens; client credentials in the body or HTTP Basic. */
  token: "/oauth2/token/",
  /** One pending authorization, as the consent page shows it (signed-in user). */
  request: "/dashboard_api/v1/oauth/requests/:id/",
  /** The person's decision on a pending authorization; answers where the browser goes next. */
  decision: "/dashboard_api/v1/oauth/requests/:id/decision/",
  /** Services the person has given access (GET), and one of them to revoke (DELETE). */
  connectedServices: "/dashboard_api/v1/user/connected-services/",
  connectedService: "/dashboard_api/v1/user/connected-services/:id/",
  /** First-party analytics ingest (spec §7 "POST /api/v1/send"). */
  analyticsSend: "/api/v1/send",
  /** Operators only: daily active users and the key funnel from the analytics events. */
  analyticsSummary: "/dashboard_api/v1/operator/analytics/",
} as const;

/**
 * The token endpoint's form (RFC 6749 §4.1.3, §6), sent as `application/x-www-form-urlencoded` (JSON is
 * accepted too): every field is a string; which ones are required depends on `grant_type` and on how the
 * client authenticates, so the endpoint checks that and answers RFC 6749 §5.2 errors.
 */
export const OAuthTokenRequestSchema = z.object({
  grant_type: storableText(100).optional(),
  code: storableText(500).optional(),
  redirect_uri: storableText(2000).optional(),
  code_verifier: storableText(200).optional(),
  refresh_token: storableText(500).optional(),
  client_id: storableText(200).optional(),
  client_secret: storableText(500).optional(),
  scope: storableText(500).optional(),
});
export type OAuthTokenRequest = z.infer<typeof OAuthTokenRequestSchema>;

/** The web page showing the consent ("Authorize IFTTT", spec §2); `?request=<id>`, never `scope`. */
export const OAUTH_CONSENT_PAGE = "/oauth2/authorize/ifttt";

/** What a client may be given. `ifttt`: the IFTTT service API (read measurements, log readings). */
export const OAuthScopeSchema = z.enum(["ifttt"]);
export type OAuthScope = z.infer<typeof OAuthScopeSchema>;

export const OAuthRequestInfoSchema = z.object({
  id: z.string(),
  client: z.object({ id: z.string(), name: z.string() }),
  scopes: z.array(OAuthScopeSchema),
  /** Where the browser returns afterwards (scheme and host only), shown on the consent page. */
  redirect_origin: z.string(),
});
export type OAuthRequestInfo = z.infer<typeof OAuthRequestInfoSchema>;

export const OAuthDecisionRequestSchema = z.strictObject({ approve: z.boolean() });
export type OAuthDecisionRequest = z.infer<typeof OAuthDecisionRequestSchema>;

/** The client's registered redirect URI with `code` and `state`, or `error=access_denied`. */
export const OAuthDecisionSchema = z.object({ redirect_to: z.string() });
export type OAuthDecision = z.infer<typeof OAuthDecisionSchema>;

export const ConnectedServiceSchema = z.object({
  id: z.string(),
  client_id: z.string(),
  name: z.string(),
  scopes: z.array(OAuthScopeSchema),
  connected: z.string(),
  last_used: z.string().nullable(),
});
export type ConnectedService = z.infer<typeof ConnectedServiceSchema>;

export const ConnectedServiceListSchema = z.object({ results: z.array(ConnectedServiceSchema) });
export type ConnectedServiceList = z.infer<typeof ConnectedServiceListSchema>;

/**
 * Analytics event names the server stores; anything else is dropped. No name or property ever carries
 * a health value (RELIABILITY A6, ASVS 14.2.3).
 */
export const ANALYTICS_EVENT_NAMES = [
  "page_view",
  "sign_up",
  "sign_in",
  "measurement_started",
  "measurement_completed",
  "upgrade_viewed",
  "upgrade_completed",
  "chart_added",
  "academy_material_opened",
  "share_link_created",
  "service_connected",
] as const;

/** Property keys kept (string or boolean values only); any other key, and any number, is dropped. */
export const ANALYTICS_PROPERTY_KEYS = [
  "path",
  "locale",
  "source",
  "plan",
  "platform",
  "screen",
  "material_id",
  "course_id",
  "chart_id",
  "client_id",
  "method",
] as const;

export const AnalyticsEventSchema = z.object({
  event_id: z.uuid(),
  /** One of ANALYTICS_EVENT_NAMES; others are dropped. */
  event_name: z.string().max(64),
  /** Pseudonymised on arrival (keyed hash); the raw value is never stored. */
  user_id: z.string().max(100).nullish(),
  device_id: z.string().max(100).nullish(),
  date_created: z.iso.datetime({ offset: true }),
  /** IANA time zone of the person, for the time-of-day bucket; UTC when absent or unknown. */
  timezone: z.string().max(64).nullish(),
  event_props: z.record(z.string().max(64), z.unknown()).optional(),
});
export type AnalyticsEvent = z.infer<typeof AnalyticsEventSchema>;

/** One event, or a batch of up to 100. */
export const AnalyticsSendRequestSchema = z.union([
  AnalyticsEventSchema,
  z.object({ events: z.array(AnalyticsEventSchema).min(1).max(100) }),
]);
export type AnalyticsSendRequest = z.infer<typeof AnalyticsSendRequestSchema>;

export const AnalyticsSendResultSchema = z.object({
  stored: z.number().int(),
  duplicates: z.number().int(),
  dropped: z.number().int(),
});
export type AnalyticsSendResult = z.infer<typeof AnalyticsSendResultSchema>;

/** Time-of-day buckets (spec §7), half-open hours in the person's time zone. */
export const TimeOfDaySchema = z.enum(["night", "morning", "day", "evening"]);
export type TimeOfDay = z.infer<typeof TimeOfDaySchema>;

/** Daily active users (distinct pseudonymous people with any event) and the sign-up → measurement → upgrade funnel. */
export const AnalyticsSummarySchema = z.object({
  days: z.number().int(),
  daily_active_users: z.array(z.object({ date: z.string(), users: z.number().int() })),
  funnel: z.array(
    z.object({
      step: z.enum(["sign_up", "measurement_completed", "upgrade_completed"]),
      users: z.number().int(),
    }),
  ),
});
export type AnalyticsSummary = z.infer<typeof AnalyticsSummarySchema>;
