// The operator's commands, loaded by cli.ts (which documents them).
import path from "node:path";
import { openDatabase } from "./db/client.ts";
import { acquireDataDirLock, DataDirLockedError, removeStalePostmasterPid } from "./db/lock.ts";
import { loadConfig } from "./lib/config.ts";
import { BILLING_USAGE, isBillingCommand, runBillingCli } from "./modules/billing/billing.cli.ts";
import {
  parseRecomputeArgs,
  RECOMPUTE_USAGE,
  recomputeCommand,
} from "./modules/measurements/measurements.cli.ts";
import { SEND_NEWS_USAGE, sendNewsCommand } from "./modules/notifications/notifications.cli.ts";
import { REGISTER_CLIENT_USAGE, registerClientCommand } from "./modules/oauth/oauth.cli.ts";
import {
  type CommandResult,
  changeCustomerMark,
  changeOperatorRole,
  formatUserList,
} from "./modules/operators/operators.service.ts";

const USAGE = `Usage: npm run cli -- <command> [EMAIL]

Commands:
  grant-operator EMAIL    give the account the operator role
  revoke-operator EMAIL   take the operator role away
  mark-customer EMAIL     count the account as a customer (BILLING_MODE=sandbox, until billing lands)
  unmark-customer EMAIL   remove that mark
  list-users              every account with its role and customer mark
  ${BILLING_USAGE}
  ${REGISTER_CLIENT_USAGE}
  ${SEND_NEWS_USAGE}
  ${RECOMPUTE_USAGE}

Runs against DATABASE_URL, or the embedded database in DATA_DIR (stop the server first).`;

type Command = (db: Parameters<typeof changeOperatorRole>[0], email: string) => Promise<CommandResult>;

const COMMANDS: Record<string, Command> = {
  "grant-operator": (db, email) => changeOperatorRole(db, email, true),
  "revoke-operator": (db, email) => changeOperatorRole(db, email, false),
  "mark-customer": (db, email) => changeCustomerMark(db, email, true),
  "unmark-customer": (db, email) => changeCustomerMark(db, email, false),
};

/** Exit codes: 0 done, 1 refused or failed (message on stderr), 2 usage error. */
export async function run(argv: string[]): Promise<number> {
  if (isBillingCommand(argv[0])) return runBillingCli(argv);
  const [command, email, ...rest] = argv;
  const isRegister = command === "register-oauth-client";
  const isNews = command === "send-news";
  const isRecompute = command === "measurements-recompute";
  const known = command === "list-users" || (command !== undefined && command in COMMANDS);
  const recompute = isRecompute ? parseRecomputeArgs(argv.slice(1)) : null;
  const usageError = isRecompute
    ? recompute === null
    : isNews
      ? argv.length < 3
      : isRegister
        ? argv.length < 4
        : !known ||
          rest.length > 0 ||
          (command !== "list-users" && !email) ||
          (command === "list-users" && email);
  if (usageError) {
    const unknown = command && !known && !isRegister && !isNews && !isRecompute;
    process.stderr.write(`${unknown ? `tonus: unknown command ${command}\n\n` : ""}${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  let release = () => {};
  if (!config.DATABASE_URL) {
    try {
      release = acquireDataDirLock(config.DATA_DIR, (pid) =>
        process.stderr.write(`tonus: taking over a stale lock on ${config.DATA_DIR} left by pid ${pid}\n`),
      );
    } catch (error) {
      if (error instanceof DataDirLockedError) {
        process.stderr.write(
          `tonus: ${error.message}\ntonus: the embedded database has one writer: stop the server, run the command, start the server again.\n`,
        );
        return 1;
      }
      throw error;
    }
    removeStalePostmasterPid(path.join(config.DATA_DIR, "pgdata"));
  }
  const database = await openDatabase({
    url: config.DATABASE_URL,
    pgliteDir: path.join(config.DATA_DIR, "pgdata"),
  });
  try {
    if (recompute) {
      const result = await recomputeCommand(database.db, recompute, (line) =>
        process.stdout.write(`${line}\n`),
      );
      if (result.message) process.stderr.write(`${result.message}\n`);
      return result.code;
    }
    if (isRegister || isNews) {
      const result = await (isNews ? sendNewsCommand : registerClientCommand)(database.db, argv.slice(1));
      if (result.usage) {
        process.stderr.write(`tonus: ${result.message}\n\n${USAGE}\n`);
        return 2;
      }
      (result.ok ? process.stdout : process.stderr).write(`${result.ok ? "" : "tonus: "}${result.message}\n`);
      return result.ok ? 0 : 1;
    }
    if (command === "list-users") {
      process.stdout.write(`${await formatUserList(database.db)}\n`);
      return 0;
    }
    const result = await (COMMANDS[command as string] as Command)(database.db, email as string);
    (result.ok ? process.stdout : process.stderr).write(`${result.ok ? "" : "tonus: "}${result.message}\n`);
    return result.ok ? 0 : 1;
  } finally {
    await database.close();
    release();
  }
}
