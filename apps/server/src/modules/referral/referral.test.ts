import { API, BILLING_API, type Product, REFERRAL_API, REFERRAL_CODE_RE } from "@tonus/contract";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { referralInvitations, referrals, subscriptions } from "../../db/schema.ts";
import { deleteUserData, registryEnv } from "../../lib/registry.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TestClient } from "../../test/harness.ts";
import { readMail, startTestSmtp } from "../../test/smtp.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { billingCommand } from "../billing/billing.cli.ts";
import { seedDefaultPlans } from "../billing/plans.ts";
import { getEntitlements } from "../entitlements/entitlements.service.ts";
import { REFERRAL_LIMIT_PER_HOUR } from "./referral.service.ts";

/**
 * Referrals on a real database, with invitations sent through a real SMTP server started here and paid
 * for on the built-in sandbox provider (nothing is mocked).
 */
const PASSWORD = "Correct-horse-battery-9";
const DAY_MS = 86_400_000;

describe.each(BACKENDS)("referrals on %s", (backend) => {
  let app: App;
  let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
  let inviter: TestUser;
  let client: TestClient;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    // As if behind a trusted proxy, so tests can give requests client addresses through X-Forwarded-For.
    app = await buildTestApp(
      await getTestDatabase(backend),
      { SMTP_URL: smtp.url, TRUST_PROXY: "true" },
      { workJobs: false },
    );
  });
  afterAll(async () => {
    await app.close();
    await smtp.close();
  });
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    await seedDefaultPlans(app.ctx.database.db);
    smtp.messages.length = 0;
    inviter = await createTestUser(app.ctx.database, { name: "Anna\nKarenina", newsletterLanguage: "ru" });
    client = inviter.client(app);
  });

  const summary = async (c: TestClient = client) => {
    const res = await c.get(REFERRAL_API.referral);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  /** The page's first visit: the code is made (POST), then shown. */
  const withCode = async (c: TestClient = client) => {
    const res = await c.post(REFERRAL_API.code);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  async function register(email: string, code?: string): Promise<TestClient> {
    const c = new TestClient(app);
    await c.prime();
    const res = await c.post(API.register, { email, password: PASSWORD, referral_code: code });
    expect(res.statusCode, res.body).toBe(200);
    return c;
  }

  async function userIdOf(email: string): Promise<string> {
    const { rows } = await app.ctx.database.query<{ id: string }>("select id from users where email = $1", [
      email,
    ]);
    if (!rows[0]) throw new Error(`no user ${email}`);
    return rows[0].id;
  }

  async function payMonthly(c: TestClient, card = "4242424242424242", slug = "monthly-subscription") {
    const products = (await c.get(BILLING_API.products)).json() as Product[];
    const product = products.find((p) => p.slug === slug);
    const token = (
      await c.post(BILLING_API.sandboxTokens, { number: card, exp_month: 12, exp_year: 2099, cvc: "123" })
    ).json().id;
    const res = await c.post(BILLING_API.pay, { productId: product?.id, stripeToken: token });
    expect(res.statusCode, res.body).toBe(200);
    // The reward listens to billing's event; the dispatcher job is not worked here, so deliver now.
    await app.ctx.services.events.dispatchPending();
  }

  it("gives each person one unguessable code, not their id, and a link to the registration page", async () => {
    // Reading makes nothing (S3): no code until the page asks for one.
    expect(await summary()).toMatchObject({ code: null, link: null });
    const first = await withCode();
    expect(first.code).toMatch(REFERRAL_CODE_RE);
    expect(first.link).toBe(`http://tonus.test/auth/registration/?ref=${first.code}`);
    expect(first.link).not.toContain(inviter.userId);
    expect((await summary()).code).toBe(first.code);
    expect((await withCode()).code).toBe(first.code);
    const other = await withCode((await createTestUser(app.ctx.database)).client(app));
    expect(other.code).not.toBe(first.code);
    expect(first).toMatchObject({
      invited: 0,
      joined: 0,
      paid: 0,
      invitations: [],
      reward: { enabled: true, days_per_friend: 30, max_friends: 12, earned_friends: 0, earned_days: 0 },
    });
    expect((await app.inject({ method: "GET", url: REFERRAL_API.referral })).statusCode).toBe(403);
  });

  it("tells whether an address has an account, at most 20 times an hour per account and per IP (L5)", async () => {
    const friend = await createTestUser(app.ctx.database);
    const lookup = (c: TestClient, email: string, ip = "203.0.113.1") =>
      c.post(REFERRAL_API.lookup, { email }, { "x-forwarded-for": ip });
    expect((await lookup(client, "nobody@example.test")).json()).toEqual({ found: false });
    expect((await lookup(client, friend.email.toUpperCase())).json()).toEqual({ found: true });
    for (let i = 2; i < REFERRAL_LIMIT_PER_HOUR; i++) await lookup(client, `n${i}@example.test`);
    const over = await lookup(client, "one-more@example.test");
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ code: "rate_limited" });
    expect(over.headers["retry-after"]).toBeDefined();
    // Another account on the same address is refused too (per IP); from elsewhere it is answered.
    const second = (await createTestUser(app.ctx.database)).client(app);
    expect((await lookup(second, "x@example.test")).statusCode).toBe(429);
    expect((await lookup(second, "x@example.test", "198.51.100.7")).statusCode).toBe(200);
    expect((await client.post(REFERRAL_API.lookup, { email: "not-an-address" })).statusCode).toBe(400);
  });

  it("mails an invitation through SMTP in the inviter's language, with their link and a cleaned name", async () => {
    const { code } = await withCode();
    const res = await client.post(
      REFERRAL_API.invite,
      { email: "Friend@Example.test" },
      { "accept-language": "ru-RU,ru;q=0.9" },
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: "sent",
      invitation: { email: "friend@example.test", status: "invited", times_sent: 1 },
    });
    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0];
    expect(mail?.to).toEqual(["friend@example.test"]);
    const read = readMail(mail?.raw ?? "");
    expect(read.text).toContain(`http://tonus.test/auth/registration/?ref=${code}`);
    expect(read.text).toContain("Anna Karenina следит с Tonus");
    // The name's line break became a space, so it can forge no header line.
    expect(read.subject).toBe("Anna Karenina приглашает вас в Tonus");
    expect(mail?.raw).not.toMatch(/^Karenina/m);
    const after = await summary();
    expect(after).toMatchObject({ invited: 1, joined: 0 });
    expect(after.invitations).toEqual([expect.objectContaining({ email: "friend@example.test" })]);

    const english = await client.post(REFERRAL_API.invite, { email: "other@example.test" });
    expect(english.statusCode).toBe(200);
    expect(readMail(smtp.messages[1]?.raw ?? "").subject).toBe("Anna Karenina invites you to Tonus");
  });

  it("does not mail an address that has an account, and answers as for any other", async () => {
    const friend = await createTestUser(app.ctx.database);
    const res = await client.post(REFERRAL_API.invite, { email: friend.email });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe("sent");
    expect(smtp.messages).toHaveLength(0);
  });

  it("mails one address again only after a day, three times at most", async () => {
    const invite = () => client.post(REFERRAL_API.invite, { email: "again@example.test" });
    expect((await invite()).statusCode).toBe(200);
    const soon = await invite();
    expect(soon.statusCode).toBe(409);
    expect(soon.json().code).toBe("conflict");
    for (let sent = 2; sent <= 3; sent++) {
      await app.ctx.database.db
        .update(referralInvitations)
        .set({ lastSentAt: new Date(Date.now() - 2 * DAY_MS) })
        .where(eq(referralInvitations.userId, inviter.userId));
      const again = await invite();
      expect(again.statusCode).toBe(200);
      expect(again.json().invitation.times_sent).toBe(sent);
    }
    await app.ctx.database.db
      .update(referralInvitations)
      .set({ lastSentAt: new Date(Date.now() - 2 * DAY_MS) })
      .where(eq(referralInvitations.userId, inviter.userId));
    expect((await invite()).statusCode).toBe(409);
    expect(smtp.messages).toHaveLength(3);
  });

  it("limits invitations to 20 an hour per account", async () => {
    for (let i = 0; i < REFERRAL_LIMIT_PER_HOUR; i++)
      expect((await client.post(REFERRAL_API.invite, { email: `f${i}@example.test` })).statusCode).toBe(200);
    const over = await client.post(REFERRAL_API.invite, { email: "f-last@example.test" });
    expect(over.statusCode).toBe(429);
    expect(smtp.messages).toHaveLength(REFERRAL_LIMIT_PER_HOUR);
  });

  it("credits registrations through the link and through an invitation, never a wrong or own code", async () => {
    const { code } = await withCode();
    await client.post(REFERRAL_API.invite, { email: "invited@example.test" });
    await register("linked@example.test", code.toLowerCase());
    await register("invited@example.test");
    await register("stranger@example.test", "AAAAAAAAAAAAAAAA");
    await register("garbage@example.test", "'; drop table users; --");
    const rows = await app.ctx.database.db
      .select()
      .from(referrals)
      .where(eq(referrals.referrerId, inviter.userId));
    const byId = new Map(rows.map((r) => [r.userId, r.via]));
    expect(byId.get(await userIdOf("linked@example.test"))).toBe("link");
    expect(byId.get(await userIdOf("invited@example.test"))).toBe("invitation");
    expect(rows).toHaveLength(2);
    const after = await summary();
    expect(after).toMatchObject({ invited: 1, joined: 2, paid: 0 });
    expect(after.invitations[0]).toMatchObject({ email: "invited@example.test", status: "joined" });
  });

  it("rewards the referrer once, with free days, when the friend's first payment is confirmed", async () => {
    const { code } = await withCode();
    const friend = await register("payer@example.test", code);
    expect(await getEntitlements(app.ctx, inviter.userId)).toMatchObject({ is_customer: false });

    // A declined card confirms nothing.
    const products = (await friend.get(BILLING_API.products)).json() as Product[];
    const monthly = products.find((p) => p.slug === "monthly-subscription");
    const declined = (
      await friend.post(BILLING_API.sandboxTokens, {
        number: "4000000000000002",
        exp_month: 12,
        exp_year: 2099,
        cvc: "123",
      })
    ).json().id;
    expect(
      (await friend.post(BILLING_API.pay, { productId: monthly?.id, stripeToken: declined })).statusCode,
    ).toBe(402);
    await app.ctx.services.events.dispatchPending();
    expect((await summary()).paid).toBe(0);

    await payMonthly(friend);
    expect(await getEntitlements(app.ctx, inviter.userId)).toMatchObject({ is_customer: true });
    const [credit] = await app.ctx.database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.userId, inviter.userId));
    expect(credit).toMatchObject({ provider: "referral", renews: false, status: "active" });
    const days = ((credit?.currentPeriodEnd?.getTime() ?? 0) - Date.now()) / DAY_MS;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const purchases = (await client.get(BILLING_API.purchases, { "accept-language": "ru" })).json();
    expect(purchases[0]).toMatchObject({
      title: "Бесплатный PRO за приглашённых друзей",
      next_payment: null,
    });
    expect(await summary()).toMatchObject({
      paid: 1,
      reward: { earned_friends: 1, earned_days: 30 },
    });
    // The account with only a credit may be deleted (nothing renews).
    expect((await client.post(BILLING_API.userDelete)).statusCode).not.toBe(409);
  });

  it("extends a running subscription, and a later payment of the same friend earns nothing more", async () => {
    const { code } = await withCode();
    await payMonthly(client);
    const [before] = await app.ctx.database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.userId, inviter.userId));
    const friend = await register("twice@example.test", code);
    await payMonthly(friend);
    await payMonthly(friend, "4242424242424242", "tonusgift");
    const mine = await app.ctx.database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.userId, inviter.userId));
    expect(mine).toHaveLength(1);
    const added =
      ((mine[0]?.currentPeriodEnd?.getTime() ?? 0) - (before?.currentPeriodEnd?.getTime() ?? 0)) / DAY_MS;
    expect(added).toBeCloseTo(30, 5);
    expect(mine[0]?.renews).toBe(true);
    expect((await summary()).reward.earned_days).toBe(30);
  });

  it("follows the operator's reward: days, a maximum per person, off and back to the configuration", async () => {
    const set = await billingCommand(
      app.ctx.database.db,
      ["referral-reward", "7", "--max", "1"],
      app.ctx.config,
    );
    expect(set).toEqual({
      code: 0,
      out: "7 free PRO days per friend whose first payment is confirmed, at most 1 friends a person (set with referral-reward)",
    });
    expect((await billingCommand(app.ctx.database.db, ["referral-reward", "-3"])).code).toBe(2);
    expect((await billingCommand(app.ctx.database.db, ["referral-reward", "7", "--max"])).code).toBe(2);
    const { code } = await withCode();
    expect((await summary()).reward).toMatchObject({ days_per_friend: 7, max_friends: 1 });
    await payMonthly(await register("first@example.test", code));
    await payMonthly(await register("second@example.test", code));
    expect(await summary()).toMatchObject({
      joined: 2,
      paid: 2,
      reward: { earned_friends: 1, earned_days: 7 },
    });
    const list = await billingCommand(app.ctx.database.db, ["referral-list"]);
    expect(list.out).toContain(`${inviter.email}`);
    expect(list.out).toMatch(/joined 2 {2}rewarded 1 {2}days 7/);

    await billingCommand(app.ctx.database.db, ["referral-reward", "off"]);
    expect((await summary()).reward).toMatchObject({ enabled: false, days_per_friend: 0 });
    const reset = await billingCommand(app.ctx.database.db, ["referral-reward", "reset"], app.ctx.config);
    expect(reset.out).toContain("30 free PRO days per friend");
    expect(reset.out).toContain("at most 12 friends");
  });

  it("leaves no trace of a deleted friend's address or of a deleted referrer (X5)", async () => {
    const { code } = await withCode();
    await client.post(REFERRAL_API.invite, { email: "leaver@example.test" });
    await register("leaver@example.test", code);
    const leaverId = await userIdOf("leaver@example.test");
    const env = registryEnv(app.ctx);
    await deleteUserData(env, leaverId);
    const { rows } = await app.ctx.database.query(
      "select 1 from referral_invitations where email = 'leaver@example.test' union all select 1 from referrals where user_id = $1",
      [leaverId],
    );
    expect(rows).toEqual([]);
    expect(await summary()).toMatchObject({ invited: 0, joined: 0 });

    await register("stays@example.test", code);
    await deleteUserData(env, inviter.userId);
    const left = await app.ctx.database.query(
      "select 1 from referrals union all select 1 from referral_codes",
    );
    expect(left.rows).toEqual([]);
  });
});
