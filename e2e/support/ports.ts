/** Fixed loopback ports for the e2e server and its mail catcher (override through the environment). */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 18080);
export const E2E_MAIL_PORT = Number(process.env.E2E_MAIL_PORT ?? 18025);
export const E2E_MAIL_API_PORT = E2E_MAIL_PORT + 1;
