import { z } from "zod";
import { encodeBody, parseRetryAfter, providerUrl, readJson, send } from "./connectors.http.ts";
import {
  type ClientCredentials,
  type ProviderDef,
  ProviderError,
  type TokenSet,
} from "./connectors.types.ts";

/**
 * Tonus as an OAuth2 client (RFC 6749): the authorization URL (with PKCE, RFC 7636, where the provider
 * supports it), the code exchange (§4.1.3) and the refresh (§6). Each provider's differences — client
 * authentication, extra parameters, Withings' wrapped answers — come from its ProviderDef.
 */

const StandardTokenSchema = z.object({
  access_token: z.string().min(1).max(8192),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().positive().optional(),
  refresh_token: z.string().min(1).max(8192).optional(),
  scope: z.string().optional(),
  /** Polar AccessLink names the person in the token answer. */
  x_user_id: z.union([z.string(), z.number()]).optional(),
  /** Fitbit does too. */
  user_id: z.union([z.string(), z.number()]).optional(),
});

/** Reads the RFC 6749 §5.1 token answer. */
export function readStandardToken(json: unknown, nowMs = Date.now()): TokenSet | null {
  const parsed = StandardTokenSchema.safeParse(json);
  if (!parsed.success) return null;
  const t = parsed.data;
  const userId = t.x_user_id ?? t.user_id;
  return {
    accessToken: t.access_token,
    refreshToken: t.refresh_token ?? null,
    expiresAt: t.expires_in ? new Date(nowMs + t.expires_in * 1000) : null,
    scope: t.scope ?? null,
    externalUserId: userId === undefined ? null : String(userId),
  };
}

/** The provider's authorization URL for one connect attempt. */
export function buildAuthorizationUrl(
  provider: ProviderDef,
  credentials: ClientCredentials,
  baseUrl: string | undefined,
  opts: { redirectUri: string; state: string; codeChallenge: string | null },
): string {
  const url = providerUrl(provider.endpoints.authorize, baseUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", credentials.clientId);
  url.searchParams.set("redirect_uri", opts.redirectUri);
  url.searchParams.set("scope", provider.scopes.join(provider.scopeSeparator));
  url.searchParams.set("state", opts.state);
  if (opts.codeChallenge) {
    url.searchParams.set("code_challenge", opts.codeChallenge);
    url.searchParams.set("code_challenge_method", "S256");
  }
  for (const [key, value] of Object.entries(provider.authorizeParams ?? {})) url.searchParams.set(key, value);
  return url.href;
}

/**
 * One request to the token endpoint. A refused grant (400/401, or Withings' non-zero status) is
 * `reconnect_needed`: the person has to connect again.
 */
async function requestToken(
  provider: ProviderDef,
  credentials: ClientCredentials,
  baseUrl: string | undefined,
  params: Record<string, string>,
): Promise<TokenSet> {
  const form: Record<string, string> = { ...provider.tokenParams, ...params };
  const headers: Record<string, string> = { accept: "application/json" };
  if (provider.clientAuth === "basic") {
    headers.authorization = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString("base64")}`;
  } else {
    form.client_id = credentials.clientId;
    form.client_secret = credentials.clientSecret;
  }
  const url = providerUrl(provider.endpoints.token, baseUrl);
  const encoded = encodeBody({ form });
  const response = await send(url, {
    method: "POST",
    headers: { ...headers, ...encoded.headers },
    body: encoded.body,
  });
  if (response.status === 429)
    throw new ProviderError(
      "rate_limited",
      "token endpoint rate limited",
      parseRetryAfter(response.headers.get("retry-after")),
    );
  if (response.status >= 500)
    throw new ProviderError("provider_unavailable", `token endpoint answered ${response.status}`);
  const json = await readJson(response).catch(() => null);
  if (response.status === 400 || response.status === 401) {
    const code = (json as { error?: unknown } | null)?.error;
    throw new ProviderError(
      "reconnect_needed",
      `token refused (${typeof code === "string" ? code.slice(0, 40) : response.status})`,
    );
  }
  if (!response.ok)
    throw new ProviderError("unexpected_response", `token endpoint answered ${response.status}`);
  const tokens = (provider.readToken ?? readStandardToken)(json);
  if (!tokens) throw new ProviderError("reconnect_needed", "token endpoint refused the grant");
  return tokens;
}

export function exchangeCode(
  provider: ProviderDef,
  credentials: ClientCredentials,
  baseUrl: string | undefined,
  opts: { code: string; redirectUri: string; codeVerifier: string | null },
): Promise<TokenSet> {
  return requestToken(provider, credentials, baseUrl, {
    grant_type: "authorization_code",
    code: opts.code,
    redirect_uri: opts.redirectUri,
    ...(opts.codeVerifier ? { code_verifier: opts.codeVerifier } : {}),
  });
}

/** Refreshes; a provider that answers no new refresh token (Google) keeps the old one. */
export async function refreshTokens(
  provider: ProviderDef,
  credentials: ClientCredentials,
  baseUrl: string | undefined,
  current: TokenSet,
): Promise<TokenSet> {
  if (!current.refreshToken)
    throw new ProviderError("reconnect_needed", "the access token expired and there is no refresh token");
  const next = await requestToken(provider, credentials, baseUrl, {
    grant_type: "refresh_token",
    refresh_token: current.refreshToken,
    ...provider.refreshParams,
  });
  return {
    ...next,
    refreshToken: next.refreshToken ?? current.refreshToken,
    externalUserId: next.externalUserId ?? current.externalUserId,
  };
}
