import { EmailSchema } from "@tonus/contract";
import * as oidc from "openid-client";
import type { AppContext } from "../../lib/context.ts";
import { recordReferral } from "../referral/referral.service.ts";
import type { SocialProviderConfig } from "./social.providers.ts";
import { findOrCreateSocialUser } from "./social.repo.ts";
import { type PendingSignIn, SOCIAL_STATE_TTL_MS } from "./social.state.ts";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Discovery results per provider, kept for the app's lifetime (a failed discovery is retried next time). */
export type DiscoveryCache = Map<string, Promise<oidc.Configuration>>;

function discoverProvider(
  cache: DiscoveryCache,
  provider: SocialProviderConfig,
): Promise<oidc.Configuration> {
  let found = cache.get(provider.id);
  if (!found) {
    const issuer = new URL(provider.issuer);
    // Plain HTTP is allowed only for a provider on this machine (development and tests).
    const insecure = issuer.protocol === "http:" && LOOPBACK_HOSTS.has(issuer.hostname);
    found = oidc.discovery(issuer, provider.clientId, provider.clientSecret, undefined, {
      ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      timeout: 10,
    });
    found.catch(() => cache.delete(provider.id));
    cache.set(provider.id, found);
  }
  return found;
}

/** The provider's authorization URL and the pending sign-in to keep in the signed cookie. */
export async function startSocialSignIn(
  cache: DiscoveryCache,
  provider: SocialProviderConfig,
  redirectUri: string,
  destination: string,
): Promise<{ url: string; pending: PendingSignIn }> {
  const configuration = await discoverProvider(cache, provider);
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const pending: PendingSignIn = {
    provider: provider.id,
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    codeVerifier,
    destination,
    expiresAtMs: Date.now() + SOCIAL_STATE_TTL_MS,
  };
  const url = oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: redirectUri,
    scope: "openid email",
    response_type: "code",
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    ...(provider.responseMode === "form_post" ? { response_mode: "form_post" } : {}),
  });
  return { url: url.href, pending };
}

/**
 * Exchanges the code (checking state, nonce and PKCE), verifies the ID token and finds or creates the
 * account. Null when the provider gives no subject, or no verified e-mail for a new account.
 */
export async function finishSocialSignIn(
  ctx: AppContext,
  cache: DiscoveryCache,
  provider: SocialProviderConfig,
  callbackUrl: URL,
  pending: PendingSignIn,
): Promise<{ userId: string; created: boolean } | null> {
  const configuration = await discoverProvider(cache, provider);
  const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
    pkceCodeVerifier: pending.codeVerifier,
    expectedState: pending.state,
    expectedNonce: pending.nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  if (!claims?.sub) return null;
  let emailClaims: Record<string, unknown> = { ...claims };
  // Providers may keep the e-mail out of the ID token (OIDC conformance); then it comes from UserInfo.
  if (claims.email === undefined && configuration.serverMetadata().userinfo_endpoint)
    emailClaims = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
  // Apple sends email_verified as the string "true"; every other value counts as unverified.
  const verified = emailClaims.email_verified === true || emailClaims.email_verified === "true";
  const email = verified ? EmailSchema.safeParse(emailClaims.email) : undefined;
  const verifiedEmail = email?.success ? email.data : null;
  const result = await findOrCreateSocialUser(ctx.database.db, {
    provider: provider.id,
    subject: claims.sub,
    verifiedEmail,
  });
  // A new account whose address a friend invited counts as that friend's referral.
  if (result?.created && verifiedEmail)
    await recordReferral(ctx.database.db, { userId: result.userId, email: verifiedEmail });
  return result;
}
