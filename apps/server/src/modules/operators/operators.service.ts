import { EmailSchema } from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import { writeAudit } from "../../lib/audit.ts";
import {
  findUserIdByEmail,
  listUsers,
  setCustomerOverride,
  setUserRole,
  type UserListRow,
} from "./operators.repo.ts";

/** What an operator command answers: a line for the terminal and whether anything changed. */
export type CommandResult = { ok: boolean; message: string };

async function resolveUser(
  db: Db,
  rawEmail: string,
): Promise<{ userId: string; email: string } | CommandResult> {
  const parsed = EmailSchema.safeParse(rawEmail);
  if (!parsed.success) return { ok: false, message: `not an e-mail address: ${rawEmail}` };
  const userId = await findUserIdByEmail(db, parsed.data);
  if (!userId) return { ok: false, message: `no user with e-mail ${parsed.data}` };
  return { userId, email: parsed.data };
}

/** Grants or revokes the operator role; audited as `role.granted` / `role.revoked` (actor: the CLI). */
export async function changeOperatorRole(db: Db, rawEmail: string, grant: boolean): Promise<CommandResult> {
  const user = await resolveUser(db, rawEmail);
  if ("ok" in user) return user;
  const changed = await setUserRole(db, user.userId, grant ? "operator" : "user");
  if (changed) {
    await writeAudit(db, {
      action: grant ? "role.granted" : "role.revoked",
      userId: user.userId,
      meta: { role: "operator", via: "cli" },
    });
  }
  const state = grant ? "is an operator" : "is not an operator";
  return { ok: true, message: `${user.email} ${state}${changed ? "" : " already"}` };
}

/**
 * Marks or unmarks a customer by hand: the sandbox-billing override `getEntitlements` reads until the
 * billing issue brings subscriptions. Audited as `customer.marked` / `customer.unmarked`.
 */
export async function changeCustomerMark(db: Db, rawEmail: string, mark: boolean): Promise<CommandResult> {
  const user = await resolveUser(db, rawEmail);
  if ("ok" in user) return user;
  const changed = await setCustomerOverride(db, user.userId, mark);
  if (changed) {
    await writeAudit(db, {
      action: mark ? "customer.marked" : "customer.unmarked",
      userId: user.userId,
      meta: { via: "cli" },
    });
  }
  const state = mark ? "is marked as a customer" : "is not marked as a customer";
  return { ok: true, message: `${user.email} ${state}${changed ? "" : " already"}` };
}

/** Every account as aligned text columns: e-mail, role, customer mark, created (UTC). */
export async function formatUserList(db: Db): Promise<string> {
  const rows: UserListRow[] = await listUsers(db);
  const table = [
    ["EMAIL", "ROLE", "CUSTOMER", "CREATED"],
    ...rows.map((r) => [r.email, r.role, r.isCustomerOverride ? "marked" : "-", r.createdAt.toISOString()]),
  ];
  const widths = table[0]?.map((_, i) => Math.max(...table.map((row) => row[i]?.length ?? 0))) ?? [];
  const lines = table.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd(),
  );
  return `${lines.join("\n")}\n${rows.length} user(s)`;
}
