import { CONNECTORS_API, type ConnectorProvider } from "@tonus/contract";
import { and, asc, eq } from "drizzle-orm";
import type { App } from "../../../app.ts";
import { connectorConnections, dashboardValues } from "../../../db/schema.ts";
import { TEST_ORIGIN, type TestClient } from "../../../test/harness.ts";
import { createConnectorDeps } from "../connectors.deps.ts";
import type { RequestPacer } from "../connectors.http.ts";
import type { ConnectorDeps } from "../connectors.sync.ts";
import { type Standin, startStandin } from "./standin.ts";

/** Helpers for the connector tests: a stand-in per provider, the connect dance, what got stored. */

export const CLIENT_ID = "tonus-test-client";
export const CLIENT_SECRET = "tonus-test-client-secret";
export const callbackOf = (provider: ConnectorProvider) =>
  `${TEST_ORIGIN}${CONNECTORS_API.callback.replace(":provider", provider)}`;

const PREFIX: Record<ConnectorProvider, string> = {
  oura: "OURA",
  withings: "WITHINGS",
  polar: "POLAR",
  fitbit: "FITBIT",
  google_health: "GOOGLE_HEALTH",
  whoop: "WHOOP",
};

export function startTestStandin(
  provider: ConnectorProvider,
  options: { days?: number; pageSize?: number } = {},
) {
  return startStandin({
    provider,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: callbackOf(provider),
    ...options,
  });
}

/** The environment that configures `provider` against its stand-in. */
export function providerEnv(provider: ConnectorProvider, standin: Standin): Record<string, string> {
  const prefix = PREFIX[provider];
  return {
    [`${prefix}_CLIENT_ID`]: CLIENT_ID,
    [`${prefix}_CLIENT_SECRET`]: CLIENT_SECRET,
    [`${prefix}_BASE_URL`]: standin.url,
  };
}

export const path = (template: string, provider: string) => template.replace(":provider", provider);

/**
 * The browser's round trip: start the connect, follow the provider's authorization URL (the stand-in
 * approves at once) and bring its redirect back to Tonus's callback. Answers where Tonus sent the
 * browser in the end.
 */
export async function connectThrough(
  client: TestClient,
  provider: ConnectorProvider,
  opts: { returnTo?: string; tamper?: (callback: URL) => void | Promise<void>; via?: TestClient } = {},
) {
  const start = await client.post(
    path(CONNECTORS_API.connect, provider),
    opts.returnTo ? { return_to: opts.returnTo } : {},
  );
  if (start.statusCode !== 200) throw new Error(`connect answered ${start.statusCode}: ${start.body}`);
  const authorizationUrl = new URL((start.json() as { authorization_url: string }).authorization_url);
  const atProvider = await fetch(authorizationUrl, { redirect: "manual" });
  const back = new URL(atProvider.headers.get("location") ?? "");
  if (!back.href.startsWith(TEST_ORIGIN)) throw new Error(`the provider sent the browser to ${back.href}`);
  await opts.tamper?.(back);
  const callback = await (opts.via ?? client).get(`${back.pathname}${back.search}`);
  return { authorizationUrl, callback, location: String(callback.headers.location ?? "") };
}

/**
 * Deps for driving syncs directly in a test, recording what would be queued. Give the same `pacer` to
 * deps that stand for one process (an app-wide rate-limit pause holds across them).
 */
export function testDeps(app: App, clock?: () => Date, pacer?: RequestPacer) {
  const enqueued: { connectionId: string; startAfter?: Date }[] = [];
  const deps: ConnectorDeps = createConnectorDeps(
    app.ctx,
    async (target, startAfter) => {
      enqueued.push({ connectionId: target.connectionId, ...(startAfter ? { startAfter } : {}) });
    },
    clock,
    pacer,
  );
  return { deps, enqueued };
}

export async function connectionOf(app: App, userId: string, provider: ConnectorProvider) {
  const [row] = await app.ctx.database.db
    .select()
    .from(connectorConnections)
    .where(and(eq(connectorConnections.userId, userId), eq(connectorConnections.provider, provider)));
  return row ?? null;
}

/** The person's stored dashboard values of one source, as `metric → [{ at, value }]`. */
export async function storedValues(app: App, userId: string, source: string) {
  const rows = await app.ctx.database.db
    .select()
    .from(dashboardValues)
    .where(and(eq(dashboardValues.userId, userId), eq(dashboardValues.source, source)))
    .orderBy(asc(dashboardValues.metric), asc(dashboardValues.at));
  const byMetric: Record<string, { at: string; value: number }[]> = {};
  for (const r of rows) {
    byMetric[r.metric] ??= [];
    byMetric[r.metric]?.push({ at: r.at.toISOString(), value: r.value });
  }
  return byMetric;
}
