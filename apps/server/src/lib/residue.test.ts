import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  API,
  ARCHIVE_API,
  BILLING_API,
  BP_LOG_SHARE_TARGET,
  IMPORTS_API,
  NOTIFICATIONS_API,
  OAUTH_API,
  type Product,
  REFERRAL_API,
} from "@tonus/contract";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../app.ts";
import type { Database } from "../db/client.ts";
import { dataArchives } from "../db/schema.ts";
import { reloadAcademy } from "../modules/academy/academy.sync.ts";
import { archiveStatus, packArchive } from "../modules/account/archive.service.ts";
import { runCustomerCleanups } from "../modules/billing/billing.customers.ts";
import { seedDefaultPlans } from "../modules/billing/plans.ts";
import { SandboxProvider } from "../modules/billing/sandbox.provider.ts";
import { saveTokens, upsertConnection } from "../modules/connectors/connectors.repo.ts";
import { multipartBody } from "../modules/imports/test/import-client.ts";
import { findClient, registerOAuthClient } from "../modules/oauth/oauth.clients.ts";
import { mintTokenForFixture } from "../modules/oauth/oauth.service.ts";
import { findOrCreateSocialUser } from "../modules/social/social.repo.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../test/databases.ts";
import { buildTestApp, TestClient } from "../test/harness.ts";
import { removeQueuedFiles } from "./file-removals.ts";

/**
 * RELIABILITY X5, the residue scan: one person gets data in every module through its API or service (the
 * way the person or a provider would create it), the account is deleted through the API, the removal and
 * clean-up jobs run, and then every text, uuid and JSON column of every table (pg-boss's jobs included)
 * is searched for the person's id, e-mail and user name, and the files folder for their files. Another
 * person with the same kind of data stays whole. Allowed: nothing; payments and the audit log stay under
 * a pseudonym, which is none of the three.
 */

const ANALYTICS_TOKEN = "analytics-token-for-residue";
const today = new Date().toISOString().slice(0, 10);

/** Every text-like column of every table in the application's and pg-boss's schemas. */
async function textColumns(database: Database) {
  const { rows } = await database.query<{ table_schema: string; table_name: string; column_name: string }>(
    `select c.table_schema, c.table_name, c.column_name
       from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema in ('public', 'pgboss') and t.table_type = 'BASE TABLE'
        and c.data_type in ('text', 'character varying', 'uuid', 'jsonb', 'json', 'ARRAY')
      order by 1, 2, 3`,
  );
  return rows;
}

/** `schema.table.column` of every cell that holds one of the needles (case-insensitive). */
async function scan(database: Database, needles: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const c of await textColumns(database)) {
    const { rows } = await database.query<{ n: number }>(
      `select count(*)::int as n from "${c.table_schema}"."${c.table_name}"
        where strpos(lower("${c.column_name}"::text), lower($1)) > 0
           or strpos(lower("${c.column_name}"::text), lower($2)) > 0
           or strpos(lower("${c.column_name}"::text), lower($3)) > 0`,
      needles,
    );
    if ((rows[0]?.n ?? 0) > 0) found.push(`${c.table_schema}.${c.table_name}.${c.column_name}`);
  }
  return found;
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .flatMap((d) => (d.isFile() ? [path.relative(dir, path.join(d.parentPath, d.name))] : []));
}

describe.each(BACKENDS)("no residue after an account deletion on %s (X5)", (backend) => {
  let app: App;
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-residue-"));

  beforeAll(async () => {
    // Jobs are only sent here: the test runs the ones that matter itself, so it knows when they ran.
    app = await buildTestApp(
      await getTestDatabase(backend),
      {
        FILES_DIR: filesDir,
        ANALYTICS_ENABLED: "1",
        ANALYTICS_TOKEN,
        IFTTT_SERVICE_KEY: "ifttt-service-key-for-residue",
      },
      { workJobs: false },
    );
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(filesDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    await reloadAcademy(app.ctx.database.db);
    await seedDefaultPlans(app.ctx.database.db);
  });

  async function register(email: string, extra: Record<string, string> = {}) {
    const client = new TestClient(app);
    await client.prime();
    const res = await client.post(API.register, {
      email,
      password: "correct horse battery staple 42",
      name: "Residue Person",
      ...extra,
    });
    expect(res.statusCode, res.body).toBe(200);
    const profile = (await client.get(API.profile)).json() as { id: string; username?: string };
    return { client, userId: profile.id };
  }

  /** Everything a person can have, created through the API (or a module's service where only a provider could). */
  async function seedEverything(email: string, referralCode?: string) {
    const { client, userId } = await register(email, referralCode ? { referral_code: referralCode } : {});
    const db = app.ctx.database.db;
    const ok = (res: { statusCode: number; body: string }, what: string) =>
      expect(res.statusCode, `${what}: ${res.body}`).toBeLessThan(300);

    const png = await sharp({ create: { width: 24, height: 24, channels: 3, background: "#c33" } })
      .png()
      .toBuffer();
    const picture = multipartBody({}, { name: "me.png", data: png });
    ok(await client.request("POST", API.userpicUpload, picture), "userpic");
    ok(await client.put(API.profile, { name: `Person ${email}` }), "profile");

    // PRO first (the dashboard is part of it); cancelled at the end, as deletion requires.
    const products = (await client.get(BILLING_API.products)).json() as Product[];
    const monthly = products.find((p) => p.slug === "monthly-subscription");
    const card = await client.post(BILLING_API.sandboxTokens, {
      number: "4242424242424242",
      exp_month: 12,
      exp_year: 2099,
      cvc: "123",
    });
    ok(await client.post(BILLING_API.pay, { productId: monthly?.id, stripeToken: card.json().id }), "pay");
    const tokenRes = await client.post(API.apiTokens, { name: "phone" });
    ok(tokenRes, "api token");
    const auth = `Token ${tokenRes.json().key as string}`;
    const rr = Array.from({ length: 120 }, (_, i) => 800 + ((i * 37) % 90));
    ok(
      await client.request("POST", API.ingest, {
        headers: { authorization: auth, "idempotency-key": `batch-${email}` },
        body: {
          records: [
            {
              type: "sample",
              client_id: randomUUID(),
              metric: "heart_rate",
              at: `${today}T04:00:00Z`,
              value: 61,
              source: "watch",
            },
            {
              type: "bp_reading",
              client_id: randomUUID(),
              systolic: 121,
              diastolic: 79,
              measured_at: `${today}T04:10:00Z`,
              time_zone: "UTC",
            },
            {
              type: "rr_measurement",
              client_id: randomUUID(),
              rr_ms: rr,
              source: "app",
              started_at: `${today}T04:20:00Z`,
              time_zone: "UTC",
            },
          ],
        },
      }),
      "ingest",
    );
    ok(
      await client.post(API.bpReadings, {
        systolic: 135,
        diastolic: 85,
        pulse: 70,
        measured_at: `${today}T05:00:00Z`,
        time_zone: "Europe/Moscow",
        note: `note by ${email}`,
      }),
      "bp reading",
    );
    ok(
      await client.post(API.chartValues, {
        client_id: randomUUID(),
        metric: "weight",
        value: 70,
        unit: "kg",
        at: `${today}T06:00:00Z`,
      }),
      "chart value",
    );
    ok(await client.post(API.chartLayoutCharts, { item: "water" }), "chart");
    ok(await client.put(API.chartLayoutPriority, { metric: "weight", sources: ["withings"] }), "priority");
    const measurements = (await client.get(API.measurements)).json() as { results?: { id: string }[] };
    const measurementId = measurements.results?.[0]?.id;
    expect(measurementId).toBeTruthy();
    ok(
      await client.post(API.shareLinks, { kind: "measurement", target_id: measurementId }),
      "measurement share",
    );
    ok(await client.post(API.shareLinks, { kind: "bp_log", target_id: BP_LOG_SHARE_TARGET }), "bp share");
    ok(await client.post(API.academyProgress.replace(":materialId", "what-is-hrv"), { state: 4 }), "academy");
    ok(
      await client.put(NOTIFICATIONS_API.settings, { weekly_report: true, reminders: true }),
      "notifications",
    );
    ok(await client.post(REFERRAL_API.code), "referral code");
    ok(await client.post(REFERRAL_API.invite, { email: `friend-of-${email}` }), "invitation");
    ok(
      await app.inject({
        method: "POST",
        url: OAUTH_API.analyticsSend,
        headers: { "content-type": "application/json", "x-analytics-token": ANALYTICS_TOKEN },
        payload: JSON.stringify({
          event_id: randomUUID(),
          event_name: "sign_up",
          user_id: userId,
          date_created: new Date().toISOString(),
        }),
      }),
      "analytics",
    );
    const csv = new TextEncoder().encode(`when,steps\n${today} 08:00,1200\n`);
    ok(
      await client.request(
        "POST",
        IMPORTS_API.imports,
        multipartBody({ source: "csv-file", time_zone: "UTC" }, { name: "steps.csv", data: csv }),
      ),
      "import",
    );

    ok(await client.post(ARCHIVE_API.archive), "archive");
    const archive = await archiveStatus(app.ctx, userId);
    await packArchive(app.ctx, archive.id ?? "");

    // What a provider or a flow outside the API creates: a cloud connection, an OAuth/IFTTT grant, a
    // social sign-in, a password-reset code, a trigger identity.
    const connection = await upsertConnection(db, {
      userId,
      provider: "oura",
      externalUserId: `oura-${email}`,
      scopes: "daily",
      historyStart: new Date(),
    });
    await saveTokens(db, {
      connectionId: connection.id,
      userId,
      accessToken: "at_x",
      refreshToken: null,
      expiresAt: null,
    });
    await findOrCreateSocialUser(db, { provider: "google", subject: `sub-${email}`, verifiedEmail: email });
    const anonymous = new TestClient(app);
    await anonymous.prime();
    ok(await anonymous.post(API.passwordRecover, { email }), "password recovery");
    const ifttt = await findClient(db, "ifttt");
    if (!ifttt) throw new Error("the IFTTT client is not registered");
    const bearer = await mintTokenForFixture(db, ifttt, userId);
    ok(
      await app.inject({
        method: "POST",
        url: "/ifttt/v1/triggers/new_bp_reading",
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        payload: JSON.stringify({ trigger_identity: `ti-${email}`, triggerFields: {}, limit: 5 }),
      }),
      "ifttt trigger",
    );
    const [purchase] = (await client.get(BILLING_API.purchases)).json() as { purchase_id: string }[];
    ok(await client.post(BILLING_API.cancel, { purchase_id: purchase?.purchase_id }), "cancel");

    await app.ctx.services.events.dispatchPending();
    return { client, userId };
  }

  it("leaves no row naming the person anywhere, and none of their files", { timeout: 240_000 }, async () => {
    await registerOAuthClient(app.ctx.database.db, {
      id: "ifttt",
      name: "IFTTT",
      redirectUris: ["https://ifttt.com/channels/tonus/authorize"],
      isPublic: false,
      tokenPolicy: "non_expiring",
    });
    const stays = await seedEverything("stays.person@example.test");
    const code = (await stays.client.get(REFERRAL_API.referral)).json().code as string;
    const email = "leaving.person.r3s1due@example.test";
    const leaving = await seedEverything(email, code);
    // The other person invites the leaving one's address too (their row names the address).
    expect(
      (await stays.client.post(REFERRAL_API.invite, { email: "late.friend@example.test" })).statusCode,
    ).toBe(200);

    const needles = [leaving.userId, email, email];
    const before = await scan(app.ctx.database, needles);
    // The seed reached every corner it should (a scan that cannot find anything proves nothing).
    for (const table of [
      "users",
      "sessions",
      "api_tokens",
      "one_time_codes",
      "social_identities",
      "share_links",
      "mail_outbox",
      "bp_readings",
      "measurements",
      "dashboard_values",
      "dashboard_charts",
      "academy_progress",
      "notification_settings",
      "referral_codes",
      "referral_invitations",
      "referrals",
      "imports",
      "connector_connections",
      "connector_tokens",
      "oauth_grants",
      "oauth_tokens",
      "ifttt_trigger_identities",
      "subscriptions",
      "billing_customers",
      "sandbox_customers",
      "data_archives",
      "idempotency_keys",
      "outbox_events",
      "audit_log",
    ])
      expect(
        before.some((c) => c.startsWith(`public.${table}.`)),
        table,
      ).toBe(true);
    const filesBefore = filesUnder(filesDir);
    expect(filesBefore.filter((f) => f.startsWith("userpics/"))).toHaveLength(2);
    expect(filesBefore.filter((f) => f.startsWith("archives/"))).toHaveLength(2);
    expect(filesBefore.filter((f) => f.startsWith("imports/"))).toHaveLength(2);

    const res = await leaving.client.post(BILLING_API.userDelete);
    expect(res.statusCode, res.body).toBe(200);
    // The removal and clean-up jobs (sent in the deletion's transaction) run.
    await removeQueuedFiles(app.ctx.database.db, filesDir);
    await runCustomerCleanups({ ...app.ctx, provider: new SandboxProvider(app.ctx.database.db) });
    await app.ctx.services.events.dispatchPending();

    expect(await scan(app.ctx.database, needles)).toEqual([]);
    // One file of each kind is left: the other person's.
    const filesAfter = filesUnder(filesDir);
    for (const area of ["userpics/", "archives/", "imports/"])
      expect(
        filesAfter.filter((f) => f.startsWith(area)),
        area,
      ).toHaveLength(1);
    // The other person is whole.
    const kept = await scan(app.ctx.database, [
      stays.userId,
      "stays.person@example.test",
      "stays.person@example.test",
    ]);
    expect(kept).toEqual(
      expect.arrayContaining([
        "public.users.email",
        "public.bp_readings.user_id",
        "public.data_archives.user_id",
      ]),
    );
    const [archive] = await app.ctx.database.db.select().from(dataArchives);
    expect(archive?.userId).toBe(stays.userId);
    // Old credentials of the deleted person open nothing.
    expect((await leaving.client.get(API.profile)).statusCode).toBe(403);
  });
});
