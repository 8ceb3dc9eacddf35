/** Fixed loopback ports for the e2e server and its mail catcher (override through the environment). */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 18080);
export const E2E_MAIL_PORT = Number(process.env.E2E_MAIL_PORT ?? 18025);
export const E2E_MAIL_API_PORT = E2E_MAIL_PORT + 1;
/** The help centre the e2e server is configured with: a stand-in page on the mail API's port. */
export const E2E_HELP_URL = `http://127.0.0.1:${E2E_MAIL_API_PORT}/help`;
/** INTERCOM_SECRET of the e2e server: the chat spec checks the profile's hmac against it. */
export const E2E_INTERCOM_SECRET = "e2e-intercom-identity-verification-secret";
/** The cloud-connector stand-in (Oura's documented formats) the e2e server is configured with. */
export const E2E_PROVIDER_PORT = E2E_MAIL_PORT + 2;
