import { createHash } from "node:crypto";
import {
  type ConnectedService,
  OAUTH_CONSENT_PAGE,
  type OAuthRequestInfo,
  type OAuthScope,
  OAuthScopeSchema,
} from "@tonus/contract";
import { and, desc, eq, gt, isNull, lt, or } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import type { Db } from "../../db/client.ts";
import { oauthClients, oauthCodes, oauthGrants, oauthRequests, oauthTokens } from "../../db/schema.ts";
import { AppError } from "../../lib/app-error.ts";
import { writeAudit } from "../../lib/audit.ts";
import { randomToken, safeEqual, sha256 } from "../../lib/crypto.ts";
import { findClient, type OAuthClientRow } from "./oauth.clients.ts";

const MINUTE_MS = 60_000;
/** ASVS 10.4.3: codes live at most 10 minutes. */
export const CODE_TTL_MS = 10 * MINUTE_MS;
/** How long a pending authorization waits for the person (sign-in included). */
export const REQUEST_TTL_MS = 30 * MINUTE_MS;
/** Expiring clients: one-hour access tokens, refresh tokens with a 30-day absolute lifetime (ASVS 10.4.8). */
export const ACCESS_TTL_MS = 60 * MINUTE_MS;
export const REFRESH_TTL_MS = 30 * 24 * 60 * MINUTE_MS;

export const ACCESS_TOKEN_PREFIX = "toa_";
export const REFRESH_TOKEN_PREFIX = "tor_";

const PKCE_RE = /^[A-Za-z0-9._~-]{43,128}$/;

/** RFC 6749 §5.2 error answers of the token endpoint. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope";

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  readonly status: number;
  constructor(error: OAuthErrorCode, description: string) {
    super(description);
    this.error = error;
    this.status = error === "invalid_client" ? 401 : 400;
  }
}

/** Where `/oauth2/authorize/` sends the browser: the consent page, or back to the client with an error. */
export type AuthorizeOutcome =
  | { kind: "consent"; location: string }
  | { kind: "client_error"; location: string }
  /** The client or redirect URI cannot be trusted: an error page and no redirect (ASVS 10.4.1). */
  | { kind: "refuse"; message: string };

function single(query: Record<string, unknown>, name: string): string | undefined | null {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string") return null; // repeated parameter (RFC 6749 §3.1)
  return v;
}

/** Appends OAuth answer parameters to a registered redirect URI, keeping its own query. */
export function withParams(uri: string, params: Record<string, string | undefined | null>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v != null) url.searchParams.set(k, v);
  return url.toString();
}

function parseScopes(client: OAuthClientRow, raw: string | undefined): OAuthScope[] | null {
  const allowed = new Set(client.scopes);
  const wanted = raw === undefined || raw.trim() === "" ? client.scopes : raw.trim().split(/\s+/);
  const out: OAuthScope[] = [];
  for (const s of wanted) {
    const parsed = OAuthScopeSchema.safeParse(s);
    if (!parsed.success || !allowed.has(s)) return null;
    if (!out.includes(parsed.data)) out.push(parsed.data);
  }
  return out.length ? out : null;
}

/**
 * Validates an authorization request (RFC 6749 §4.1.1, RFC 7636). The client and the exactly
 * registered redirect URI are checked first: until both hold, nothing redirects anywhere. Then every
 * other problem goes back to the client as `error=…`; a valid request is kept as a pending
 * authorization and the browser goes to the consent page.
 */
export async function startAuthorization(
  db: Db,
  query: Record<string, unknown>,
  now = new Date(),
): Promise<AuthorizeOutcome> {
  const clientId = single(query, "client_id");
  const redirectUri = single(query, "redirect_uri");
  if (!clientId) return { kind: "refuse", message: "client_id is missing or repeated" };
  const client = await findClient(db, clientId);
  if (!client) return { kind: "refuse", message: "Unknown client" };
  if (!redirectUri || !client.redirectUris.includes(redirectUri))
    return { kind: "refuse", message: "redirect_uri is not registered for this client" };

  const state = single(query, "state");
  const back = (error: string, description: string): AuthorizeOutcome => ({
    kind: "client_error",
    location: withParams(redirectUri, {
      error,
      error_description: description,
      state: typeof state === "string" ? state : undefined,
    }),
  });
  for (const name of ["response_type", "state", "scope", "code_challenge", "code_challenge_method"]) {
    if (single(query, name) === null) return back("invalid_request", `${name} is repeated`);
  }
  if (typeof state === "string" && state.length > 1000) return back("invalid_request", "state is too long");
  const responseType = single(query, "response_type");
  if (responseType !== "code")
    return back("unsupported_response_type", "Only the authorization code flow is supported");
  const scopes = parseScopes(client, single(query, "scope") ?? undefined);
  if (!scopes) return back("invalid_scope", "Unknown scope");
  const challenge = single(query, "code_challenge");
  const method = single(query, "code_challenge_method");
  if (challenge !== undefined || method !== undefined) {
    // ASVS 10.4.6: S256 only, never `plain`.
    if (method !== "S256") return back("invalid_request", "code_challenge_method must be S256");
    if (!challenge || !PKCE_RE.test(challenge)) return back("invalid_request", "code_challenge is malformed");
  } else if (!client.secretHash) {
    return back("invalid_request", "PKCE (code_challenge with S256) is required for this client");
  }

  const id = randomToken(24);
  await db.insert(oauthRequests).values({
    id,
    clientId: client.id,
    redirectUri,
    scope: scopes.join(" "),
    state: state ?? null,
    codeChallenge: challenge ?? null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + REQUEST_TTL_MS),
  });
  // Old pending authorizations nobody decided on go with the next one.
  await db.delete(oauthRequests).where(lt(oauthRequests.expiresAt, now));
  return { kind: "consent", location: `${OAUTH_CONSENT_PAGE}?request=${encodeURIComponent(id)}` };
}

async function loadRequest(db: Db, id: string, now: Date) {
  const [row] = await db
    .select({ request: oauthRequests, client: oauthClients })
    .from(oauthRequests)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthRequests.clientId))
    .where(and(eq(oauthRequests.id, id), gt(oauthRequests.expiresAt, now)))
    .limit(1);
  return row ?? null;
}

const scopesOf = (scope: string) =>
  scope.split(" ").filter((s): s is OAuthScope => OAuthScopeSchema.safeParse(s).success);

/** A pending authorization as the consent page shows it; unknown or expired → 404. */
export async function getRequestInfo(db: Db, id: string, now = new Date()): Promise<OAuthRequestInfo> {
  const row = await loadRequest(db, id, now);
  if (!row) throw new AppError("not_found", "Not found");
  return {
    id,
    client: { id: row.client.id, name: row.client.name },
    scopes: scopesOf(row.request.scope),
    redirect_origin: new URL(row.request.redirectUri).origin,
  };
}

/**
 * The person's decision. The pending authorization is used up either way (deleted in the same
 * statement that reads it, so two clicks cannot both mint a code). Approval records the grant and
 * mints a single-use code bound to the client, the redirect URI and the PKCE challenge.
 */
export async function decide(
  db: Db,
  userId: string,
  id: string,
  approve: boolean,
  request?: FastifyRequest,
  now = new Date(),
): Promise<string> {
  const [pending] = await db
    .delete(oauthRequests)
    .where(and(eq(oauthRequests.id, id), gt(oauthRequests.expiresAt, now)))
    .returning();
  if (!pending) throw new AppError("not_found", "Not found");
  if (!approve) {
    return withParams(pending.redirectUri, {
      error: "access_denied",
      error_description: "The person declined",
      state: pending.state,
    });
  }
  const [grant] = await db
    .insert(oauthGrants)
    .values({ userId, clientId: pending.clientId, scope: pending.scope, createdAt: now })
    .onConflictDoUpdate({
      target: [oauthGrants.userId, oauthGrants.clientId],
      set: { scope: pending.scope },
    })
    .returning({ id: oauthGrants.id });
  if (!grant) throw new Error("grant upsert returned no row");
  const code = randomToken(32);
  await db.insert(oauthCodes).values({
    codeHash: sha256(code),
    grantId: grant.id,
    userId,
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
    codeChallenge: pending.codeChallenge,
    createdAt: now,
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
  });
  await writeAudit(db, {
    action: "oauth.granted",
    userId,
    objectId: grant.id,
    request,
    meta: { client: pending.clientId },
  });
  return withParams(pending.redirectUri, { code, state: pending.state });
}

/** The body fields and Basic header the token endpoint reads. */
export type TokenRequest = { fields: Map<string, string>; authorization: string | undefined };

/** Reads client credentials from HTTP Basic or the body, never both (RFC 6749 §2.3.1). */
async function authenticateClient(db: Db, req: TokenRequest): Promise<OAuthClientRow> {
  let id = req.fields.get("client_id");
  let secret = req.fields.get("client_secret");
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.authorization ?? "");
  if (basic) {
    if (secret !== undefined) throw new OAuthError("invalid_request", "Client credentials given twice");
    const decoded = Buffer.from(basic[1] ?? "", "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new OAuthError("invalid_client", "Malformed Basic credentials");
    let basicId: string;
    try {
      basicId = decodeURIComponent(decoded.slice(0, colon).replaceAll("+", " "));
      secret = decodeURIComponent(decoded.slice(colon + 1).replaceAll("+", " "));
    } catch {
      throw new OAuthError("invalid_client", "Malformed Basic credentials");
    }
    if (id !== undefined && id !== basicId) throw new OAuthError("invalid_request", "client_id differs");
    id = basicId;
  }
  if (!id) throw new OAuthError("invalid_client", "Client authentication failed");
  const client = await findClient(db, id);
  // The hash is compared in constant time; an unknown client costs the same comparison (ASVS 10.4.10).
  const expected = client?.secretHash ?? sha256("no-such-client");
  if (!client) {
    safeEqual(sha256(secret ?? ""), expected);
    throw new OAuthError("invalid_client", "Client authentication failed");
  }
  if (client.secretHash) {
    if (secret === undefined || !safeEqual(sha256(secret), expected))
      throw new OAuthError("invalid_client", "Client authentication failed");
  } else if (secret !== undefined && secret !== "") {
    throw new OAuthError("invalid_client", "This client has no secret");
  }
  return client;
}

export type TokenAnswer = {
  token_type: "Bearer";
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  scope: string;
};

async function issueTokens(
  db: Db,
  client: OAuthClientRow,
  grant: { id: string; userId: string; scope: string },
  opts: { codeHash?: string; refreshExpiresAt?: Date; now: Date },
): Promise<TokenAnswer> {
  const access = `${ACCESS_TOKEN_PREFIX}${randomToken(32)}`;
  const expiring = client.tokenPolicy !== "non_expiring";
  const refresh = expiring ? `${REFRESH_TOKEN_PREFIX}${randomToken(32)}` : null;
  await db.insert(oauthTokens).values({
    grantId: grant.id,
    userId: grant.userId,
    clientId: client.id,
    accessHash: sha256(access),
    refreshHash: refresh ? sha256(refresh) : null,
    accessExpiresAt: expiring ? new Date(opts.now.getTime() + ACCESS_TTL_MS) : null,
    refreshExpiresAt: refresh
      ? (opts.refreshExpiresAt ?? new Date(opts.now.getTime() + REFRESH_TTL_MS))
      : null,
    codeHash: opts.codeHash ?? null,
    createdAt: opts.now,
  });
  return {
    token_type: "Bearer",
    access_token: access,
    ...(expiring ? { expires_in: ACCESS_TTL_MS / 1000 } : {}),
    ...(refresh ? { refresh_token: refresh } : {}),
    scope: grant.scope,
  };
}

async function exchangeCode(db: Db, client: OAuthClientRow, req: TokenRequest, now: Date) {
  const code = req.fields.get("code");
  const redirectUri = req.fields.get("redirect_uri");
  const verifier = req.fields.get("code_verifier");
  if (!code) throw new OAuthError("invalid_request", "code is missing");
  const codeHash = sha256(code);
  const [row] = await db.select().from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).limit(1);
  if (!row || row.clientId !== client.id) throw new OAuthError("invalid_grant", "The code is not valid");
  if (row.usedAt) {
    // ASVS 10.4.2: a replayed code revokes what its first exchange issued.
    await db
      .update(oauthTokens)
      .set({ revokedAt: now })
      .where(and(eq(oauthTokens.codeHash, codeHash), isNull(oauthTokens.revokedAt)));
    throw new OAuthError("invalid_grant", "The code is not valid");
  }
  if (row.expiresAt.getTime() <= now.getTime()) throw new OAuthError("invalid_grant", "The code has expired");
  if (redirectUri !== row.redirectUri)
    throw new OAuthError("invalid_grant", "redirect_uri does not match the authorization request");
  if (row.codeChallenge) {
    if (!verifier || !PKCE_RE.test(verifier))
      throw new OAuthError("invalid_grant", "code_verifier is missing");
    const computed = createHash("sha256").update(verifier).digest("base64url");
    if (!safeEqual(computed, row.codeChallenge))
      throw new OAuthError("invalid_grant", "code_verifier is wrong");
  } else if (verifier !== undefined) {
    throw new OAuthError("invalid_grant", "No code_challenge was sent for this code");
  }
  // Marked used in one conditional statement: of two concurrent exchanges exactly one wins.
  const used = await db
    .update(oauthCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)))
    .returning({ grantId: oauthCodes.grantId });
  if (used.length === 0) throw new OAuthError("invalid_grant", "The code is not valid");
  const [grant] = await db.select().from(oauthGrants).where(eq(oauthGrants.id, row.grantId)).limit(1);
  if (!grant) throw new OAuthError("invalid_grant", "The authorization was revoked");
  return issueTokens(db, client, grant, { codeHash, now });
}

async function refresh(db: Db, client: OAuthClientRow, req: TokenRequest, now: Date) {
  const token = req.fields.get("refresh_token");
  if (!token) throw new OAuthError("invalid_request", "refresh_token is missing");
  const [row] = await db
    .select()
    .from(oauthTokens)
    .where(eq(oauthTokens.refreshHash, sha256(token)))
    .limit(1);
  if (!row || row.clientId !== client.id)
    throw new OAuthError("invalid_grant", "The refresh token is not valid");
  if (row.revokedAt) {
    // A rotated-out refresh token used again: someone holds a copy; end the whole grant's tokens.
    await db
      .update(oauthTokens)
      .set({ revokedAt: now })
      .where(and(eq(oauthTokens.grantId, row.grantId), isNull(oauthTokens.revokedAt)));
    throw new OAuthError("invalid_grant", "The refresh token is not valid");
  }
  if (!row.refreshExpiresAt || row.refreshExpiresAt.getTime() <= now.getTime())
    throw new OAuthError("invalid_grant", "The refresh token has expired");
  const rotated = await db
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.id, row.id), isNull(oauthTokens.revokedAt)))
    .returning({ id: oauthTokens.id });
  if (rotated.length === 0) throw new OAuthError("invalid_grant", "The refresh token is not valid");
  const [grant] = await db.select().from(oauthGrants).where(eq(oauthGrants.id, row.grantId)).limit(1);
  if (!grant) throw new OAuthError("invalid_grant", "The authorization was revoked");
  // The absolute lifetime carries over: rotation never extends it (ASVS 10.4.8).
  return issueTokens(db, client, grant, { refreshExpiresAt: row.refreshExpiresAt, now });
}

/** The token endpoint (RFC 6749 §4.1.3, §6): authorization_code and refresh_token grants only. */
export async function tokenEndpoint(db: Db, req: TokenRequest, now = new Date()): Promise<TokenAnswer> {
  const grantType = req.fields.get("grant_type");
  if (!grantType) throw new OAuthError("invalid_request", "grant_type is missing");
  const client = await authenticateClient(db, req);
  if (grantType === "authorization_code") return exchangeCode(db, client, req, now);
  if (grantType === "refresh_token") {
    if (client.tokenPolicy === "non_expiring")
      throw new OAuthError("unauthorized_client", "This client gets no refresh tokens");
    return refresh(db, client, req, now);
  }
  // ASVS 10.4.4: no implicit, password or client-credentials grants.
  throw new OAuthError("unsupported_grant_type", "Only authorization_code and refresh_token are supported");
}

export type BearerGrant = { userId: string; clientId: string; grantId: string; scope: string };

const TOUCH_EVERY_MS = 60 * MINUTE_MS;

/** The grant behind `Authorization: Bearer toa_…`, or null (unknown, revoked, expired or grant gone). */
export async function findBearerGrant(db: Db, token: string, now = new Date()): Promise<BearerGrant | null> {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX) || token.length > 200) return null;
  const [row] = await db
    .select({
      userId: oauthTokens.userId,
      clientId: oauthTokens.clientId,
      grantId: oauthGrants.id,
      scope: oauthGrants.scope,
      lastUsedAt: oauthGrants.lastUsedAt,
    })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(
      and(
        eq(oauthTokens.accessHash, sha256(token)),
        isNull(oauthTokens.revokedAt),
        or(isNull(oauthTokens.accessExpiresAt), gt(oauthTokens.accessExpiresAt, now)),
      ),
    )
    .limit(1);
  if (!row) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
    await db.update(oauthGrants).set({ lastUsedAt: now }).where(eq(oauthGrants.id, row.grantId));
  }
  return { userId: row.userId, clientId: row.clientId, grantId: row.grantId, scope: row.scope };
}

export async function listConnectedServices(db: Db, userId: string): Promise<ConnectedService[]> {
  const rows = await db
    .select({ grant: oauthGrants, name: oauthClients.name })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(eq(oauthGrants.userId, userId))
    .orderBy(desc(oauthGrants.createdAt), desc(oauthGrants.id));
  return rows.map(({ grant, name }) => ({
    id: grant.id,
    client_id: grant.clientId,
    name,
    scopes: scopesOf(grant.scope),
    connected: grant.createdAt.toISOString(),
    last_used: grant.lastUsedAt?.toISOString() ?? null,
  }));
}

/** Revokes one of the person's grants: its codes and tokens go with it (cascade); others' → 404. */
export async function revokeConnectedService(
  db: Db,
  userId: string,
  grantId: string,
  request?: FastifyRequest,
): Promise<void> {
  const rows = await db
    .delete(oauthGrants)
    .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.userId, userId)))
    .returning({ clientId: oauthGrants.clientId });
  if (rows.length === 0) throw new AppError("not_found", "Not found");
  await writeAudit(db, {
    action: "oauth.revoked",
    userId,
    objectId: grantId,
    request,
    meta: { client: rows[0]?.clientId ?? "" },
  });
}

/**
 * A token for `userId` with `clientId` without the browser flow: IFTTT's `test/setup` only (test mode),
 * for its dedicated fixture user.
 */
export async function mintTokenForFixture(
  db: Db,
  client: OAuthClientRow,
  userId: string,
  now = new Date(),
): Promise<string> {
  const scope = client.scopes.join(" ");
  const [grant] = await db
    .insert(oauthGrants)
    .values({ userId, clientId: client.id, scope, createdAt: now })
    .onConflictDoUpdate({ target: [oauthGrants.userId, oauthGrants.clientId], set: { scope } })
    .returning({ id: oauthGrants.id });
  if (!grant) throw new Error("grant upsert returned no row");
  return (await issueTokens(db, client, { id: grant.id, userId, scope }, { now })).access_token;
}
