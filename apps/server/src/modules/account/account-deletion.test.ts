import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { API, BILLING_API, REFERRAL_API } from "@tonus/contract";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { dataArchives, deletedAccounts, fileRemovals, mailOutbox, users } from "../../db/schema.ts";
import { deletedIdHash, readLedgerFile } from "../../lib/deletion-ledger.ts";
import { FILE_REMOVAL_JOB, removeQueuedFiles } from "../../lib/file-removals.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { writeArchiveFile } from "./archive.files.ts";

function multipartPng(data: Buffer) {
  const boundary = "----deletion-test";
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="me.png"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

/** Every row naming `userId` in a column the registry keys on (user_id, or id of users). */
async function rowsOf(app: App, userId: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table] of app.ctx.services.registry.coveredTables()) {
    const key = table === "users" ? "id" : "user_id";
    const { rows } = await app.ctx.database.query<{ row: Record<string, unknown> }>(
      `select to_jsonb(t) as row from "${table}" t where "${key}" = $1 order by to_jsonb(t)::text`,
      [userId],
    );
    if (rows.length > 0) out[table] = rows.map((r) => r.row);
  }
  return out;
}

/** Puts rows back as a restore of an older backup would (the account row first, as registered). */
async function restoreRows(app: App, snapshot: Record<string, unknown[]>) {
  const order = [...app.ctx.services.registry.coveredTables().keys()];
  for (const table of order) {
    const rows = snapshot[table];
    if (!rows) continue;
    await app.ctx.database.query(
      `insert into "${table}" select * from jsonb_populate_recordset(null::"${table}", $1::jsonb)`,
      [JSON.stringify(rows)],
    );
  }
}

describe.each(BACKENDS)("account deletion on %s", (backend) => {
  let app: App;
  let user: TestUser;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-deletion-"));
  const filesDir = path.join(dir, "files");
  const ledger = path.join(dir, "deletion-ledger.log");

  beforeAll(async () => {
    // Jobs are sent, not worked: the tests run the removals themselves.
    app = await buildTestApp(
      await getTestDatabase(backend),
      { FILES_DIR: filesDir, DELETION_LEDGER: ledger },
      { workJobs: false },
    );
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    fs.rmSync(ledger, { force: true });
    await app.ctx.services.jobs.boss.deleteAllJobs(FILE_REMOVAL_JOB);
    user = await createTestUser(app.ctx.database, { name: "Deletable" });
  });

  async function uploadPicture(): Promise<string> {
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: "#0a0" } })
      .png()
      .toBuffer();
    const res = await user.client(app).request("POST", API.userpicUpload, multipartPng(png));
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await app.ctx.database.db.select().from(users).where(eq(users.id, user.userId));
    const name = row?.userpicPath ?? "";
    expect(fs.existsSync(path.join(filesDir, "userpics", name))).toBe(true);
    return path.join(filesDir, "userpics", name);
  }

  it("deletes and logs out although a file cannot be removed yet; the queued removal finishes it later", async () => {
    const picture = await uploadPicture();
    const archiveName = `${"a".repeat(32)}.zip`;
    await writeArchiveFile(filesDir, archiveName, Buffer.from("zip"));
    await app.ctx.database.db
      .insert(dataArchives)
      .values({ userId: user.userId, status: "ready", fileName: archiveName, readyAt: new Date() });
    // A directory where the picture was: removing it fails (EISDIR) as a locked or busy file would.
    fs.rmSync(picture);
    fs.mkdirSync(picture);
    fs.writeFileSync(path.join(picture, "x"), "x");

    const client = user.client(app);
    const res = await client.post(BILLING_API.userDelete);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect((await client.get(API.profile)).statusCode).toBe(403);
    expect(await rowsOf(app, user.userId)).toEqual({});
    expect(fs.existsSync(path.join(filesDir, "archives", archiveName))).toBe(false);

    // The picture is still queued, with its error, and a removal job was sent with the deletion.
    const [queued] = await app.ctx.database.db.select().from(fileRemovals);
    expect(queued).toMatchObject({ area: "userpics", name: path.basename(picture), attempts: 1 });
    expect(queued?.lastError).toBeTruthy();
    const jobs = await app.ctx.services.jobs.boss.findJobs(FILE_REMOVAL_JOB, { queued: true });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.data).toEqual({});

    expect(await removeQueuedFiles(app.ctx.database.db, filesDir)).toEqual({ removed: 0, failed: 1 });
    // Whatever held the file lets go: the next run removes it and forgets it.
    fs.rmSync(picture, { recursive: true });
    fs.writeFileSync(picture, "picture");
    expect(await removeQueuedFiles(app.ctx.database.db, filesDir)).toEqual({ removed: 1, failed: 0 });
    expect(fs.existsSync(picture)).toBe(false);
    expect(await app.ctx.database.db.select().from(fileRemovals)).toHaveLength(0);
  });

  it("takes invitation mail out of the outbox with the inviter, and mail to a friend's address with the friend", async () => {
    const client = user.client(app);
    expect((await client.post(REFERRAL_API.invite, { email: "stranger@example.test" })).statusCode).toBe(200);
    expect((await client.post(REFERRAL_API.invite, { email: "friend@example.test" })).statusCode).toBe(200);
    const outbox = () => app.ctx.database.db.select().from(mailOutbox);
    expect((await outbox()).map((m) => [m.to, m.userId])).toEqual([
      ["stranger@example.test", user.userId],
      ["friend@example.test", user.userId],
    ]);
    // The friend joins (another account) and leaves again: mail to their address goes with them.
    const friend = await createTestUser(app.ctx.database, { email: "Friend@Example.test" });
    expect((await friend.client(app).post(BILLING_API.userDelete)).statusCode).toBe(200);
    expect((await outbox()).map((m) => m.to)).toEqual(["stranger@example.test"]);
    // The inviter leaves: their invitation to the stranger goes with them.
    expect((await client.post(BILLING_API.userDelete)).statusCode).toBe(200);
    expect(await outbox()).toEqual([]);
  });

  it("lists the deleted account in the ledger, table and file, by a hash of its id only", async () => {
    expect((await user.client(app).post(BILLING_API.userDelete)).statusCode).toBe(200);
    const hash = deletedIdHash(user.userId);
    expect(await app.ctx.database.db.select().from(deletedAccounts)).toMatchObject([{ idHash: hash }]);
    const text = fs.readFileSync(ledger, "utf8");
    expect(text).toBe(`deleted ${hash}\n`);
    expect(text).not.toContain(user.userId);
    expect(text).not.toContain(user.email);
  });

  it("deletes again at start an account a restored backup brought back, with its files (X7)", async () => {
    const picture = await uploadPicture();
    const other = await createTestUser(app.ctx.database);
    // The backup: the person's rows and files, taken before the deletion (no ledger entry yet).
    const backup = await rowsOf(app, user.userId);
    expect(Object.keys(backup)).toEqual(expect.arrayContaining(["users", "sessions"]));
    const pictureBytes = fs.readFileSync(picture);
    expect((await user.client(app).post(BILLING_API.userDelete)).statusCode).toBe(200);
    expect(fs.existsSync(picture)).toBe(false);

    // Restore: the rows and the file come back and the database's ledger is the backup's (empty); the
    // ledger file is kept, as docs/operations.md says.
    await restoreRows(app, backup);
    await app.ctx.database.db.delete(deletedAccounts);
    fs.writeFileSync(picture, pictureBytes);
    expect(await rowsOf(app, user.userId)).toEqual(backup);

    const restarted = await buildTestApp(
      app.ctx.database,
      { FILES_DIR: filesDir, DELETION_LEDGER: ledger },
      { workJobs: false },
    );
    try {
      expect(await rowsOf(app, user.userId)).toEqual({});
      expect(fs.existsSync(picture)).toBe(false);
      expect(await rowsOf(app, other.userId)).not.toEqual({});
      expect(await app.ctx.database.db.select().from(deletedAccounts)).toMatchObject([
        { idHash: deletedIdHash(user.userId) },
      ]);
    } finally {
      await restarted.close();
    }
  });

  it("re-applies from the table when the file was lost, and writes the file again", async () => {
    const backup = await rowsOf(app, user.userId);
    expect((await user.client(app).post(BILLING_API.userDelete)).statusCode).toBe(200);
    await restoreRows(app, backup);
    fs.rmSync(ledger);
    const restarted = await buildTestApp(
      app.ctx.database,
      { FILES_DIR: filesDir, DELETION_LEDGER: ledger },
      { workJobs: false },
    );
    await restarted.close();
    expect(await rowsOf(app, user.userId)).toEqual({});
    expect(readLedgerFile(ledger).deleted).toEqual(new Set([deletedIdHash(user.userId)]));
  });
});
