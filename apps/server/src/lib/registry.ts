import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client.ts";
import { pgErrorCode } from "../db/raw.ts";
import { AppError } from "./app-error.ts";
import type { AppContext } from "./context.ts";
import { pseudonymUuid } from "./crypto.ts";
import {
  accountsToDeleteAgain,
  appendLedgerLines,
  recordDeletion,
  recordRestore,
} from "./deletion-ledger.ts";
import { FILE_REMOVAL_JOB, queueFileRemoval, removeQueuedFiles } from "./file-removals.ts";
import type { JobRunner } from "./jobs.ts";
import type { Logger } from "./logger.ts";

/**
 * The account data registry: every module declares, table by table, how its user's rows are exported,
 * imported and deleted. The account archive and account deletion walk this registry, and a test lists
 * every table with a `user_id` column and fails when one is not covered here.
 *
 * Policies (what happens to a table's rows for one user):
 * - `portable`: exported, imported from an archive (allowlisted columns only), deleted.
 * - `exported`: exported so the person sees it (art. 15), deleted, never imported: the rows are the
 *   instance's own record or a capability (share links, social identities) that an edited archive
 *   could forge.
 * - `credentials`: secrets (sessions, token hashes, one-time codes): never exported, deleted.
 * - `internal`: transient plumbing (dev mail outbox, domain events): not exported, deleted.
 * - `pseudonymised`: the audit log: exported, never imported; on deletion `user_id` is replaced by a
 *   keyed pseudonym so security history stays linkable but no longer names the person (RELIABILITY A6).
 */
export type TablePolicy = "portable" | "exported" | "credentials" | "internal" | "pseudonymised";

export type TableSpec = {
  policy: TablePolicy;
  /** The column holding the owner's id (`user_id`, or `id` for `users`). */
  key?: string;
  /** Columns never written to an archive (hashes, secrets, privileges). */
  exportOmit?: readonly string[];
  /** For `portable` tables: the only columns an import may set (the key is always forced to the owner). */
  importColumns?: readonly string[];
  /** For `portable` tables: an SQL condition on the candidate row `r` an imported row must meet. */
  importWhere?: string;
  /**
   * For the account row (`key: "id"`): import columns an import into an existing account leaves as they
   * are (its own e-mail and user name), because they identify that account, not the archived one.
   */
  identityColumns?: readonly string[];
};

/** What a section receives: a transaction, the owner, and helpers that need configuration. */
export type RegistryContext = {
  tx: Db;
  userId: string;
  /** A stable pseudonymous uuid for `userId` (keyed with the server secret). */
  pseudonym: (userId: string) => string;
  filesDir: string;
  /**
   * Removes `FILES_DIR/<area>/<name>` for good: queued in this transaction, removed right after the commit
   * and by the `files.remove` job until it is gone (lib/file-removals.ts).
   */
  removeFile: (area: string, name: string) => Promise<void>;
  /**
   * Best-effort work once the transaction has committed (revoking grants at providers): a failure is
   * logged, never thrown, since the rows are gone by then. Anything that must happen goes through a table
   * written in the transaction instead (files, provider customers).
   */
  afterCommit: (task: () => Promise<void>) => void;
  /** Undo for work outside the database when the transaction fails (a file written for an import). */
  onRollback: (task: () => Promise<void>) => void;
};

export type StoredFile = { area: string; name: string; data: string };

export type SectionData = {
  tables: Record<string, Record<string, unknown>[]>;
  /** Files the section owns, base64 encoded. */
  files?: StoredFile[];
};

export type UserDataSection = {
  /** The archive key; the owning module's domain name. */
  name: string;
  tables: Record<string, TableSpec>;
  /** Optional extra work beside the generic table handling (files). */
  exportExtra?: (ctx: RegistryContext, data: SectionData) => Promise<void>;
  importExtra?: (ctx: RegistryContext, data: SectionData) => Promise<void>;
  /**
   * Rebuilds rows derived from other sections once every section is imported, in the same transaction;
   * runs whether or not the archive holds this section (an older archive may lack it).
   */
  afterImport?: (ctx: RegistryContext) => Promise<void>;
  deleteExtra?: (ctx: RegistryContext) => Promise<void>;
  /**
   * Runs in the deletion's transaction before any section deletes anything: takes the locks the
   * section's writers take first, so a write in flight ends before the deletion or waits for it.
   */
  beforeDelete?: (ctx: RegistryContext) => Promise<void>;
};

export const ACCOUNT_ARCHIVE_FORMAT = "tonus-account-data";

const RowSchema = z.record(z.string(), z.unknown());
export const AccountArchiveSchema = z.object({
  format: z.literal(ACCOUNT_ARCHIVE_FORMAT),
  version: z.literal(1),
  user_id: z.uuid(),
  exported_at: z.string(),
  sections: z.record(
    z.string(),
    z.object({
      tables: z.record(z.string(), z.array(RowSchema).max(1_000_000)),
      files: z
        .array(z.object({ area: z.string(), name: z.string(), data: z.string() }))
        .max(1000)
        .optional(),
    }),
  ),
});
export type AccountArchive = z.infer<typeof AccountArchiveSchema>;

const EXPORTED: ReadonlySet<TablePolicy> = new Set(["portable", "exported", "pseudonymised"]);
const IDENTIFIER_RE = /^[a-z_][a-z0-9_]*$/;

function ident(name: string) {
  if (!IDENTIFIER_RE.test(name)) throw new Error(`Not a plain SQL identifier: ${name}`);
  return sql.identifier(name);
}

async function tableColumns(tx: Db, table: string): Promise<Set<string>> {
  const r = (await tx.execute(
    sql`select column_name from information_schema.columns where table_schema = 'public' and table_name = ${table}`,
  )) as unknown as { rows: { column_name: string }[] };
  return new Set(r.rows.map((row) => row.column_name));
}

async function exportTable(tx: Db, table: string, spec: TableSpec, userId: string) {
  const omit = spec.exportOmit ?? [];
  const r = (await tx.execute(
    sql`select to_jsonb(t) as row from ${ident(table)} t where ${ident(spec.key ?? "user_id")} = ${userId}
        order by to_jsonb(t)::text`,
  )) as unknown as { rows: { row: Record<string, unknown> | string }[] };
  return r.rows.map(({ row }) => {
    const value: Record<string, unknown> = typeof row === "string" ? JSON.parse(row) : { ...row };
    for (const column of omit) delete value[column];
    return value;
  });
}

async function importTable(
  tx: Db,
  table: string,
  spec: TableSpec,
  userId: string,
  rows: Record<string, unknown>[],
) {
  if (rows.length === 0) return;
  const key = spec.key ?? "user_id";
  const existing = await tableColumns(tx, table);
  const allowed = (spec.importColumns ?? []).filter((c) => existing.has(c) && c !== key);
  const forced = rows.map((row) => {
    const value: Record<string, unknown> = { [key]: userId };
    for (const c of allowed) if (c in row) value[c] = row[c];
    return value;
  });
  // Only columns some row carries are inserted, so the others take their defaults; a row lacking one
  // of those gets NULL there, which a NOT NULL column refuses (the whole import then fails).
  const columns = [key, ...allowed.filter((c) => forced.some((row) => c in row))];
  const list = sql.join(
    columns.map((c) => ident(c)),
    sql`, `,
  );
  const picked = sql.join(
    columns.map((c) => sql`r.${ident(c)}`),
    sql`, `,
  );
  const where = spec.importWhere ? sql` where ${sql.raw(spec.importWhere)}` : sql``;
  await tx.execute(
    sql`insert into ${ident(table)} (${list})
        select ${picked} from jsonb_populate_recordset(null::${ident(table)}, ${JSON.stringify(forced)}::jsonb) r${where}`,
  );
}

/** Updates the existing account row from the archived one (allowlisted, non-identity columns only). */
async function updateOwnerRow(
  tx: Db,
  table: string,
  spec: TableSpec,
  userId: string,
  row: Record<string, unknown>,
) {
  const key = spec.key ?? "id";
  const existing = await tableColumns(tx, table);
  const identity = new Set(spec.identityColumns ?? []);
  const columns = (spec.importColumns ?? []).filter(
    (c) => existing.has(c) && c !== key && !identity.has(c) && c in row,
  );
  if (columns.length === 0) return;
  const set = sql.join(
    columns.map((c) => sql`${ident(c)} = r.${ident(c)}`),
    sql`, `,
  );
  await tx.execute(
    sql`update ${ident(table)} t set ${set}
        from jsonb_populate_record(null::${ident(table)}, ${JSON.stringify(row)}::jsonb) r
        where t.${ident(key)} = ${userId}`,
  );
}

/** Rows the person has in each `portable` table (their account row aside). */
async function portableCounts(tx: Db, registry: UserDataRegistry, userId: string) {
  const counts: Record<string, number> = {};
  for (const section of registry.sections) {
    for (const [table, spec] of Object.entries(section.tables)) {
      if (spec.policy !== "portable" || spec.key === "id") continue;
      const r = (await tx.execute(
        sql`select count(*)::int as n from ${ident(table)} where ${ident(spec.key ?? "user_id")} = ${userId}`,
      )) as unknown as { rows: { n: number }[] };
      counts[table] = Number(r.rows[0]?.n ?? 0);
    }
  }
  return counts;
}

/** How many rows of each portable table the person has (what an archive import brings back). */
export async function countPortableRows(env: RegistryEnv, userId: string): Promise<Record<string, number>> {
  return portableCounts(env.db, env.registry, userId);
}

async function deleteTable(tx: Db, table: string, spec: TableSpec, ctx: RegistryContext) {
  const key = ident(spec.key ?? "user_id");
  if (spec.policy === "pseudonymised") {
    await tx.execute(
      sql`update ${ident(table)} set ${key} = ${ctx.pseudonym(ctx.userId)} where ${key} = ${ctx.userId}`,
    );
  } else {
    await tx.execute(sql`delete from ${ident(table)} where ${key} = ${ctx.userId}`);
  }
}

/** The registry itself: sections in registration order (the account section first). */
export class UserDataRegistry {
  readonly sections: UserDataSection[] = [];

  register(section: UserDataSection): void {
    if (this.sections.some((s) => s.name === section.name))
      throw new Error(`Data section ${section.name} is registered twice`);
    for (const table of Object.keys(section.tables)) {
      const owner = this.sections.find((s) => table in s.tables);
      if (owner) throw new Error(`Table ${table} is covered by both ${owner.name} and ${section.name}`);
    }
    this.sections.push(section);
  }

  /** Every table some section covers, with its policy. */
  coveredTables(): Map<string, TablePolicy> {
    const out = new Map<string, TablePolicy>();
    for (const s of this.sections) for (const [t, spec] of Object.entries(s.tables)) out.set(t, spec.policy);
    return out;
  }
}

export type RegistryEnv = {
  db: Db;
  registry: UserDataRegistry;
  pseudonym: (userId: string) => string;
  filesDir: string;
  /**
   * Removes the person's queued background jobs after deletion (jobs carry `userId` in their data), and
   * sends the file-removal job in the deleting transaction.
   */
  jobs?: Pick<JobRunner, "deleteQueuedJobsOf" | "send" | "started">;
  /** The deletion ledger's file outside the database (DELETION_LEDGER); the table alone when unset. */
  ledgerFile?: string;
  log?: Logger;
};

/** The registry environment of a running app. */
export function registryEnv(
  ctx: Pick<AppContext, "config" | "database" | "services"> & Partial<Pick<AppContext, "log">>,
): RegistryEnv {
  return {
    db: ctx.database.db,
    registry: ctx.services.registry,
    pseudonym: (userId) => pseudonymUuid(ctx.config.secretKey, userId),
    filesDir: ctx.config.filesDir,
    jobs: ctx.services.jobs,
    ledgerFile: ctx.config.deletionLedger,
    ...(ctx.log ? { log: ctx.log } : {}),
  };
}

async function inTransaction(
  env: RegistryEnv,
  userId: string,
  work: (ctx: RegistryContext) => Promise<void>,
) {
  const tasks: (() => Promise<void>)[] = [];
  const undo: (() => Promise<void>)[] = [];
  let filesQueued = false;
  try {
    await env.db.transaction(async (tx) => {
      const txDb = tx as unknown as Db;
      await work({
        tx: txDb,
        userId,
        pseudonym: env.pseudonym,
        filesDir: env.filesDir,
        removeFile: async (area, name) => {
          await queueFileRemoval(txDb, area, name);
          filesQueued = true;
        },
        afterCommit: (task) => tasks.push(task),
        onRollback: (task) => undo.push(task),
      });
      // The job exists only if this transaction commits; it outlives a crash right after the commit.
      if (filesQueued && env.jobs?.started) await env.jobs.send(FILE_REMOVAL_JOB, {}, { tx: txDb });
    });
  } catch (error) {
    for (const task of undo) await task().catch(() => {});
    throw error;
  }
  if (filesQueued) tasks.unshift(async () => void (await removeQueuedFiles(env.db, env.filesDir, env.log)));
  for (const task of tasks) {
    try {
      await task();
    } catch (error) {
      env.log?.warn({ err: error }, "work after an account-data transaction failed; it is retried or logged");
    }
  }
}

/** Everything the registry exports for one user, read in one transaction (a consistent snapshot). */
export async function exportUserData(env: RegistryEnv, userId: string): Promise<AccountArchive> {
  const sections: AccountArchive["sections"] = {};
  await inTransaction(env, userId, async (ctx) => {
    for (const section of env.registry.sections) {
      const data: SectionData = { tables: {} };
      for (const [table, spec] of Object.entries(section.tables)) {
        if (EXPORTED.has(spec.policy)) data.tables[table] = await exportTable(ctx.tx, table, spec, userId);
      }
      if (section.exportExtra) await section.exportExtra(ctx, data);
      sections[section.name] = data;
    }
  });
  return {
    format: ACCOUNT_ARCHIVE_FORMAT,
    version: 1,
    user_id: userId,
    exported_at: new Date().toISOString(),
    sections,
  };
}

/**
 * Deletes one user's data in one transaction, sections in reverse order (the account row last), and lists
 * the account in the deletion ledger; files are queued for removal in the same transaction and removed
 * after the commit (and by a job until gone), queued jobs go after the commit. Audit rows are
 * pseudonymised, not deleted.
 */
export async function deleteUserData(env: RegistryEnv, userId: string): Promise<void> {
  await inTransaction(env, userId, async (ctx) => {
    const idHash = await recordDeletion(ctx.tx, userId);
    const ledgerFile = env.ledgerFile;
    // After the commit: a crash before this line is repaired at the next start from the table.
    if (ledgerFile) ctx.afterCommit(async () => appendLedgerLines(ledgerFile, [`deleted ${idHash}`]));
    if (env.jobs) {
      const jobs = env.jobs;
      ctx.afterCommit(async () => {
        await jobs.deleteQueuedJobsOf(userId);
      });
    }
    for (const section of env.registry.sections) if (section.beforeDelete) await section.beforeDelete(ctx);
    for (const section of [...env.registry.sections].reverse()) {
      if (section.deleteExtra) await section.deleteExtra(ctx);
      for (const [table, spec] of Object.entries(section.tables).reverse()) {
        await deleteTable(ctx.tx, table, spec, ctx);
      }
    }
  });
}

/**
 * At start, before the server listens: accounts the deletion ledger lists but the database holds (a backup
 * taken before their deletion was restored) are deleted again. Answers how many.
 */
export async function reapplyDeletionLedger(env: RegistryEnv): Promise<number> {
  const ids = await accountsToDeleteAgain(env.db, env.ledgerFile);
  for (const id of ids) await deleteUserData(env, id);
  if (ids.length > 0)
    env.log?.warn({ accounts: ids.length }, "deleted accounts restored from a backup were deleted again");
  return ids.length;
}

/**
 * Imports an archive (untrusted input) as `asUserId` (default: the archive's own id). Only `portable`
 * tables are read, only their allowlisted columns, and every row's owner is forced to the target user,
 * so an edited archive cannot reach another account or grant itself privileges. One transaction: a bad
 * archive leaves nothing behind.
 *
 * `intoExistingAccount`: the account row of `asUserId` exists (the person signed up and restores their
 * archive): it must hold no data yet (409 `account_not_empty` otherwise, checked under a lock on the
 * account row), and its profile columns are updated from the archive instead of a row being inserted.
 */
export async function importUserData(
  env: RegistryEnv,
  input: unknown,
  opts: { asUserId?: string; intoExistingAccount?: boolean } = {},
): Promise<string> {
  const parsed = AccountArchiveSchema.safeParse(input);
  if (!parsed.success) throw new AppError("validation_failed", "Not a Tonus account archive");
  const archive = parsed.data;
  const userId = opts.asUserId ?? archive.user_id;
  try {
    await inTransaction(env, userId, async (ctx) => {
      if (opts.intoExistingAccount) await assertEmptyAccount(env.registry, ctx);
      else {
        // The archive's own account comes back on purpose: the ledger must not delete it again at start.
        const restored = await recordRestore(ctx.tx, userId);
        const ledgerFile = env.ledgerFile;
        if (restored && ledgerFile)
          ctx.afterCommit(async () => appendLedgerLines(ledgerFile, [`restored ${restored}`]));
      }
      for (const section of env.registry.sections) {
        const data = archive.sections[section.name];
        if (!data) continue;
        for (const [table, spec] of Object.entries(section.tables)) {
          const rows = data.tables[table];
          if (spec.policy !== "portable" || !rows) continue;
          if (opts.intoExistingAccount && spec.key === "id") {
            if (rows[0]) await updateOwnerRow(ctx.tx, table, spec, userId, rows[0]);
          } else await importTable(ctx.tx, table, spec, userId, rows);
        }
        if (section.importExtra) await section.importExtra(ctx, data);
      }
      for (const section of env.registry.sections) if (section.afterImport) await section.afterImport(ctx);
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = pgErrorCode(error);
    if (code === "23505") throw new AppError("conflict", "An account with this e-mail or id already exists");
    if (typeof code === "string" && /^(22|23)/.test(code))
      throw new AppError("validation_failed", "The archive holds values this server cannot accept");
    throw error;
  }
  return userId;
}

async function assertEmptyAccount(registry: UserDataRegistry, ctx: RegistryContext): Promise<void> {
  const owner = registry.sections
    .flatMap((s) => Object.entries(s.tables))
    .find(([, spec]) => spec.policy === "portable" && spec.key === "id");
  if (owner) {
    const r = (await ctx.tx.execute(
      sql`select 1 from ${ident(owner[0])} where id = ${ctx.userId} for update`,
    )) as unknown as { rows: unknown[] };
    if (r.rows.length === 0) throw new AppError("not_found", "Not found");
  }
  const counts = await portableCounts(ctx.tx, registry, ctx.userId);
  const filled = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([table]) => table);
  if (filled.length > 0)
    throw new AppError(
      "account_not_empty",
      "This account already holds data: an archive can be imported only into an empty account",
      { tables: filled },
    );
}
