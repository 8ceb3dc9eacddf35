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
 * A limit the provider counts per app (WHOOP, Withings, Polar) pauses every connection of this process
 * to that provider; one counted per person (Oura, Fitbit, Google) pauses only that connection.
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

/** Numbers of a header that lists one value per window (`"5, 20"`); empty when absent or unreadable. */
function listed(headers: Headers, name: string): number[] {
  const raw = headers.get(name);
  if (raw === null) return [];
  const values = raw.split(",").map((v) => Number(v.trim()));
  return values.every((v) => Number.isFinite(v)) ? values : [];
}

/**
 * The provider's own word on when its rate-limit window resets (seconds), when it sent one: Fitbit's
 * `Fitbit-Rate-Limit-Reset`, WHOOP's `X-RateLimit-Reset`, Polar's `RateLimit-Reset` (the longest of its
 * windows that is used up, else the first).
 */
function resetHintS(headers: Headers): number | null {
  for (const name of ["fitbit-rate-limit-reset", "x-ratelimit-reset"]) {
    const [reset] = listed(headers, name);
    if (reset !== undefined) return parseRetryAfter(String(Math.max(0, Math.ceil(reset))));
  }
  const reset = listed(headers, "ratelimit-reset");
  if (reset.length === 0) return null;
  const used = polarWindowsUsedUp(headers);
  const pick = used.length > 0 ? Math.max(...used.map((i) => reset[i] ?? reset[0] ?? 0)) : (reset[0] ?? 0);
  return parseRetryAfter(String(Math.max(0, Math.ceil(pick))));
}

/** Polar: the windows (short, long) whose `RateLimit-Usage` has reached `RateLimit-Limit`. */
function polarWindowsUsedUp(headers: Headers): number[] {
  const usage = listed(headers, "ratelimit-usage");
  const limit = listed(headers, "ratelimit-limit");
  return usage.flatMap((u, i) => (limit[i] !== undefined && u >= (limit[i] as number) ? [i] : []));
}

/** The rate-limit window a response announces is used up: seconds until it resets, else null. */
function exhaustedWindowS(headers: Headers): number | null {
  // Fitbit: fitbit-rate-limit-remaining/-reset; WHOOP: X-RateLimit-Remaining/-Reset (seconds).
  for (const prefix of ["fitbit-rate-limit", "x-ratelimit"]) {
    const remaining = headers.get(`${prefix}-remaining`);
    if (remaining === null || Number(remaining) > 0) continue;
    return resetHintS(headers) ?? DEFAULT_RETRY_AFTER_S;
  }
  if (polarWindowsUsedUp(headers).length > 0) return resetHintS(headers) ?? DEFAULT_RETRY_AFTER_S;
  return null;
}

/**
 * One process's pacing of requests to each provider: requests at least the provider's
 * `minRequestIntervalMs` apart, and pauses of a limit counted per app. `now` and `sleep` are the real
 * clock and timer, or a test's virtual ones.
 */
export type RequestPacer = {
  /** Resolves when a request to `provider` may go out, keeping the spacing. */
  space: (provider: ProviderDef) => Promise<void>;
  /** When the app-wide pause of `provider` ends (ms, on the caller's clock); 0 when not paused. */
  pausedUntil: (provider: ProviderDef) => number;
  /** Pauses every connection's requests to `provider` until `untilMs` (a limit counted per app). */
  pause: (provider: ProviderDef, untilMs: number) => void;
};

export function createPacer(
  now: () => number = Date.now,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): RequestPacer {
  const lastRequestAt = new Map<ConnectorProvider, number>();
  const paused = new Map<ConnectorProvider, number>();
  return {
    async space(provider) {
      if (provider.minRequestIntervalMs <= 0) return;
      const previous = lastRequestAt.get(provider.key) ?? Number.NEGATIVE_INFINITY;
      const at = now();
      const waitMs = previous + provider.minRequestIntervalMs - at;
      lastRequestAt.set(provider.key, Math.max(at, previous + provider.minRequestIntervalMs));
      if (waitMs > 0) await sleep(waitMs);
    },
    pausedUntil: (provider) => paused.get(provider.key) ?? 0,
    pause(provider, untilMs) {
      paused.set(provider.key, Math.max(paused.get(provider.key) ?? 0, untilMs));
    },
  };
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
  pacer: RequestPacer = createPacer(),
): ProviderApi {
  const apiBase = providerUrl(provider.endpoints.api, baseUrl);
  let pausedUntilMs = 0;
  const isAppWide = provider.rateLimitScope === "app";

  /** No request until `seconds` from now: this connection, and every one when the limit is the app's. */
  function pauseFor(seconds: number) {
    const until = clock() + seconds * 1000;
    pausedUntilMs = Math.max(pausedUntilMs, until);
    if (isAppWide) pacer.pause(provider, until);
  }

  async function authorized(url: URL, init: RequestInit): Promise<Response> {
    if (url.origin !== apiBase.origin)
      throw new ProviderError("unexpected_response", `refusing to send a token to ${url.host}`);
    const pausedUntil = Math.max(pausedUntilMs, isAppWide ? pacer.pausedUntil(provider) : 0);
    if (pausedUntil > clock())
      throw new ProviderError(
        "rate_limited",
        "rate-limit window used up",
        Math.ceil((pausedUntil - clock()) / 1000),
      );
    let token = tokens.current();
    if (token.expiresAt && token.expiresAt.getTime() - REFRESH_MARGIN_MS < clock())
      token = await tokens.refresh();
    const encoded = encodeBody(init);
    for (let attempt = 0; ; attempt++) {
      await pacer.space(provider);
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
      if (window !== null) pauseFor(window);
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
      // Retry-After when sent, else the provider's reset header (WHOOP sends only that); with neither
      // (Google) the sync backs off exponentially (`retryAfterS` 0).
      const retryAfter = response.headers.get("retry-after");
      const waitS =
        retryAfter !== null ? parseRetryAfter(retryAfter, clock()) : (resetHintS(response.headers) ?? 0);
      pauseFor(waitS || DEFAULT_RETRY_AFTER_S);
      throw new ProviderError("rate_limited", `${url(response)} rate limited`, waitS);
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
      return { status: response.status, json: checkedJson(again, json, pauseFor) };
    }
    return { status: response.status, json: checkedJson(verdict, json, pauseFor) };
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

function checkedJson(
  verdict: ReturnType<NonNullable<ProviderDef["checkBody"]>>,
  json: unknown,
  pauseFor: (seconds: number) => void,
): unknown {
  if (verdict.kind === "rate") {
    pauseFor(verdict.retryAfterS);
    throw new ProviderError("rate_limited", "provider reported its rate limit", verdict.retryAfterS);
  }
  if (verdict.kind === "error") throw new ProviderError("unexpected_response", verdict.detail);
  return json;
}
