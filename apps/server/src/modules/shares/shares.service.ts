import type { ShareKind, ShareLink, ShareLinkCreated } from "@tonus/contract";
import type { FastifyRequest } from "fastify";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import { writeAudit } from "../../lib/audit.ts";
import { SHARE_TOKEN_PREFIX } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { randomToken, sha256 } from "../../lib/crypto.ts";
import {
  deleteShareLinksTo,
  insertShareLink,
  listShareLinksOf,
  revokeShareLinkOf,
  type ShareLinkRow,
} from "./shares.repo.ts";

/** How a module that owns a shareable kind proves the target is the owner's. */
export type ShareKindHandler = {
  isOwnedBy: (db: Db, userId: string, targetId: string) => Promise<boolean>;
};

/** Kinds registered by their modules (`ctx.services.shareKinds.set("bp_log", …)`). */
export type ShareKindRegistry = Map<ShareKind, ShareKindHandler>;

/** 32 random bytes: 256 bits, well over ASVS 7.2.3's 128. */
const TOKEN_BYTES = 32;

function toWire(row: ShareLinkRow): ShareLink {
  return {
    id: row.id,
    kind: row.kind as ShareKind,
    target_id: row.targetId,
    created: row.createdAt.toISOString(),
    revoked: row.revokedAt?.toISOString() ?? null,
    last_opened: row.lastOpenedAt?.toISOString() ?? null,
  };
}

/**
 * Creates a link to one of the owner's objects. A kind no module handles yet, and a target that is not
 * the owner's, both answer the same 404 (no hint whether someone else's object exists).
 */
export async function createShareLink(
  ctx: Pick<AppContext, "database" | "services">,
  userId: string,
  input: { kind: ShareKind; targetId: string },
  request?: FastifyRequest,
): Promise<ShareLinkCreated> {
  const { db } = ctx.database;
  const handler = ctx.services.shareKinds.get(input.kind);
  if (!handler || !(await handler.isOwnedBy(db, userId, input.targetId)))
    throw new AppError("not_found", "Not found");
  const token = `${SHARE_TOKEN_PREFIX}${randomToken(TOKEN_BYTES)}`;
  const row = await insertShareLink(db, {
    userId,
    kind: input.kind,
    targetId: input.targetId,
    tokenHash: sha256(token),
  });
  await writeAudit(db, {
    action: "share.created",
    userId,
    objectId: row.id,
    request,
    meta: { kind: row.kind },
  });
  return { ...toWire(row), token };
}

export async function listShareLinks(
  ctx: Pick<AppContext, "database">,
  userId: string,
): Promise<ShareLink[]> {
  return (await listShareLinksOf(ctx.database.db, userId)).map(toWire);
}

/** Revokes a live link of the owner's; someone else's, unknown or already revoked → 404. */
export async function revokeShareLink(
  ctx: Pick<AppContext, "database">,
  userId: string,
  id: string,
  request?: FastifyRequest,
): Promise<void> {
  const { db } = ctx.database;
  if (!(await revokeShareLinkOf(db, userId, id))) throw new AppError("not_found", "Not found");
  await writeAudit(db, { action: "share.revoked", userId, objectId: id, request });
}

/**
 * Removes the owner's links to an object that is being deleted, inside the caller's transaction: they
 * would open nothing, so they leave the owner's list too (audited as revoked, reason `target_deleted`).
 */
export async function removeShareLinksTo(
  tx: Db,
  userId: string,
  kind: ShareKind,
  targetId: string,
  request?: FastifyRequest,
): Promise<number> {
  const ids = await deleteShareLinksTo(tx, userId, kind, targetId);
  for (const id of ids) {
    await writeAudit(tx, {
      action: "share.revoked",
      userId,
      objectId: id,
      request,
      meta: { kind, reason: "target_deleted" },
    });
  }
  return ids.length;
}
