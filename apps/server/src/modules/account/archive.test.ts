import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ARCHIVE_API, BILLING_API } from "@tonus/contract";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { auditLog, dataArchives, mailOutbox } from "../../db/schema.ts";
import { createMailer, type Mailer } from "../../lib/mailer.ts";
import { deleteUserData, importUserData, registryEnv } from "../../lib/registry.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { toCsv } from "./archive.format.ts";
import { ARCHIVE_RETRIES, buildArchive, expireArchives, packArchive } from "./archive.service.ts";
import { readZip } from "./zip.ts";

describe("archive CSV (RELIABILITY X2)", () => {
  it("escapes formula starts, keeps numbers numeric, quotes per RFC 4180 and starts with a BOM", () => {
    const csv = toCsv([
      {
        a: "=SUM(A1)",
        b: -5.2,
        c: "+1",
        d: "@x",
        e: "-x",
        f: 'Привет, "мир"',
        g: true,
        h: null,
        i: { k: 1 },
      },
    ]);
    expect(csv.startsWith("\uFEFF")).toBe(true);
    const [header, line] = csv.slice(1).split("\r\n");
    expect(header).toBe("a,b,c,d,e,f,g,h,i");
    expect(line).toBe(`'=SUM(A1),-5.2,'+1,'@x,'-x,"Привет, ""мир""",true,,"{""k"":1}"`);
  });
});

describe.each(BACKENDS)("data-export archive on %s", (backend) => {
  let app: App;
  let user: TestUser;
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-archive-"));

  /** The next this-many mails fail, as an SMTP server that is down would make them. */
  let failMails = 0;
  let outbox: Mailer | undefined;
  const mailer: Mailer = {
    send: async (mail) => {
      if (failMails > 0) {
        failMails--;
        throw new Error("SMTP server unavailable");
      }
      outbox ??= createMailer({ db: app.ctx.database.db, from: "Tonus <t@t>", log: app.log });
      await outbox.send(mail);
    },
  };

  beforeAll(async () => {
    app = await buildTestApp(
      await getTestDatabase(backend),
      { FILES_DIR: filesDir },
      { workJobs: false, mailer },
    );
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(filesDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    failMails = 0;
    fs.rmSync(path.join(filesDir, "archives"), { recursive: true, force: true });
    await resetDatabase(app.ctx.database);
    user = await createTestUser(app.ctx.database, { name: "=cmd|' /C calc'!A0" });
    await app.ctx.database.query(
      "insert into bp_readings (user_id, systolic, diastolic, pulse, measured_at, time_zone) values ($1, 128, 82, 64, '2026-03-01T08:00:00Z', 'Europe/Moscow')",
      [user.userId],
    );
  });

  async function packLatest() {
    const [row] = await app.ctx.database.db
      .select()
      .from(dataArchives)
      .where(eq(dataArchives.userId, user.userId));
    if (!row) throw new Error("no archive row");
    await packArchive(app.ctx, row.id);
    const [packed] = await app.ctx.database.db.select().from(dataArchives).where(eq(dataArchives.id, row.id));
    return path.join(filesDir, "archives", packed?.fileName ?? "missing");
  }

  it("packs the account as JSON, CSV and a FHIR bundle, mails the owner and lets only the owner download", async () => {
    const client = user.client(app);
    expect((await client.get(ARCHIVE_API.archive)).json()).toMatchObject({ status: "none" });
    const requested = await client.post(ARCHIVE_API.archive);
    expect(requested.json()).toMatchObject({ status: "packing", download_url: null });
    expect((await client.post(ARCHIVE_API.archive)).json().id).toBe(requested.json().id);
    await packLatest();
    const status = (await client.get(ARCHIVE_API.archive)).json();
    expect(status).toMatchObject({ status: "ready" });
    const [mail] = await app.ctx.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, user.email));
    expect(mail?.subject).toBe("Your Tonus data archive is ready");

    const download = await client.get(status.download_url);
    expect(download.statusCode).toBe(200);
    expect(download.headers["cache-control"]).toBe("no-store");
    expect(download.headers["content-disposition"]).toMatch(
      /^attachment; filename="tonus-data-\d{4}-\d\d-\d\d\.zip"; filename\*=UTF-8''/,
    );
    const files = await readZip(download.rawPayload);
    const account = JSON.parse(files.get("account.json")?.toString() ?? "{}");
    expect(account.user_id).toBe(user.userId);
    expect(account.sections.bp.tables.bp_readings).toHaveLength(1);
    expect(files.get("account/users.csv")?.toString()).toContain("'=cmd");
    const bundle = JSON.parse(files.get("fhir-bundle.json")?.toString() ?? "{}");
    expect(bundle).toMatchObject({ resourceType: "Bundle", type: "collection" });
    const codes = bundle.entry.map(
      (e: { resource: { code: { coding: { code: string }[] } } }) => e.resource.code.coding[0]?.code,
    );
    expect(codes.sort()).toEqual(["85354-9", "8867-4"]);
    expect(
      bundle.entry[0].resource.component.map(
        (c: { valueQuantity: { value: number } }) => c.valueQuantity.value,
      ),
    ).toEqual([128, 82]);

    // X8: the request and the download are in the audit log, by archive id, with nothing personal.
    const audit = await app.ctx.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.userId, user.userId))
      .orderBy(auditLog.id);
    const entries = audit.filter((a) => a.action.startsWith("account.archive_"));
    expect(entries.map((a) => [a.action, a.objectId])).toEqual([
      ["account.archive_requested", status.id],
      ["account.archive_requested", status.id],
      ["account.archive_downloaded", status.id],
    ]);
    for (const entry of entries) {
      expect(entry.requestId).toBeTruthy();
      expect(entry.meta).toEqual({});
      const text = JSON.stringify(entry);
      expect(text).not.toContain(user.email);
      expect(text).not.toContain("calc");
    }

    const other = (await createTestUser(app.ctx.database)).client(app);
    expect((await other.get(status.download_url)).statusCode).toBe(404);
    expect((await app.inject({ method: "GET", url: status.download_url })).statusCode).toBe(403);
  });

  it("restores the same data from the zip's account.json after the account is gone (X1)", async () => {
    const env = registryEnv(app.ctx);
    const before = await readZip(await buildArchive(app.ctx, user.userId));
    const json = JSON.parse(before.get("account.json")?.toString() ?? "{}");
    await deleteUserData(env, user.userId);
    expect(await importUserData(env, json)).toBe(user.userId);
    const after = await readZip(await buildArchive(app.ctx, user.userId));
    const afterJson = JSON.parse(after.get("account.json")?.toString() ?? "{}");
    // Row ids and bookkeeping times are the new instance's own; every value the person entered comes back.
    const strip = (rows: Record<string, unknown>[]) =>
      rows.map(({ id: _id, created_at: _c, updated_at: _u, ...rest }) => rest);
    for (const [section, table] of [
      ["bp", "bp_readings"],
      ["account", "users"],
    ] as const)
      expect(strip(afterJson.sections[section].tables[table]), table).toEqual(
        strip(json.sections[section].tables[table]),
      );
  });

  async function latestRow() {
    const [row] = await app.ctx.database.db
      .select()
      .from(dataArchives)
      .where(eq(dataArchives.userId, user.userId));
    if (!row) throw new Error("no archive row");
    return row;
  }
  const archiveMails = async () =>
    (await app.ctx.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, user.email))).length;

  it("sends the ready mail on the retry after it failed, and never fails a ready archive", async () => {
    await user.client(app).post(ARCHIVE_API.archive);
    const { id } = await latestRow();
    failMails = ARCHIVE_RETRIES + 2;
    // Every run of the job fails at the mail, the last retry included: the archive stays ready.
    for (let run = 0; run <= ARCHIVE_RETRIES; run++)
      await expect(packArchive(app.ctx, id)).rejects.toThrow("SMTP server unavailable");
    expect(await latestRow()).toMatchObject({ status: "ready", notifiedAt: null, failures: 0 });
    expect((await user.client(app).get(ARCHIVE_API.archive)).json()).toMatchObject({ status: "ready" });
    expect(await archiveMails()).toBe(0);
    // The next run, the mail server back: the owed mail goes, once.
    failMails = 1;
    await expect(packArchive(app.ctx, id)).rejects.toThrow();
    await packArchive(app.ctx, id);
    expect(await archiveMails()).toBe(1);
    expect((await latestRow()).notifiedAt).toBeInstanceOf(Date);
    await packArchive(app.ctx, id);
    await expireArchives(app.ctx, new Date(Date.now() + 3600_000));
    expect(await archiveMails()).toBe(1);
  });

  it("sends a ready mail that every retry failed to send from the hourly sweep", async () => {
    await user.client(app).post(ARCHIVE_API.archive);
    const { id } = await latestRow();
    failMails = 1;
    await expect(packArchive(app.ctx, id)).rejects.toThrow();
    await expireArchives(app.ctx, new Date(Date.now() + 60_000));
    expect(await archiveMails()).toBe(0);
    await expireArchives(app.ctx, new Date(Date.now() + 15 * 60_000));
    expect(await archiveMails()).toBe(1);
  });

  it("fails an archive only after its attempts are used up (Failed to create a new archive)", async () => {
    await user.client(app).post(ARCHIVE_API.archive);
    const { id } = await latestRow();
    // A file where the archives folder should be: every write fails.
    fs.mkdirSync(filesDir, { recursive: true });
    fs.writeFileSync(path.join(filesDir, "archives"), "not a folder");
    for (let run = 1; run < ARCHIVE_RETRIES; run++) {
      await expect(packArchive(app.ctx, id)).rejects.toThrow();
      expect(await latestRow()).toMatchObject({ status: "packing", failures: run });
    }
    await packArchive(app.ctx, id);
    expect(await latestRow()).toMatchObject({ status: "failed", fileName: null });
    expect((await user.client(app).get(ARCHIVE_API.archive)).json()).toMatchObject({ status: "failed" });
  });

  it("leaves no orphan when a run died after writing the file, and sweeps files no row names", async () => {
    await user.client(app).post(ARCHIVE_API.archive);
    const { id } = await latestRow();
    // An earlier run named the file, wrote it (and a temporary file) and was killed before the update.
    const name = `${"b".repeat(32)}.zip`;
    await app.ctx.database.db.update(dataArchives).set({ fileName: name }).where(eq(dataArchives.id, id));
    const dir = path.join(filesDir, "archives");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, name), "half a zip");
    fs.writeFileSync(path.join(dir, `${name}.0a1b2c3d.tmp`), "half a zip");
    await packArchive(app.ctx, id);
    expect(await latestRow()).toMatchObject({ status: "ready", fileName: name });
    expect(fs.readdirSync(dir)).toEqual([name]);
    expect((await readZip(fs.readFileSync(path.join(dir, name)))).has("account.json")).toBe(true);

    // A zip and a temporary file nobody names (a crash or a race with a deletion): gone after an hour.
    const stray = `${"c".repeat(32)}.zip`;
    fs.writeFileSync(path.join(dir, stray), "x");
    fs.writeFileSync(path.join(dir, `${stray}.deadbeef.tmp`), "x");
    await expireArchives(app.ctx, new Date(Date.now() + 30 * 60_000));
    expect(fs.readdirSync(dir).sort()).toEqual([name, stray, `${stray}.deadbeef.tmp`].sort());
    await expireArchives(app.ctx, new Date(Date.now() + 2 * 3600_000 - 60_000));
    expect(fs.readdirSync(dir)).toEqual([name]);
  });

  it("expires the download after 24 hours and removes the file", async () => {
    const client = user.client(app);
    await client.post(ARCHIVE_API.archive);
    const file = await packLatest();
    expect(fs.existsSync(file)).toBe(true);
    const status = (await client.get(ARCHIVE_API.archive)).json();
    await expireArchives(app.ctx, new Date(Date.now() + 25 * 3600_000));
    expect((await client.get(ARCHIVE_API.archive)).json()).toMatchObject({
      status: "expired",
      download_url: null,
    });
    expect((await client.get(status.download_url)).statusCode).toBe(404);
    expect(fs.existsSync(file)).toBe(false);
  });

  it("removes the archive rows and files when the account is deleted", async () => {
    const client = user.client(app);
    await client.post(ARCHIVE_API.archive);
    const file = await packLatest();
    expect(fs.existsSync(file)).toBe(true);
    expect((await client.post(BILLING_API.userDelete)).statusCode).toBe(200);
    expect(await app.ctx.database.db.select().from(dataArchives)).toHaveLength(0);
    expect(fs.existsSync(file)).toBe(false);
  });

  it("finishes an archive requested before a restart (the job lives in the database)", {
    timeout: 240_000,
  }, async () => {
    await user.client(app).post(ARCHIVE_API.archive);
    // A second server process on the same database works the queued job.
    const worker = await buildTestApp(app.ctx.database, { FILES_DIR: filesDir });
    try {
      const deadline = Date.now() + 180_000;
      let status = "packing";
      while (status === "packing" && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const [row] = await app.ctx.database.db
          .select()
          .from(dataArchives)
          .where(eq(dataArchives.userId, user.userId));
        status = row?.status ?? "missing";
      }
      expect(status).toBe("ready");
    } finally {
      await worker.close();
    }
  });
});
