import type { ConnectorProvider } from "@tonus/contract";
import {
  type ProviderApi,
  type ProviderDef,
  ProviderError,
  type RequestInit,
  type TokenSet,
} from "./connectors.types.ts";

/**
 * HTTP to the providers: OAuth2 token requests (RFC 6749 §4.1.3 code exchange, §6 refresh) and an
 * authorized data client that refreshes before expiry and once on a 401, honours 429 `Retry-After`
 * (RFC 9110 §10.2.3) and the providers' rate-limit headers, spaces requests by the documented limit and
 * never sends a bearer token to a host other than the provider's. Tokens never appear in errors or logs.
 */

const REQUEST_TIMEOUT_MS = 30_000;
/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_MS = 60_000;
const DEFAULT_RETRY_AFTER_S = 60;
const MAX_RETRY_AFTER_S = 86_400;

/** A provider URL with the base-URL override applied: the override's origin, the real path and query. */
export function providerUrl(real: string, baseUrl: string | undefined): URL {
  const url = new URL(real);
  if (!baseUrl) return url;
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/$/, "");
  return new URL(`${prefix}${url.pathname}${url.search}`, base.origin);
}

/** Seconds to wait from a `Retry-After` header (delta-seconds or an HTTP date), within sane bounds. */
export function parseRetryAfter(header: string | null, nowMs = Date.now()): number {
  if (!header) return DEFAULT_RETRY_AFTER_S;
  const trimmed = header.trim();
  let seconds = /^\d+$/.test(trimmed) ? Number(trimmed) : (Date.parse(trimmed) - nowMs) / 1000;
  if (!Number.isFinite(seconds)) seconds = DEFAULT_RETRY_AFTER_S;
  return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(seconds)));
}

/** The rate-limit window a response announces is used up: seconds until it resets, else null. */
function exhaustedWindowS(headers: Headers): number | null {
  // Fitbit: fitbit-rate-limit-remaining/-reset; WHOOP: X-RateLimit-Remaining/-Reset (seconds).
  for (const prefix of ["fitbit-rate-limit", "x-ratelimit"]) {
    const remaining = headers.get(`${prefix}-remaining`);
    if (remaining === null || Number(remaining) > 0) continue;
    return parseRetryAfter(headers.get(`${prefix}-reset`));
  }
  return null;
}

const lastRequestAt = new Map<ConnectorProvider, number>();

/** Keeps this process's requests to one provider at least `minRequestIntervalMs` apart. */
async function spaceRequests(provider: ProviderDef): Promise<void> {
  if (provider.minRequestIntervalMs <= 0) return;
  const previous = lastRequestAt.get(provider.key) ?? 0;
  const waitMs = previous + provider.minRequestIntervalMs - Date.now();
  lastRequestAt.set(provider.key, Math.max(Date.now(), previous + provider.minRequestIntervalMs));
  if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
}

export async function send(url: URL, init: globalThis.RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    const reason = error instanceof Error ? error.name : "error";
    throw new ProviderError("provider_unavailable", `${url.host} unreachable (${reason})`);
  }
}

export async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError("unexpected_response", `${response.url || "provider"} answered no JSON`);
  }
}

export function encodeBody(init: RequestInit): { body?: string; headers: Record<string, string> } {
  if (init.form) {
    return {
      body: new URLSearchParams(init.form).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    };
  }
  if (init.body !== undefined)
    return { body: JSON.stringify(init.body), headers: { "content-type": "application/json" } };
  return { headers: {} };
}

/** Where one connection's tokens live while a client uses them; `refresh` stores the new ones. */
export type TokenHolder = {
  current: () => TokenSet;
  refresh: () => Promise<TokenSet>;
};

/** The authorized data client of one connection. */
export function createProviderApi(
  provider: ProviderDef,
  baseUrl: string | undefined,
  tokens: TokenHolder,
  clock: () => number = Date.now,
): ProviderApi {
  const apiBase = providerUrl(provider.endpoints.api, baseUrl);
  let pausedUntilMs = 0;

  async function authorized(url: URL, init: RequestInit): Promise<Response> {
    if (url.origin !== apiBase.origin)
      throw new ProviderError("unexpected_response", `refusing to send a token to ${url.host}`);
    if (pausedUntilMs > clock())
      throw new ProviderError(
        "rate_limited",
        "rate-limit window used up",
        Math.ceil((pausedUntilMs - clock()) / 1000),
      );
    let token = tokens.current();
    if (token.expiresAt && token.expiresAt.getTime() - REFRESH_MARGIN_MS < clock())
      token = await tokens.refresh();
    const encoded = encodeBody(init);
    for (let attempt = 0; ; attempt++) {
      await spaceRequests(provider);
      const response = await send(url, {
        method: init.method ?? "GET",
        headers: {
          accept: "application/json",
          ...provider.headers,
          ...encoded.headers,
          authorization: `Bearer ${token.accessToken}`,
        },
        body: encoded.body,
      });
      const window = exhaustedWindowS(response.headers);
      if (window !== null) pausedUntilMs = clock() + window * 1000;
      if (response.status === 401 && attempt === 0) {
        await response.body?.cancel();
        token = await tokens.refresh();
        continue;
      }
      return response;
    }
  }

  async function verdictOf(response: Response, allow: (status: number) => boolean) {
    const { status } = response;
    if (status === 429) {
      await response.body?.cancel();
      throw new ProviderError(
        "rate_limited",
        `${url(response)} rate limited`,
        parseRetryAfter(response.headers.get("retry-after"), clock()),
      );
    }
    if (status === 401)
      throw new ProviderError("reconnect_needed", "the provider refused the refreshed token");
    if (status >= 500) throw new ProviderError("provider_unavailable", `${url(response)} answered ${status}`);
    if (!(status >= 200 && status < 300) && !allow(status)) {
      if (status === 403) throw new ProviderError("forbidden", `${url(response)} answered 403`);
      throw new ProviderError("unexpected_response", `${url(response)} answered ${status}`);
    }
    return readJson(response);
  }

  const url = (response: Response) => new URL(response.url || apiBase.href).pathname;

  async function checked(target: URL, init: RequestInit, allow: (status: number) => boolean) {
    let response = await authorized(target, init);
    let json = await verdictOf(response, allow);
    const verdict = provider.checkBody?.(json) ?? { kind: "ok" as const };
    if (verdict.kind === "auth") {
      // Withings reports an expired token inside a 200: refresh once, as for a 401.
      await tokens.refresh();
      response = await authorized(target, init);
      json = await verdictOf(response, allow);
      const again = provider.checkBody?.(json) ?? { kind: "ok" as const };
      if (again.kind === "auth")
        throw new ProviderError("reconnect_needed", "the provider refused the refreshed token");
      return { status: response.status, json: checkedJson(again, json) };
    }
    return { status: response.status, json: checkedJson(verdict, json) };
  }

  return {
    url(path, query) {
      const target = new URL(`${apiBase.pathname.replace(/\/$/, "")}${path}`, apiBase.origin);
      for (const [key, value] of Object.entries(query ?? {}))
        if (value !== undefined) target.searchParams.set(key, String(value));
      return target;
    },
    async json(target, init = {}) {
      return (await checked(target, init, () => false)).json;
    },
    send(target, init = {}) {
      return checked(target, init, (status) => status >= 400 && status < 500 && status !== 403);
    },
    isOwnUrl(href) {
      const parsed = URL.parse(href);
      return parsed !== null && parsed.origin === apiBase.origin && !parsed.username && !parsed.password;
    },
  };
}

function checkedJson(verdict: ReturnType<NonNullable<ProviderDef["checkBody"]>>, json: unknown): unknown {
  if (verdict.kind === "rate")
    throw new ProviderError("rate_limited", "provider reported its rate limit", verdict.retryAfterS);
  if (verdict.kind === "error") throw new ProviderError("unexpected_response", verdict.detail);
  return json;
}
