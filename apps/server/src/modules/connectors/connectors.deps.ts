import type { AppContext } from "../../lib/context.ts";
import { createSecretBox } from "./connectors.crypto.ts";
import { createSyncLock } from "./connectors.lock.ts";
import type { ConnectorDeps } from "./connectors.sync.ts";

/** What every part of the module shares: the app, the token box, the sync lock, the clock, the queue. */
export function createConnectorDeps(
  ctx: Pick<AppContext, "config" | "database" | "services" | "log">,
  enqueue: ConnectorDeps["enqueue"],
  clock: () => Date = () => new Date(),
): ConnectorDeps {
  return {
    ctx,
    box: createSecretBox(ctx.config.secretKey),
    lock: createSyncLock(ctx.database),
    clock,
    enqueue,
  };
}
