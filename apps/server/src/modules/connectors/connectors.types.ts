import type { ConnectorErrorCode, ConnectorProvider, MetricKey } from "@tonus/contract";

/**
 * What a provider is to Tonus: its OAuth2 endpoints and conventions, and the data streams a sync reads.
 * One file per provider in `providers/` describes it from the vendor's published documentation.
 */

/** Tokens as a provider's token endpoint answers them, normalised. */
export type TokenSet = {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  scope: string | null;
  /** The provider's id for the person when the token answer names it (Withings `userid`, Polar `x_user_id`). */
  externalUserId: string | null;
};

/** The provider's own URLs. A base-URL override (`<PROVIDER>_BASE_URL`) replaces each origin, keeping paths. */
export type Endpoints = {
  authorize: string;
  token: string;
  /** The data API's origin (and path prefix, if any). */
  api: string;
  revoke?: string;
};

/** What an answer's body says when the provider reports status inside HTTP 200 (Withings). */
export type BodyVerdict =
  | { kind: "ok" }
  | { kind: "auth" }
  | { kind: "rate"; retryAfterS: number }
  | { kind: "error"; detail: string };

export type RequestInit = {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  /** Sent as `application/x-www-form-urlencoded`. */
  form?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
};

/** An authorized client of one connection's provider API (refreshes tokens, honours rate limits). */
export type ProviderApi = {
  /** A URL on the provider's data API (override applied). */
  url: (path: string, query?: Record<string, string | number | undefined>) => URL;
  /** Sends and answers the parsed JSON of a 2xx (null for an empty body); throws a ProviderError otherwise. */
  json: (url: URL, init?: RequestInit) => Promise<unknown>;
  /** Sends and answers status and JSON for any 2xx or 4xx the caller handles itself (409 on a re-register). */
  send: (url: URL, init?: RequestInit) => Promise<{ status: number; json: unknown }>;
  /** True for an absolute URL on the provider's API origin: bearer tokens never go anywhere else. */
  isOwnUrl: (href: string) => boolean;
};

/** A value a provider record maps to; `value` null or undefined means the record has no such value. */
export type MappedValue = {
  metric: MetricKey;
  at: Date | null;
  value: number | null | undefined;
  /** Stable for the provider record and metric: a repeated sync writes the same key. */
  clientId: string;
};

/** A blood-pressure reading for the log (bp module), keyed by a name-based UUID of the provider record. */
export type MappedReading = {
  clientId: string;
  systolic: number;
  diastolic: number;
  pulse: number | null;
  measuredAt: Date;
  timeZone: string;
};

export type StreamContext = {
  api: ProviderApi;
  /** The person's profile time zone: local times and days without an offset are read in it. */
  tz: string;
  now: Date;
  /** Where the first sync's history starts (CONNECTORS_HISTORY_DAYS before connecting). */
  historyStart: Date;
  externalUserId: string | null;
};

export type StreamPage = {
  values: MappedValue[];
  readings?: MappedReading[];
  /** Records the provider sent that could not be read at all. */
  malformed?: number;
  /** Values left out for a provider-specific reason (Withings: a measure of someone else), by reason. */
  refused?: Record<string, number>;
  /** The stream's cursor once this page's data is committed. */
  next: unknown;
  /** True when the stream is caught up. */
  done: boolean;
  /** Provider-side work after this page's data is committed (Polar commits its transaction). */
  afterCommit?: () => Promise<void>;
};

/** One kind of data a provider serves, read page by page from a cursor (null on the first sync). */
export type StreamDef = {
  key: string;
  fetchPage: (ctx: StreamContext, cursor: unknown) => Promise<StreamPage>;
};

export type ClientCredentials = { clientId: string; clientSecret: string };

export type RevokeContext = {
  tokens: TokenSet;
  externalUserId: string | null;
  credentials: ClientCredentials;
  /** A provider URL (override applied) for one of its real URLs. */
  urlOf: (real: string) => URL;
  fetch: (url: URL, init: globalThis.RequestInit) => Promise<Response>;
};

export type ProviderDef = {
  key: ConnectorProvider;
  name: string;
  /** The catalogue's data-source page of this provider (where a connect returns by default). */
  slug: string;
  /** The dashboard source its values are stored under. */
  source: string;
  hasExportFile: boolean;
  /** The day the vendor turns the API off (`YYYY-MM-DD`, UTC), if announced: no connect or sync from then. */
  retiredOn?: string;
  metrics: MetricKey[];
  bloodPressure: boolean;
  endpoints: Endpoints;
  scopes: readonly string[];
  scopeSeparator: " " | ",";
  /** PKCE (S256) where the provider documents it. */
  pkce: boolean;
  /** Extra authorization parameters (Google's `access_type=offline`). */
  authorizeParams?: Record<string, string>;
  /** How the client authenticates at the token endpoint. */
  clientAuth: "basic" | "body";
  /** Extra form fields on every token request (Withings `action=requesttoken`). */
  tokenParams?: Record<string, string>;
  /** Extra form fields on a refresh (WHOOP names `scope=offline` again). */
  refreshParams?: Record<string, string>;
  /** Reads a token answer; the standard RFC 6749 shape when absent. */
  readToken?: (json: unknown) => TokenSet | null;
  /** Spacing between requests of one process to this provider, from its documented rate limit. */
  minRequestIntervalMs: number;
  /**
   * Whom the provider's documented rate limit counts: the whole app (a used-up window pauses every
   * connection of this process) or each person (only that connection waits).
   */
  rateLimitScope: "app" | "person";
  /** Reads a status reported inside a 2xx body. */
  checkBody?: (json: unknown) => BodyVerdict;
  /** Headers sent with every data request. */
  headers?: Record<string, string>;
  /** After the token exchange, before the connection is stored (Polar registers the person). */
  afterConnect?: (api: ProviderApi, tokens: TokenSet, memberId: string) => Promise<void>;
  /** Revokes the grant at the provider; throws when the provider did not confirm. */
  revoke: (ctx: RevokeContext) => Promise<void>;
  streams: readonly StreamDef[];
};

/**
 * A provider call that failed in a way the sync reports and reacts to. `forbidden` (403) concerns one
 * stream (a scope the person did not grant): that stream is left out, the others go on.
 */
export type ProviderErrorCode = ConnectorErrorCode | "forbidden";

export class ProviderError extends Error {
  readonly code: ProviderErrorCode;
  /** For `rate_limited`: seconds the provider asked to wait. */
  readonly retryAfterS: number;
  constructor(code: ProviderErrorCode, message: string, retryAfterS = 0) {
    super(message);
    this.code = code;
    this.retryAfterS = retryAfterS;
  }
}
