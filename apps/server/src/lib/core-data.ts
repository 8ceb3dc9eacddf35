import { sql } from "drizzle-orm";
import { sha256 } from "./crypto.ts";
import type { UserDataSection } from "./registry.ts";

/** The audit log: the person may read their rows; on deletion the rows stay with a pseudonymous id. */
export const auditDataSection: UserDataSection = {
  name: "audit",
  tables: { audit_log: { policy: "pseudonymised" } },
};

/**
 * Development mail outbox: a copy of messages sent, not part of the person's data; deleted, with the mail
 * other people's actions sent to the person's address (an invitation from a friend) (X5).
 */
export const mailDataSection: UserDataSection = {
  name: "mail",
  tables: { mail_outbox: { policy: "internal" } },
  deleteExtra: async (ctx) => {
    await ctx.tx.execute(
      sql`delete from mail_outbox where lower("to") = (select lower(email) from users where id = ${ctx.userId})`,
    );
  },
};

/** Domain events about the person: plumbing, not their data; deleted with their delivery records. */
export const eventsDataSection: UserDataSection = {
  name: "events",
  tables: { outbox_events: { policy: "internal" } },
  deleteExtra: async (ctx) => {
    await ctx.tx.execute(
      sql`delete from outbox_deliveries where event_id in (select id from outbox_events where user_id = ${ctx.userId})`,
    );
  },
};

/**
 * Rate-limit counters kept per account (`…:account:<user id>`, or a hash of the e-mail for sign-in and
 * recovery): not the person's data, but they name them, so they go with the account (X5).
 */
export const rateLimitDataSection: UserDataSection = {
  name: "rate_limits",
  tables: {},
  deleteExtra: async (ctx) => {
    const r = (await ctx.tx.execute(sql`select email from users where id = ${ctx.userId}`)) as unknown as {
      rows: { email: string }[];
    };
    const suffixes = [ctx.userId, ...r.rows.map((row) => sha256(row.email))].map((v) => `%:account:${v}`);
    for (const pattern of suffixes)
      await ctx.tx.execute(sql`delete from rate_limits where key like ${pattern}`);
  },
};
