import { CONNECT_RETURN_PATH_RE, type ConnectResponse, type ConnectResultReason } from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import { pseudonymUuid, randomToken, sha256 } from "../../lib/crypto.ts";
import { createProviderApi } from "./connectors.http.ts";
import { buildAuthorizationUrl, exchangeCode } from "./connectors.oauth.ts";
import { isRetired, providerSettings } from "./connectors.providers.ts";
import {
  countPendingAuthorizations,
  deleteExpiredAuthorizations,
  insertAuthorization,
  requestSyncOf,
  saveTokens,
  takeAuthorization,
  upsertConnection,
} from "./connectors.repo.ts";
import { requireProvider } from "./connectors.service.ts";
import type { ConnectorDeps } from "./connectors.sync.ts";
import { sealTokens } from "./connectors.tokens.ts";
import type { ProviderDef, TokenSet } from "./connectors.types.ts";

/** Connecting: the authorization-code flow as a client, from the start to the provider's callback. */

/** A started connect lasts this long: the person signs in at the provider and answers its consent. */
const AUTHORIZATION_TTL_MS = 10 * 60_000;
/** Connect attempts one person may have pending at once (each is a row until it expires). */
const MAX_PENDING_AUTHORIZATIONS = 20;

/** The page the browser lands on after a connect: the data-source page it started from. */
function defaultReturnPath(provider: ProviderDef): string {
  return `/data-sources/${provider.slug}`;
}

/**
 * Starts the authorization-code flow: a random state bound (hashed) to the person and their browser
 * session, a PKCE verifier where the provider supports it (RFC 7636, S256), and the page to return to.
 * Answers the provider's authorization URL for the browser to open.
 */
export async function startConnect(
  deps: ConnectorDeps,
  input: {
    userId: string;
    sessionId: string | undefined;
    provider: string;
    returnTo?: string;
    redirectUri: string;
  },
): Promise<ConnectResponse> {
  const provider = requireProvider(input.provider);
  const settings = providerSettings(deps.ctx.config, provider.key);
  if (!settings)
    throw new AppError("connector_not_configured", `${provider.name} is not configured on this installation`);
  if (isRetired(provider, deps.clock()))
    throw new AppError("connector_retired", `${provider.name} turned this API off`);
  // A cookie-less caller (an API token) has no browser session to come back in.
  if (!input.sessionId) throw new AppError("not_authenticated", "Connecting needs a browser session");
  const now = deps.clock();
  const state = randomToken(32);
  const stateHash = sha256(state);
  const verifier = provider.pkce ? randomToken(48) : null;
  const returnTo =
    input.returnTo && CONNECT_RETURN_PATH_RE.test(input.returnTo)
      ? input.returnTo
      : defaultReturnPath(provider);
  const { db } = deps.ctx.database;
  await deleteExpiredAuthorizations(db, now);
  if ((await countPendingAuthorizations(db, input.userId, now)) >= MAX_PENDING_AUTHORIZATIONS)
    throw new AppError("rate_limited", "Too many connect attempts, try again in a few minutes", {
      retryAfterS: AUTHORIZATION_TTL_MS / 1000,
    });
  await insertAuthorization(db, {
    stateHash,
    userId: input.userId,
    provider: provider.key,
    sessionHash: sha256(input.sessionId),
    codeVerifier: verifier ? deps.box.seal(verifier, `authorization|${stateHash}`) : null,
    returnTo,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_TTL_MS),
  });
  const authorizationUrl = buildAuthorizationUrl(provider, settings.credentials, settings.baseUrl, {
    redirectUri: input.redirectUri,
    state,
    codeChallenge: verifier ? sha256(verifier) : null,
  });
  return { authorization_url: authorizationUrl };
}

function landing(
  path: string,
  provider: ProviderDef,
  result: { ok: true } | { ok: false; reason: ConnectResultReason },
) {
  const params = new URLSearchParams({ connect: result.ok ? "ok" : "error", provider: provider.key });
  if (!result.ok) params.set("reason", result.reason);
  return `${path}?${params}`;
}

export type CallbackResult = {
  /** A path on this site (the data-source page) with the result flags: never the provider's choice. */
  location: string;
  connected: { userId: string; connectionId: string } | null;
};

/**
 * The provider's redirect back. The state must name a pending connect of this provider, started by this
 * person in this browser session within ten minutes; it is consumed either way. Then the code is
 * exchanged (with the PKCE verifier), the provider's post-connect step runs (Polar registration), the
 * connection and its sealed tokens are stored and a first sync is queued.
 */
export async function finishConnect(
  deps: ConnectorDeps,
  input: {
    provider: string;
    query: URLSearchParams;
    sessionId: string | undefined;
    userId: string | null;
    redirectUri: string;
  },
): Promise<CallbackResult> {
  const provider = requireProvider(input.provider);
  const { db } = deps.ctx.database;
  const now = deps.clock();
  const fail = (reason: ConnectResultReason, path = defaultReturnPath(provider)): CallbackResult => ({
    location: landing(path, provider, { ok: false, reason }),
    connected: null,
  });
  const state = input.query.get("state");
  if (!state || state.length > 200) return fail("expired");
  const pending = await takeAuthorization(db, sha256(state));
  const sameBrowser =
    pending !== null && input.sessionId !== undefined && pending.sessionHash === sha256(input.sessionId);
  if (
    !pending ||
    pending.provider !== provider.key ||
    pending.expiresAt < now ||
    !sameBrowser ||
    pending.userId !== input.userId
  )
    return fail("expired");
  const returnTo = CONNECT_RETURN_PATH_RE.test(pending.returnTo)
    ? pending.returnTo
    : defaultReturnPath(provider);
  if (input.query.get("error"))
    return fail(input.query.get("error") === "access_denied" ? "denied" : "failed", returnTo);
  const code = input.query.get("code");
  const settings = providerSettings(deps.ctx.config, provider.key);
  if (!code || code.length > 4096 || !settings) return fail("failed", returnTo);
  const verifier = pending.codeVerifier
    ? deps.box.open(pending.codeVerifier, `authorization|${pending.stateHash}`)
    : null;
  if (pending.codeVerifier && verifier === null) return fail("failed", returnTo);
  let tokens: TokenSet;
  try {
    tokens = await exchangeCode(provider, settings.credentials, settings.baseUrl, {
      code,
      redirectUri: input.redirectUri,
      codeVerifier: verifier,
    });
    if (provider.afterConnect) {
      const fresh = tokens;
      // Just issued: nothing to refresh yet (a 401 here means the grant failed).
      const api = createProviderApi(
        provider,
        settings.baseUrl,
        { current: () => fresh, refresh: async () => fresh },
        () => deps.clock().getTime(),
        deps.pacer,
      );
      // The member id Polar keeps for the person: a keyed pseudonym, never the account's own id.
      await provider.afterConnect(
        api,
        fresh,
        pseudonymUuid(deps.ctx.config.secretKey, `connector:${pending.userId}`),
      );
    }
  } catch (error) {
    deps.ctx.log.warn(
      { provider: provider.key, reason: error instanceof Error ? error.message : "error" },
      "connector connect failed",
    );
    return fail("failed", returnTo);
  }
  const historyStart = new Date(now.getTime() - deps.ctx.config.CONNECTORS_HISTORY_DAYS * 86_400_000);
  const connection = await db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const row = await upsertConnection(tx, {
      userId: pending.userId,
      provider: provider.key,
      externalUserId: tokens.externalUserId,
      scopes: tokens.scope ?? provider.scopes.join(" "),
      historyStart,
    });
    await saveTokens(tx, sealTokens(deps.box, row.id, row.userId, tokens));
    return row;
  });
  await requestSyncOf(db, connection.id, now);
  await deps.enqueue({ userId: connection.userId, connectionId: connection.id });
  return {
    location: landing(returnTo, provider, { ok: true }),
    connected: { userId: connection.userId, connectionId: connection.id },
  };
}
