import { API, BILLING_API, NOTIFICATIONS_API, OAUTH_API } from "@tonus/contract";

/**
 * Every route that skips the CSRF check and ignores the session cookie. Such a route must prove the
 * caller some other way (a signature, a bound state, a bearer token); a test compares this list with the
 * routes that declare `config.csrfExempt`, so an exemption cannot be added silently.
 */
export const CSRF_EXEMPT_ROUTES: readonly { method: string; url: string }[] = [
  // Apple's form_post answer: the provider's page posts it, the state bound to a signed cookie proves the flow.
  { method: "POST", url: API.socialCallback },
  // Stripe's webhooks: the Stripe-Signature HMAC over the raw body (checked with the SDK) proves the sender.
  { method: "POST", url: BILLING_API.stripeWebhook },
  // OAuth2 token endpoint: server to server; the client proves itself with its secret or PKCE verifier.
  { method: "POST", url: OAUTH_API.token },
  // IFTTT's service API: the service key (status, test setup) or the person's OAuth bearer token.
  { method: "GET", url: "/ifttt/v1/status" },
  { method: "POST", url: "/ifttt/v1/test/setup" },
  { method: "GET", url: "/ifttt/v1/user/info" },
  { method: "POST", url: "/ifttt/v1/triggers/:trigger" },
  { method: "DELETE", url: "/ifttt/v1/triggers/:trigger/trigger_identity/:identity" },
  { method: "POST", url: "/ifttt/v1/triggers/:trigger/fields/:field/options" },
  { method: "POST", url: "/ifttt/v1/triggers/:trigger/fields/:field/validate" },
  { method: "POST", url: "/ifttt/v1/actions/:action" },
  // The ingest API: the person's API token (`Authorization: Token tok_…`) proves the caller; cookies are ignored.
  { method: "POST", url: API.ingest },
  // First-party analytics: the public analytics token; it stores pseudonymous events and reads nothing.
  { method: "POST", url: OAUTH_API.analyticsSend },
  // One-click unsubscribe (RFC 8058) from a mail client: the signed per-person, per-list token in the
  // query proves the link; it can only turn that list off and never signs anyone in.
  { method: "POST", url: NOTIFICATIONS_API.unsubscribe },
];
