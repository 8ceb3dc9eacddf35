import type { Config } from "../../lib/config.ts";

export type SocialProviderConfig = {
  id: "google" | "apple";
  /** The name on the button ("Continue with Google"). */
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  /**
   * How the provider returns the code: `query` (a GET to the callback) or `form_post` (a cross-site POST,
   * which Apple requires whenever the e-mail scope is asked for).
   */
  responseMode: "query" | "form_post";
};

/** The OpenID Connect providers an operator configured completely (issuer, client id and secret). */
export function listSocialProviders(config: Config): SocialProviderConfig[] {
  const candidates = [
    {
      id: "google" as const,
      name: "Google",
      issuer: config.OIDC_GOOGLE_ISSUER,
      clientId: config.OIDC_GOOGLE_CLIENT_ID,
      clientSecret: config.OIDC_GOOGLE_CLIENT_SECRET,
      responseMode: "query" as const,
    },
    {
      id: "apple" as const,
      name: "Apple",
      issuer: config.OIDC_APPLE_ISSUER,
      clientId: config.OIDC_APPLE_CLIENT_ID,
      clientSecret: config.OIDC_APPLE_CLIENT_SECRET,
      responseMode: "form_post" as const,
    },
  ];
  const out: SocialProviderConfig[] = [];
  for (const c of candidates) {
    if (c.issuer && c.clientId && c.clientSecret)
      out.push({
        id: c.id,
        name: c.name,
        issuer: c.issuer,
        clientId: c.clientId,
        clientSecret: c.clientSecret,
        responseMode: c.responseMode,
      });
  }
  return out;
}

export function findSocialProvider(config: Config, id: string): SocialProviderConfig | undefined {
  return listSocialProviders(config).find((p) => p.id === id);
}
