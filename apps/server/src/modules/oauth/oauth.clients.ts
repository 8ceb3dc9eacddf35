import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { oauthClients } from "../../db/schema.ts";
import { randomToken, sha256 } from "../../lib/crypto.ts";

export type TokenPolicy = "non_expiring" | "expiring";
export type OAuthClientRow = typeof oauthClients.$inferSelect;

export type ClientRegistration = {
  id: string;
  name: string;
  redirectUris: string[];
  /** A public client has no secret and must use PKCE S256. */
  isPublic: boolean;
  tokenPolicy: TokenPolicy;
  scopes?: string[];
};

const CLIENT_ID_RE = /^[a-z0-9][a-z0-9_-]{1,63}$/;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

export class ClientRegistrationError extends Error {}

/**
 * A redirect URI a client may register: absolute, https (http only on loopback, for development), no
 * fragment, no userinfo. It is stored as given and later compared as an exact string (ASVS 10.4.1).
 */
export function checkRedirectUri(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "not an absolute URL";
  }
  // Stored as given and matched exactly, so only the form the URL parser keeps unchanged is accepted.
  if (url.href !== uri) return `not in canonical form (${url.href})`;
  if (url.hash || uri.includes("#")) return "must not have a fragment";
  if (url.username || url.password) return "must not carry user information";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return null;
  return "must use https (http only on localhost)";
}

/**
 * Registers a client, or replaces the redirect URIs, policy and secret of an existing one. Returns the
 * new client secret (shown once; only its SHA-256 is stored), or null for a public client.
 */
export async function registerOAuthClient(
  db: Db,
  input: ClientRegistration,
): Promise<{ secret: string | null; replaced: boolean }> {
  if (!CLIENT_ID_RE.test(input.id))
    throw new ClientRegistrationError("client id: 2–64 characters, a–z, 0–9, _ and -");
  const name = input.name.trim();
  if (!name || name.length > 100) throw new ClientRegistrationError("name: 1–100 characters");
  if (input.redirectUris.length === 0 || input.redirectUris.length > 10)
    throw new ClientRegistrationError("give 1–10 redirect URIs");
  for (const uri of input.redirectUris) {
    const problem = checkRedirectUri(uri);
    if (problem) throw new ClientRegistrationError(`redirect URI ${uri}: ${problem}`);
  }
  const secret = input.isPublic ? null : `tcs_${randomToken(32)}`;
  const values = {
    name,
    secretHash: secret ? sha256(secret) : null,
    redirectUris: [...new Set(input.redirectUris)],
    scopes: input.scopes ?? ["ifttt"],
    tokenPolicy: input.tokenPolicy,
  };
  const existing = await db
    .select({ id: oauthClients.id })
    .from(oauthClients)
    .where(eq(oauthClients.id, input.id));
  if (existing.length) {
    await db.update(oauthClients).set(values).where(eq(oauthClients.id, input.id));
  } else {
    await db.insert(oauthClients).values({ id: input.id, ...values });
  }
  return { secret, replaced: existing.length > 0 };
}

export async function findClient(db: Db, id: string): Promise<OAuthClientRow | null> {
  // No client id holds a NUL, and PostgreSQL would refuse one in a query (a Basic header or the
  // authorization's query string can carry it past the contract's schemas).
  if (id.includes("\0")) return null;
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, id)).limit(1);
  return row ?? null;
}
