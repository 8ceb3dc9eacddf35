import fs from "node:fs";
import path from "node:path";
import { acquireDataDirLock, DataDirLockedError, removeStalePostmasterPid } from "./db/lock.ts";
import { ConfigError, loadConfig } from "./lib/config.ts";
import { randomToken } from "./lib/crypto.ts";
import { speedUpPackageLoading } from "./lib/module-resolution.ts";
import { strippedSources } from "./lib/thread-sources.ts";

function fail(message: string): never {
  process.stderr.write(`tonus: ${message}\n`);
  process.exit(1);
}

/** Without SECRET_KEY, an embedded install keeps a generated one beside its data. */
function readOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, "secret.key");
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  const key = randomToken(48);
  fs.writeFileSync(file, key, { mode: 0o600 });
  return key;
}

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  let releaseLock = () => {};
  if (!config.DATABASE_URL) {
    try {
      releaseLock = acquireDataDirLock(config.DATA_DIR, (pid) =>
        process.stderr.write(`tonus: taking over a stale lock on ${config.DATA_DIR} left by pid ${pid}\n`),
      );
    } catch (err) {
      if (err instanceof DataDirLockedError) fail(err.message);
      throw err;
    }
    removeStalePostmasterPid(path.join(config.DATA_DIR, "pgdata"));
  } else {
    fs.mkdirSync(config.DATA_DIR, { recursive: true });
  }
  if (!config.secretKey) {
    if (config.DATABASE_URL && config.NODE_ENV === "production")
      fail("SECRET_KEY: required with DATABASE_URL in production");
    config.secretKey = readOrCreateSecret(config.DATA_DIR);
  }
  const firstStart = !config.DATABASE_URL && !fs.existsSync(path.join(config.DATA_DIR, "pgdata"));
  // The app's modules are loaded once the hook is in place (a static import is resolved before it).
  speedUpPackageLoading();
  const { buildApp } = await import("./app.ts");
  const app = await buildApp(config);
  app.addHook("onClose", async () => releaseLock());

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down: finishing in-flight requests");
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));

  await app.listen({ port: config.PORT, host: config.HOST });
  const url = config.PUBLIC_URL ?? `http://localhost:${(app.server.address() as { port: number }).port}`;
  process.stdout.write(`\nTonus is running at ${url}\n`);
  if (firstStart) process.stdout.write(`First start: open ${url}/user/register to create your account.\n\n`);
  // The import threads' JavaScript, stripped once per process (about a second of CPU, in slices between
  // requests): done now, so that the first import starts as fast as the next.
  void strippedSources().catch((err: unknown) =>
    app.log.warn({ err }, "preparing the import threads' code failed"),
  );
}

main().catch((err) => {
  process.stderr.write(`tonus: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
