/**
 * The operator's command line: `npm run cli -- <command> [EMAIL]` (or `node apps/server/src/cli.ts …`).
 * It uses the server's environment (DATABASE_URL, or DATA_DIR for the embedded database). On the
 * embedded database it takes the data-directory lock, so it refuses to run while a server holds it:
 * PGlite has one writer, and two processes on one directory silently lose writes.
 */
import { ConfigError } from "./lib/config.ts";
import { speedUpPackageLoading } from "./lib/module-resolution.ts";

// The commands' modules are loaded once the hook is in place (a static import is resolved before it).
speedUpPackageLoading();
const { run } = await import("./cli.run.ts");

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`tonus: ${message}\n`);
    process.exit(1);
  },
);
