import type { Db, RawQuery } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import { sha256 } from "../../lib/crypto.ts";
import { hitRateLimit } from "../../lib/rate-limit.ts";
import { OAuthError, type TokenAnswer, type TokenRequest, tokenEndpoint } from "./oauth.service.ts";

/**
 * Failed client authentications at the token endpoint are limited per client id and per IP in the shared
 * database-backed windows (so the limits hold across restarts and instances). Past a limit the endpoint
 * answers 429 with Retry-After before it looks at the secret. Client secrets are 256-bit, so this is not
 * what keeps them safe; it stops a caller from hammering the endpoint. The per-client window can be filled
 * by a stranger to shut that client out until it ends, so it is the more generous one, and each address
 * gets fewer failures than the client: one address alone cannot lock a client out.
 */
export const TOKEN_FAILURE_WINDOW_MS = 15 * 60_000;
export const TOKEN_FAILURES_PER_IP = 20;
export const TOKEN_FAILURES_PER_CLIENT = 50;

/** The client id a request claims (Basic or body), unverified: only a key for the limit. */
function claimedClientId(req: TokenRequest): string | null {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.authorization ?? "");
  if (basic) {
    const decoded = Buffer.from(basic[1] ?? "", "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    try {
      return colon > 0 ? decodeURIComponent(decoded.slice(0, colon).replaceAll("+", " ")) : null;
    } catch {
      return null;
    }
  }
  return req.fields.get("client_id") || null;
}

/** The token endpoint behind the failure limits; `ip` is the caller's address. */
export async function tokenEndpointLimited(
  deps: { db: Db; query: RawQuery },
  req: TokenRequest,
  ip: string,
  now = new Date(),
): Promise<TokenAnswer> {
  const clientId = claimedClientId(req);
  const keys = [
    { key: `oauth-token:ip:${ip}`, limit: TOKEN_FAILURES_PER_IP },
    ...(clientId
      ? [{ key: `oauth-token:client:${sha256(clientId)}`, limit: TOKEN_FAILURES_PER_CLIENT }]
      : []),
  ];
  for (const k of keys) {
    const state = await hitRateLimit(deps.query, {
      key: k.key,
      windowMs: TOKEN_FAILURE_WINDOW_MS,
      weight: 0,
      now,
    });
    if (state.count >= k.limit)
      throw new AppError("rate_limited", "Too many failed client authentications, try again later", {
        retryAfterS: state.retryAfterS,
      });
  }
  try {
    return await tokenEndpoint(deps.db, req, now);
  } catch (error) {
    if (error instanceof OAuthError && error.error === "invalid_client") {
      for (const k of keys)
        await hitRateLimit(deps.query, { key: k.key, windowMs: TOKEN_FAILURE_WINDOW_MS, now });
    }
    throw error;
  }
}
