import type { FastifyRequest } from "fastify";
import type { Db } from "../db/client.ts";
import { auditLog } from "../db/schema.ts";

/** Actions the audit log records; never secrets or health values in `meta`. */
export type AuditAction =
  | "auth.register"
  | "auth.signin"
  | "auth.signin_failed"
  | "auth.signout"
  | "auth.social_signin"
  | "auth.direct_login"
  | "auth.password_changed"
  | "auth.password_reset_requested"
  | "auth.password_reset"
  | "profile.email_changed"
  | "token.created"
  | "token.revoked"
  | "share.created"
  | "share.revoked"
  | "share.opened"
  | "oauth.granted"
  | "oauth.revoked"
  | "ifttt.action"
  | "notifications.unsubscribed"
  | "connector.connected"
  | "connector.disconnected"
  | "role.granted"
  | "role.revoked"
  | "customer.marked"
  | "customer.unmarked"
  | "account.deleted"
  | "account.imported"
  | "account.archive_requested"
  | "account.archive_downloaded"
  | "referral.invited";

/** Control characters would let a value forge extra log lines (log injection, ASVS 16.4.1). */
function clean(value: string | undefined | null): string | null {
  if (value == null) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  return value.replace(/[\u0000-\u001f\u007f]/g, "?").slice(0, 200);
}

export async function writeAudit(
  db: Db,
  entry: {
    action: AuditAction;
    userId?: string | null;
    objectId?: string | null;
    request?: FastifyRequest;
    meta?: Record<string, string | number | boolean>;
  },
): Promise<void> {
  await db.insert(auditLog).values({
    action: entry.action,
    userId: entry.userId ?? null,
    objectId: clean(entry.objectId),
    ip: clean(entry.request?.ip),
    requestId: clean(entry.request?.id),
    meta: entry.meta ?? {},
  });
}
