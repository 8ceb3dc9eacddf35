import type { Db } from "../../db/client.ts";
import { ClientRegistrationError, registerOAuthClient, type TokenPolicy } from "./oauth.clients.ts";

export const REGISTER_CLIENT_USAGE = `register-oauth-client ID NAME REDIRECT_URI... [--public] [--expiring|--non-expiring]
                          register (or replace) an OAuth client with its exact redirect URIs; prints the
                          client secret once (none with --public, which then must use PKCE S256).
                          Tokens: --non-expiring (IFTTT's rule, the default for the id "ifttt") or
                          --expiring (1-hour access, rotating 30-day refresh tokens, the default otherwise)`;

/** `register-oauth-client`: parses the arguments and registers; the message says what happened. */
export async function registerClientCommand(
  db: Db,
  args: string[],
): Promise<{ ok: boolean; message: string; usage?: boolean }> {
  const flags = new Set(args.filter((a) => a.startsWith("--")));
  const [id, name, ...uris] = args.filter((a) => !a.startsWith("--"));
  const unknown = [...flags].filter((f) => !["--public", "--expiring", "--non-expiring"].includes(f));
  if (
    !id ||
    !name ||
    uris.length === 0 ||
    unknown.length ||
    (flags.has("--expiring") && flags.has("--non-expiring"))
  )
    return { ok: false, usage: true, message: "register-oauth-client needs ID NAME REDIRECT_URI..." };
  const tokenPolicy: TokenPolicy = flags.has("--expiring")
    ? "expiring"
    : flags.has("--non-expiring") || id === "ifttt"
      ? "non_expiring"
      : "expiring";
  try {
    const { secret, replaced } = await registerOAuthClient(db, {
      id,
      name,
      redirectUris: uris,
      isPublic: flags.has("--public"),
      tokenPolicy,
    });
    const lines = [
      `${replaced ? "Replaced" : "Registered"} OAuth client ${id} (${tokenPolicy.replace("_", "-")} tokens)`,
      ...uris.map((u) => `  redirect URI: ${u}`),
      secret
        ? `client_secret: ${secret}\n(shown once; only its hash is stored)`
        : "public client: PKCE S256 required",
    ];
    return { ok: true, message: lines.join("\n") };
  } catch (error) {
    if (error instanceof ClientRegistrationError) return { ok: false, message: error.message };
    throw error;
  }
}
