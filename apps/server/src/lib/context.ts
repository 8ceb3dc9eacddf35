import type { Database } from "../db/client.ts";
import type { ShareKindRegistry } from "../modules/shares/shares.service.ts";
import type { Config } from "./config.ts";
import type { EventBus } from "./events.ts";
import type { JobRunner } from "./jobs.ts";
import type { Logger } from "./logger.ts";
import type { Mailer } from "./mailer.ts";
import type { UserDataRegistry } from "./registry.ts";

/**
 * What every module receives when it is registered: configuration, the database and the shared
 * services. Plumbing (mail, jobs, events, audit, registry) hangs off this object so that no module
 * invents its own.
 */
export type AppContext = {
  config: Config;
  database: Database;
  log: Logger;
  services: AppServices;
};

/** The shared services buildApp creates once; a module reaches another domain through these. */
export type AppServices = {
  mailer: Mailer;
  /** Background jobs on pg-boss (lib/jobs.ts): `defineJob` while registering, `send` any time. */
  jobs: JobRunner;
  /** Domain events through the transactional outbox (lib/events.ts): `emitEvent(tx, …)`, `subscribe`. */
  events: EventBus;
  /** How every module's user data is exported, imported and deleted (lib/registry.ts). */
  registry: UserDataRegistry;
  /** Share-link kinds and how each checks that a target is the owner's (modules/shares). */
  shareKinds: ShareKindRegistry;
};
