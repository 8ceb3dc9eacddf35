import { z } from "zod";
import { MetricKeySchema } from "./dashboard.ts";

/**
 * Cloud connectors (issue 7, PRODUCT.md §7): Tonus as an OAuth2 *client* of a vendor's API, reading the
 * person's data into the dashboard in the background. A provider is connectable only when the operator
 * configured its client credentials; the list says which are. Paths live here so the domain's wire
 * format reads in one place.
 */
export const CONNECTORS_API = {
  /** Every provider with the caller's connection to it (GET). */
  list: "/dashboard_api/v1/connectors/",
  /** One provider's state (GET); disconnect (DELETE): the token is revoked at the provider, then deleted. */
  one: "/dashboard_api/v1/connectors/:provider/",
  /** Starts the authorization-code flow (POST); answers the provider's authorization URL. */
  connect: "/dashboard_api/v1/connectors/:provider/connect/",
  /** Where the provider sends the browser back (GET); lands on the data-source page with a result flag. */
  callback: "/dashboard_api/v1/connectors/:provider/callback/",
  /** Asks for a sync now (POST); the sync runs as a background job. */
  sync: "/dashboard_api/v1/connectors/:provider/sync/",
} as const;

/**
 * Providers with self-serve OAuth2 APIs. `google_health` is the Google Health API, the successor of the
 * Fitbit Web API (same Fitbit account data, Google OAuth).
 */
export const ConnectorProviderSchema = z.enum([
  "oura",
  "withings",
  "polar",
  "fitbit",
  "google_health",
  "whoop",
]);
export type ConnectorProvider = z.infer<typeof ConnectorProviderSchema>;

/**
 * Query flags the callback adds to the data-source page it lands on: `connect=ok`, or `connect=error`
 * with `reason` (`denied` when the person refused at the provider, `expired` for an unknown or stale
 * attempt, `failed` when the provider's answer could not be used).
 */
export const ConnectResultReasonSchema = z.enum(["denied", "expired", "failed"]);
export type ConnectResultReason = z.infer<typeof ConnectResultReasonSchema>;

/** Pages a connect may return to: a data-source page, in the web or the mobile-back variant. */
export const CONNECT_RETURN_PATH_RE = /^\/data-sources(-mobile-back)?\/[a-z0-9][a-z0-9-]{0,79}$/;

export const ConnectRequestSchema = z.strictObject({
  /** The page to land on afterwards (`/data-sources/<slug>`); the provider's own page when absent. */
  return_to: z.string().max(200).regex(CONNECT_RETURN_PATH_RE).optional(),
});
export type ConnectRequest = z.infer<typeof ConnectRequestSchema>;

export const ConnectResponseSchema = z.object({ authorization_url: z.string() });
export type ConnectResponse = z.infer<typeof ConnectResponseSchema>;

/**
 * Why the last sync failed, as a stable code the web maps to its own text:
 * - `rate_limited`: the provider asked us to wait (429 / its rate-limit headers); it resumes by itself;
 * - `provider_unavailable`: the provider's server failed or timed out; retried with backoff;
 * - `reconnect_needed`: the provider refused the token or its refresh (revoked access, changed password);
 * - `unexpected_response`: the provider answered something Tonus could not read.
 */
export const ConnectorErrorCodeSchema = z.enum([
  "rate_limited",
  "provider_unavailable",
  "reconnect_needed",
  "unexpected_response",
]);
export type ConnectorErrorCode = z.infer<typeof ConnectorErrorCodeSchema>;

/**
 * One sync's report. Each value the provider reported and Tonus maps to a metric counts once:
 * `read = imported + skipped + rejected`. `skipped`: already stored unchanged (a repeated sync adds
 * nothing); `rejected`: outside the metric's plausible range or malformed, by reason.
 */
export const SyncReportSchema = z.object({
  read: z.number().int(),
  imported: z.number().int(),
  skipped: z.number().int(),
  rejected: z.number().int(),
  rejected_reasons: z.record(z.string(), z.number().int()),
});
export type SyncReport = z.infer<typeof SyncReportSchema>;

/** `idle`: nothing pending; `queued`: asked for and waiting for the job runner; `running`; `waiting`: backing off until `retry_at`. */
export const SyncStateSchema = z.enum(["idle", "queued", "running", "waiting"]);
export type SyncState = z.infer<typeof SyncStateSchema>;

export const ConnectionSchema = z.object({
  /** `active`, or `reconnect_needed` once the provider refused the token: connect again to resume. */
  status: z.enum(["active", "reconnect_needed"]),
  connected_at: z.string(),
  last_sync_at: z.string().nullable(),
  last_sync_report: SyncReportSchema.nullable(),
  sync_state: SyncStateSchema,
  /** While `waiting`: the earliest time the next attempt runs. */
  retry_at: z.string().nullable(),
  last_error: z.object({ code: ConnectorErrorCodeSchema, at: z.string() }).nullable(),
});
export type Connection = z.infer<typeof ConnectionSchema>;

export const ConnectorSchema = z.object({
  provider: ConnectorProviderSchema,
  /** The vendor's name (a brand, the same in every language). */
  name: z.string(),
  /** True when the operator configured this provider's client id and secret on this installation. */
  configured: z.boolean(),
  /**
   * The day (`YYYY-MM-DD`) the vendor turns (or turned) this API off, if it announced one. From that day
   * on it cannot be connected or synced (the legacy Fitbit Web API: off on 2026-10-30, succeeded by the
   * Google Health API).
   */
  retired_on: z.iso.date().nullable(),
  /** True when the vendor also offers an export file that the data-source page can import instead. */
  has_export_file: z.boolean(),
  /** The dashboard metrics a sync brings in. */
  metrics: z.array(MetricKeySchema),
  /** Readings that go to the blood-pressure log instead of the charts' own store. */
  blood_pressure: z.boolean(),
  connection: ConnectionSchema.nullable(),
});
export type Connector = z.infer<typeof ConnectorSchema>;

export const ConnectorListSchema = z.object({ results: z.array(ConnectorSchema) });
export type ConnectorList = z.infer<typeof ConnectorListSchema>;

/** Disconnect: the connection is gone either way; `revoked` says whether the provider confirmed it. */
export const DisconnectResponseSchema = z.object({ ok: z.literal(true), revoked: z.boolean() });
export type DisconnectResponse = z.infer<typeof DisconnectResponseSchema>;
