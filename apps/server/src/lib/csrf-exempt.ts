import { API } from "@tonus/contract";

/**
 * Every route that skips the CSRF check and ignores the session cookie. Such a route must prove the
 * caller some other way (a signature, a bound state, a bearer token); a test compares this list with the
 * routes that declare `config.csrfExempt`, so an exemption cannot be added silently.
 */
export const CSRF_EXEMPT_ROUTES: readonly { method: string; url: string }[] = [
  // Apple's form_post answer: the provider's page posts it, the state bound to a signed cookie proves the flow.
  { method: "POST", url: API.socialCallback },
];
