import type { AppContext } from "../../lib/context.ts";
import { createSecretBox } from "./connectors.crypto.ts";
import { createPacer, type RequestPacer } from "./connectors.http.ts";
import { createSyncLock } from "./connectors.lock.ts";
import type { ConnectorDeps } from "./connectors.sync.ts";

/**
 * What every part of the module shares: the app, the token box, the sync lock, the clock, the queue and
 * the request pacer (one per app, so one per process: spacing and app-wide pauses hold for all syncs).
 */
export function createConnectorDeps(
  ctx: Pick<AppContext, "config" | "database" | "services" | "log">,
  enqueue: ConnectorDeps["enqueue"],
  clock: () => Date = () => new Date(),
  pacer: RequestPacer = createPacer(),
): ConnectorDeps {
  return {
    ctx,
    box: createSecretBox(ctx.config.secretKey),
    lock: createSyncLock(ctx.database),
    clock,
    pacer,
    enqueue,
  };
}
