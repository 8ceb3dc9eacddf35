import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../db/client.ts";
import { oauthClients } from "../../db/schema.ts";
import { sha256 } from "../../lib/crypto.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { registerClientCommand } from "./oauth.cli.ts";

const CLI = path.join(import.meta.dirname, "../../cli.ts");
const URI = "https://ifttt.com/channels/tonus/authorize";

describe.each(BACKENDS)("register-oauth-client on %s", (backend) => {
  let database: Database;
  beforeAll(async () => {
    database = await getTestDatabase(backend);
  });
  beforeEach(async () => resetDatabase(database));

  it("registers IFTTT with non-expiring tokens and a secret stored only as a hash", async () => {
    const result = await registerClientCommand(database.db, ["ifttt", "IFTTT", URI]);
    expect(result.ok).toBe(true);
    const secret = /client_secret: (\S+)/.exec(result.message)?.[1] ?? "";
    const [row] = await database.db.select().from(oauthClients);
    expect(row).toMatchObject({
      id: "ifttt",
      tokenPolicy: "non_expiring",
      redirectUris: [URI],
      secretHash: sha256(secret),
    });
    const again = await registerClientCommand(database.db, ["ifttt", "IFTTT", URI, "https://ifttt.com/x"]);
    expect(again.message).toContain("Replaced");
    expect((await database.db.select().from(oauthClients))[0]?.redirectUris).toHaveLength(2);
  });

  it("registers a public expiring client and refuses bad input", async () => {
    const pub = await registerClientCommand(database.db, [
      "helper",
      "Helper",
      "http://localhost:5173/cb",
      "--public",
    ]);
    expect(pub.message).toContain("PKCE");
    expect((await database.db.select().from(oauthClients))[0]).toMatchObject({
      secretHash: null,
      tokenPolicy: "expiring",
    });
    for (const args of [
      ["x", "X", URI],
      ["ok-id", "Name", "http://example.com/cb"],
      ["ok-id", "Name", `${URI}#f`],
      ["ok-id", "Name", URI, "--expiring", "--non-expiring"],
      ["ok-id", "Name", URI, "--admin"],
    ]) {
      expect((await registerClientCommand(database.db, args)).ok, args.join(" ")).toBe(false);
    }
  });
});

describe("register-oauth-client as a process", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-oauth-cli-"));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it("prints the secret once and exits 0; bad usage exits 2", async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], {
          env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", DATA_DIR: dataDir },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        child.stderr.on("data", (d: Buffer) => (err += d.toString()));
        child.on("exit", (code) => resolve({ code, out, err }));
      });
    const ok = await run(["register-oauth-client", "ifttt", "IFTTT", URI]);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/client_secret: tcs_/);
    const usage = await run(["register-oauth-client", "ifttt"]);
    expect(usage.code).toBe(2);
    const database = await openDatabase({ pgliteDir: path.join(dataDir, "pgdata") });
    try {
      expect(await database.db.select({ id: oauthClients.id }).from(oauthClients)).toEqual([{ id: "ifttt" }]);
    } finally {
      await database.close();
    }
  }, 180_000);
});
