import type { UserDataSection } from "../../lib/registry.ts";
import { findProvider } from "./connectors.providers.ts";
import { connectionsWithTokensOf } from "./connectors.repo.ts";
import { revokeAtProvider } from "./connectors.service.ts";
import type { ConnectorDeps } from "./connectors.sync.ts";
import { tokenContext } from "./connectors.tokens.ts";

/**
 * Cloud connections travel with the archive so the person sees which services Tonus reads (provider,
 * since when, last sync), never imported: a connection without its grant means nothing. Tokens and
 * pending authorizations are credentials: never exported, deleted with the account, and the grants are
 * revoked at the providers once the deletion has committed (best effort; a provider that does not
 * answer is logged).
 */
export function connectorsDataSection(deps: ConnectorDeps): UserDataSection {
  return {
    name: "connectors",
    tables: {
      connector_connections: { policy: "exported", exportOmit: ["cursors", "run_report"] },
      connector_tokens: { policy: "credentials" },
      connector_authorizations: { policy: "credentials" },
    },
    async deleteExtra(rc) {
      const rows = await connectionsWithTokensOf(rc.tx, rc.userId);
      const grants = rows.flatMap(({ connection, tokens }) => {
        const provider = findProvider(connection.provider);
        const accessToken = deps.box.open(tokens.accessToken, tokenContext(connection.id, "access"));
        const refreshToken = tokens.refreshToken
          ? deps.box.open(tokens.refreshToken, tokenContext(connection.id, "refresh"))
          : null;
        if (!provider || accessToken === null) return [];
        const set = {
          accessToken,
          refreshToken,
          expiresAt: tokens.expiresAt,
          scope: connection.scopes,
          externalUserId: connection.externalUserId,
        };
        return [{ provider, connection, set }];
      });
      if (grants.length === 0) return;
      rc.afterCommit(async () => {
        await Promise.all(grants.map((g) => revokeAtProvider(deps, g.provider, g.connection, g.set)));
      });
    },
  };
}
