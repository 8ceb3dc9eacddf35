import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../app.ts";
import type { Database } from "../db/client.ts";
import {
  academyMaterials,
  academyProgress,
  apiTokens,
  auditLog,
  mailOutbox,
  oneTimeCodes,
  outboxDeliveries,
  outboxEvents,
  shareLinks,
  socialIdentities,
  users,
} from "../db/schema.ts";
import { reloadAcademy } from "../modules/academy/academy.sync.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../test/databases.ts";
import { buildTestApp } from "../test/harness.ts";
import { createTestUser } from "../test/users.ts";
import { AppError } from "./app-error.ts";
import { sha256 } from "./crypto.ts";
import {
  type AccountArchive,
  deleteUserData,
  exportUserData,
  importUserData,
  registryEnv,
} from "./registry.ts";

/** Every column named user_id in the public schema, with its table. */
async function userIdTables(database: Database): Promise<string[]> {
  const { rows } = await database.query<{ table_name: string }>(
    `select c.table_name from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and c.column_name = 'user_id' and t.table_type = 'BASE TABLE'
      order by c.table_name`,
  );
  return rows.map((r) => r.table_name);
}

/** Rows anywhere in the public schema that still name `userId` in a user_id/id-of-users column. */
async function residue(database: Database, userId: string): Promise<string[]> {
  const found: string[] = [];
  for (const table of await userIdTables(database)) {
    const { rows } = await database.query<{ n: number }>(
      `select count(*)::int as n from "${table}" where user_id = $1`,
      [userId],
    );
    if ((rows[0]?.n ?? 0) > 0) found.push(table);
  }
  const u = await database.query<{ n: number }>("select count(*)::int as n from users where id = $1", [
    userId,
  ]);
  if ((u.rows[0]?.n ?? 0) > 0) found.push("users");
  return found;
}

/** A user with a row in every user-owned table and a profile picture on disk. */
async function seedFullUser(app: App, label: string) {
  const { db } = app.ctx.database;
  const user = await createTestUser(app.ctx.database, {
    name: `Person ${label}`,
    gender: "female",
    dateOfBirth: "1990-02-03",
    heightCm: 170.5,
    weightKg: 61.25,
    units: "imperial",
    newsletterLanguage: "ru",
    timezone: "Europe/Moscow",
    passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo",
    role: "user",
  });
  const png = await sharp({
    create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 10, b: 10 } },
  })
    .png()
    .toBuffer();
  const picture = await user
    .client(app)
    .request("POST", "/dashboard_api/v1/user/profile/userpic/upload/", multipartPng(png));
  expect(picture.statusCode, picture.body).toBe(200);
  await db.insert(apiTokens).values({ userId: user.userId, name: "phone", keyHash: sha256(`tok_${label}`) });
  await db.insert(oneTimeCodes).values({
    codeHash: sha256(`code-${label}`),
    userId: user.userId,
    purpose: "password_reset",
    expiresAt: new Date(Date.now() + 3600_000),
  });
  await db
    .insert(socialIdentities)
    .values({ provider: "google", subject: `sub-${label}`, userId: user.userId });
  await db.insert(shareLinks).values({
    userId: user.userId,
    kind: "bp_log",
    targetId: user.userId,
    tokenHash: sha256(`tsh_${label}`),
  });
  await db.insert(auditLog).values({ userId: user.userId, action: "auth.signin", ip: "127.0.0.1" });
  await db.insert(mailOutbox).values({ userId: user.userId, to: user.email, subject: "Hi", text: "Body" });
  const [event] = await db
    .insert(outboxEvents)
    .values({ userId: user.userId, type: "test.happened", payload: { n: 1 } })
    .returning({ id: outboxEvents.id });
  await db.insert(outboxDeliveries).values({ eventId: event?.id ?? 0, subscriber: "test" });
  const materials = await db.select({ id: academyMaterials.id }).from(academyMaterials).limit(2);
  expect(materials.length).toBe(2);
  await db.insert(academyProgress).values([
    { userId: user.userId, materialId: materials[0]?.id ?? "", state: 4, answers: { q1: 2 } },
    { userId: user.userId, materialId: materials[1]?.id ?? "", state: 1, answers: null },
  ]);
  return user;
}

function multipartPng(data: Buffer) {
  const boundary = "----registry-test";
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="me.png"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

/** The portable part of an archive (what an import must reproduce), without volatile fields. */
function portable(archive: AccountArchive) {
  const account = archive.sections.account?.tables.users?.map((u) => {
    const { userpic_path: _p, password_hash: _h, ...rest } = u;
    return rest;
  });
  return { account, academy: archive.sections.academy?.tables.academy_progress };
}

describe.each(BACKENDS)("account data registry on %s", (backend) => {
  let app: App;
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-registry-"));

  beforeAll(async () => {
    // Jobs are only sent here (not worked), so a queued job about the user stays until deletion.
    app = await buildTestApp(
      await getTestDatabase(backend),
      { FILES_DIR: filesDir },
      {
        modules: [(_app, ctx) => void ctx.services.jobs.defineJob("test.registry-user-job", async () => {})],
        workJobs: false,
      },
    );
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(filesDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    await reloadAcademy(app.ctx.database.db);
  });

  it("covers every table that has a user_id column, and only tables that exist", async () => {
    const covered = app.ctx.services.registry.coveredTables();
    const withUserId = await userIdTables(app.ctx.database);
    expect(withUserId.length).toBeGreaterThan(5);
    const missing = withUserId.filter((t) => !covered.has(t));
    expect(missing, "tables with user_id that no module registered").toEqual([]);
    expect(covered.get("users")).toBe("portable");
    const { rows } = await app.ctx.database.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public'",
    );
    const existing = new Set(rows.map((r) => r.table_name));
    expect([...covered.keys()].filter((t) => !existing.has(t))).toEqual([]);
  });

  it("round-trips a user through export, delete and import, leaving no residue in between", async () => {
    const a = await seedFullUser(app, "a");
    const b = await seedFullUser(app, "b");
    const env = registryEnv(app.ctx);
    const jobs = app.ctx.services.jobs;
    const queued = async (userId: string) =>
      (await jobs.boss.findJobs("test.registry-user-job", { data: { userId }, queued: true })).length;
    await jobs.boss.deleteQueuedJobs("test.registry-user-job");
    await jobs.send("test.registry-user-job", { userId: a.userId });
    await jobs.send("test.registry-user-job", { userId: b.userId });
    expect(await queued(a.userId)).toBe(1);
    const before = JSON.parse(JSON.stringify(await exportUserData(env, a.userId))) as AccountArchive;

    // Isolation and secrets: nothing of B, no password hash, no token hashes, no session rows.
    const text = JSON.stringify(before);
    expect(text).not.toContain(b.userId);
    expect(text).not.toContain(b.email);
    expect(text).not.toContain("$argon2");
    expect(text).not.toContain(sha256("tsh_a"));
    expect(text).not.toContain(sha256("tok_a"));
    expect(before.sections.account?.tables.sessions).toBeUndefined();
    expect(before.sections.shares?.tables.share_links).toHaveLength(1);
    expect(before.sections.audit?.tables.audit_log?.length).toBeGreaterThan(0);
    expect(before.sections.academy?.tables.academy_progress).toHaveLength(2);
    const picture = before.sections.profile?.files?.[0];
    expect(picture?.area).toBe("userpics");
    const oldName = picture?.name ?? "";
    expect(fs.existsSync(path.join(filesDir, "userpics", oldName))).toBe(true);

    await deleteUserData(env, a.userId);
    expect(await residue(app.ctx.database, a.userId)).toEqual([]);
    expect(await queued(a.userId)).toBe(0);
    expect(await queued(b.userId)).toBe(1);
    expect(fs.existsSync(path.join(filesDir, "userpics", oldName))).toBe(false);
    // Audit rows stay, under a pseudonym that is the same for every row of that person.
    const pseudonym = env.pseudonym(a.userId);
    const kept = await app.ctx.database.db.select().from(auditLog).where(eq(auditLog.userId, pseudonym));
    expect(kept.length).toBe(before.sections.audit?.tables.audit_log?.length);
    // B is untouched.
    const bAfter = await exportUserData(env, b.userId);
    expect(bAfter.sections.academy?.tables.academy_progress).toHaveLength(2);
    expect(bAfter.sections.shares?.tables.share_links).toHaveLength(1);

    expect(await importUserData(env, before)).toBe(a.userId);
    const after = await exportUserData(env, a.userId);
    expect(portable(after)).toEqual(portable(before));
    // Credentials and capabilities do not come back; the picture does, under a fresh name.
    expect(after.sections.shares?.tables.share_links).toEqual([]);
    expect(after.sections.social?.tables.social_identities).toEqual([]);
    const newPicture = after.sections.profile?.files?.[0];
    expect(newPicture?.name).toMatch(/^[0-9a-f]{32}\.webp$/);
    expect(newPicture?.name).not.toBe(oldName);
    const meta = await sharp(Buffer.from(newPicture?.data ?? "", "base64")).metadata();
    expect(meta.format).toBe("webp");
    const [row] = await app.ctx.database.db.select().from(users).where(eq(users.id, a.userId));
    expect(row?.passwordHash).toBeNull();
    expect(row?.role).toBe("user");
  });

  it("imports an edited archive without privileges, foreign owners or unknown materials", async () => {
    const a = await seedFullUser(app, "a");
    const victim = await createTestUser(app.ctx.database);
    const env = registryEnv(app.ctx);
    const archive = JSON.parse(JSON.stringify(await exportUserData(env, a.userId))) as AccountArchive;
    await deleteUserData(env, a.userId);

    const account = archive.sections.account?.tables;
    const progress = archive.sections.academy?.tables.academy_progress ?? [];
    if (!account?.users?.[0]) throw new Error("no account row");
    Object.assign(account.users[0], {
      role: "operator",
      is_customer_override: true,
      billing_status: "active",
      password_hash: "$argon2id$forged",
    });
    account.sessions = [
      { id_hash: "forged", user_id: victim.userId, csrf_secret: "x", expires_at: "2100-01-01" },
    ];
    progress.push({ ...progress[0], user_id: victim.userId, material_id: "no-such-material" });
    if (progress[1]) progress[1].user_id = victim.userId;

    await importUserData(env, archive);
    const [row] = await app.ctx.database.db.select().from(users).where(eq(users.id, a.userId));
    expect(row).toMatchObject({
      role: "user",
      isCustomerOverride: false,
      billingStatus: "none",
      passwordHash: null,
    });
    const own = await app.ctx.database.db
      .select()
      .from(academyProgress)
      .where(eq(academyProgress.userId, a.userId));
    expect(own).toHaveLength(2);
    expect(await residue(app.ctx.database, victim.userId)).toEqual(["sessions", "users"]);
    const victimProgress = await app.ctx.database.db
      .select()
      .from(academyProgress)
      .where(eq(academyProgress.userId, victim.userId));
    expect(victimProgress).toEqual([]);
  });

  it("refuses a malformed archive, and a clashing one as a whole", async () => {
    const env = registryEnv(app.ctx);
    await expect(importUserData(env, { format: "zip" })).rejects.toMatchObject({ code: "validation_failed" });
    const a = await seedFullUser(app, "a");
    const archive = await exportUserData(env, a.userId);
    // The account still exists: same id and e-mail clash, and nothing of the archive is written.
    const progressBefore = await app.ctx.database.db.select().from(academyProgress);
    const error = await importUserData(env, archive).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("conflict");
    expect(await app.ctx.database.db.select().from(academyProgress)).toEqual(progressBefore);
    // Under a new id the e-mail still clashes.
    const clash = await importUserData(env, archive, {
      asUserId: "00000000-0000-4000-8000-00000000abcd",
    }).catch((e: unknown) => e);
    expect((clash as AppError).code).toBe("conflict");

    // A bad value late in the archive (after the picture was stored) rolls everything back, file included.
    await deleteUserData(env, a.userId);
    const pictures = fs.readdirSync(path.join(filesDir, "userpics")).sort();
    const broken = JSON.parse(JSON.stringify(archive)) as AccountArchive;
    const row = broken.sections.academy?.tables.academy_progress?.[0];
    if (row) row.state = "not a number";
    await expect(importUserData(env, broken)).rejects.toMatchObject({ code: "validation_failed" });
    expect(await residue(app.ctx.database, a.userId)).toEqual([]);
    expect(fs.readdirSync(path.join(filesDir, "userpics")).sort()).toEqual(pictures);
  });
});
