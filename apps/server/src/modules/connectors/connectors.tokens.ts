import type { Db } from "../../db/client.ts";
import type { SecretBox } from "./connectors.crypto.ts";
import { type ConnectionRow, findTokens } from "./connectors.repo.ts";
import type { TokenSet } from "./connectors.types.ts";

/** A connection's tokens, sealed in `connector_tokens` and opened only where they are used. */

/** The sealed-token context: a ciphertext opens only for its own connection and kind. */
export const tokenContext = (connectionId: string, kind: "access" | "refresh") => `${connectionId}|${kind}`;

export function sealTokens(box: SecretBox, connectionId: string, userId: string, tokens: TokenSet) {
  return {
    connectionId,
    userId,
    accessToken: box.seal(tokens.accessToken, tokenContext(connectionId, "access")),
    refreshToken: tokens.refreshToken
      ? box.seal(tokens.refreshToken, tokenContext(connectionId, "refresh"))
      : null,
    expiresAt: tokens.expiresAt,
  };
}

/** The connection's tokens, or null when they are missing or no longer open (SECRET_KEY changed). */
export async function openTokens(
  db: Db,
  box: SecretBox,
  connection: ConnectionRow,
): Promise<TokenSet | null> {
  const row = await findTokens(db, connection.id);
  if (!row) return null;
  const accessToken = box.open(row.accessToken, tokenContext(connection.id, "access"));
  const refreshToken = row.refreshToken
    ? box.open(row.refreshToken, tokenContext(connection.id, "refresh"))
    : null;
  if (accessToken === null || (row.refreshToken && refreshToken === null)) return null;
  return {
    accessToken,
    refreshToken,
    expiresAt: row.expiresAt,
    scope: connection.scopes,
    externalUserId: connection.externalUserId,
  };
}
