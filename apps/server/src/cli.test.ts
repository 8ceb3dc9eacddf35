import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "./db/client.ts";
import { acquireDataDirLock } from "./db/lock.ts";
import { auditLog, users } from "./db/schema.ts";
import { BACKENDS, getTestDatabase } from "./test/databases.ts";

const CLI = path.join(import.meta.dirname, "cli.ts");

type Result = { code: number | null; stdout: string; stderr: string };

function runCli(args: string[], env: Record<string, string>): Promise<Result> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

describe.each(BACKENDS)("operator CLI as a process on %s", (backend) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-cli-"));
  const suffix = Math.random().toString(36).slice(2, 8);
  const alice = `alice-${suffix}@example.test`;
  const bob = `bob-${suffix}@example.test`;
  let env: Record<string, string>;
  /** Opens the database the CLI uses (on PGlite only between CLI runs: one writer at a time). */
  let withDb: <T>(work: (database: Database) => Promise<T>) => Promise<T>;

  beforeAll(async () => {
    if (backend === "pglite") {
      env = { DATA_DIR: dataDir };
      withDb = async (work) => {
        const database = await openDatabase({ pgliteDir: path.join(dataDir, "pgdata") });
        try {
          return await work(database);
        } finally {
          await database.close();
        }
      };
    } else {
      const database = await getTestDatabase("postgres");
      env = { DATABASE_URL: database.connectionString ?? "", DATA_DIR: dataDir };
      withDb = (work) => work(database);
    }
    await withDb((database) =>
      database.db.insert(users).values([
        { email: alice, username: `alice-${suffix}` },
        { email: bob, username: `bob-${suffix}` },
      ]),
    );
  }, 60_000);
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const userRow = (email: string) =>
    withDb(async (database) => (await database.db.select().from(users).where(eq(users.email, email)))[0]);

  it("grants and revokes the operator role and marks customers, with audit rows", async () => {
    const grant = await runCli(["grant-operator", alice.toUpperCase()], env);
    expect(grant, grant.stderr).toMatchObject({ code: 0, stdout: `${alice} is an operator\n` });
    expect((await runCli(["grant-operator", alice], env)).stdout).toBe(`${alice} is an operator already\n`);
    const mark = await runCli(["mark-customer", bob], env);
    expect(mark.code, mark.stderr).toBe(0);
    expect(await userRow(alice)).toMatchObject({ role: "operator", isCustomerOverride: false });
    expect(await userRow(bob)).toMatchObject({ role: "user", isCustomerOverride: true });

    const list = await runCli(["list-users"], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${alice.replace(/\./g, "\\.")}\\s+operator\\s+-\\s+\\d{4}-`));
    expect(list.stdout).toMatch(new RegExp(`${bob.replace(/\./g, "\\.")}\\s+user\\s+marked\\s+`));

    expect((await runCli(["revoke-operator", alice], env)).code).toBe(0);
    expect((await runCli(["unmark-customer", bob], env)).code).toBe(0);
    expect(await userRow(alice)).toMatchObject({ role: "user" });
    expect(await userRow(bob)).toMatchObject({ isCustomerOverride: false });
    const aliceId = (await userRow(alice))?.id ?? "";
    const bobId = (await userRow(bob))?.id ?? "";
    const actions = await withDb(async (database) =>
      (await database.db.select().from(auditLog)).filter((r) => r.userId === aliceId || r.userId === bobId),
    );
    expect(actions.map((a) => a.action).sort()).toEqual([
      "customer.marked",
      "customer.unmarked",
      "role.granted",
      "role.revoked",
    ]);
  }, 240_000);

  it("answers an unknown e-mail with 1 and bad usage with 2, changing nothing", async () => {
    const unknown = await runCli(["grant-operator", `nobody-${suffix}@example.test`], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`tonus: no user with e-mail nobody-${suffix}@example.test\n`);
    const notEmail = await runCli(["mark-customer", "not-an-email"], env);
    expect(notEmail.code).toBe(1);
    for (const args of [[], ["frobnicate", alice], ["grant-operator"], ["list-users", alice]]) {
      const res = await runCli(args, env);
      expect(res.code, args.join(" ")).toBe(2);
      expect(res.stderr).toContain("Usage: npm run cli");
    }
  }, 240_000);

  it.runIf(backend === "pglite")(
    "refuses to touch the embedded database while a server holds its lock",
    async () => {
      const release = acquireDataDirLock(dataDir, () => {});
      try {
        const res = await runCli(["grant-operator", alice], env);
        expect(res.code).toBe(1);
        expect(res.stderr).toContain(`in use by another Tonus process (pid ${process.pid})`);
        expect(res.stderr).toContain("stop the server");
      } finally {
        release();
      }
      expect(await userRow(alice)).toMatchObject({ role: "user" });
    },
    60_000,
  );
});
