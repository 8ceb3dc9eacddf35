import { createHash } from "node:crypto";
import { and, eq, lt, sql } from "drizzle-orm";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Db } from "../db/client.ts";
import { idempotencyKeys } from "../db/schema.ts";
import { AppError } from "./app-error.ts";
import type { AppContext } from "./context.ts";
import type { UserDataSection } from "./registry.ts";

/**
 * The `Idempotency-Key` contract (IETF draft-ietf-httpapi-idempotency-key-header; RELIABILITY §0.9,
 * A10, F2), for any route whose work runs in one database transaction:
 * - the first request with a key does its work and, in the same transaction, stores the request's
 *   fingerprint with the response; the reply goes out only after the commit;
 * - a replay (same key, same request) within 24 hours gets the stored response again, marked with
 *   `Idempotent-Replayed: true`, and does nothing;
 * - the same key with a different request (another body, method or route) is a 422;
 * - a request whose key is still being worked on (in this process, or in another server's open
 *   transaction) is a 409: retry later.
 *
 * "In flight" is never written down: it is an in-process set plus a transaction-scoped advisory lock,
 * so a crash or a SIGKILL can never leave a key claimed but unanswered; the work's transaction and the
 * stored answer commit together or not at all. Failures are not stored (an error rolls everything
 * back), so retrying after a 4xx or 5xx runs the request again. Keys are per user.
 */

export const IDEMPOTENCY_HEADER = "idempotency-key";
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";
/** Stored answers are kept at least this long (Stripe keeps keys ≥ 24 h). */
export const IDEMPOTENCY_RETENTION_HOURS = 24;
export const IDEMPOTENCY_PRUNE_JOB = "idempotency.prune";

/** Visible ASCII, 1–255 characters (Stripe's limit; a V4 UUID is what clients should send). */
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** A response as stored and replayed: the status and the JSON body. */
export type StoredResponse = { status: number; body: unknown };
export type IdempotentOutcome = StoredResponse & { replayed: boolean };

/**
 * The request's `Idempotency-Key`, or undefined when it has none and none is `required`.
 * A malformed or repeated header, or a missing required one, is a 400.
 */
export function readIdempotencyKey(request: FastifyRequest, opts: { required?: boolean } = {}) {
  const raw = request.headers[IDEMPOTENCY_HEADER];
  const issue = (message: string) =>
    new AppError("validation_failed", message, { issues: [{ path: "headers.idempotency-key", message }] });
  if (raw === undefined) {
    if (opts.required) throw issue("This endpoint needs an Idempotency-Key header (a UUID per batch)");
    return undefined;
  }
  if (typeof raw !== "string" || !KEY_RE.test(raw))
    throw issue("Idempotency-Key must be one value of 1 to 255 visible ASCII characters");
  return raw;
}

/** JSON with object keys sorted, so the same body always gives the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** What makes two requests "the same": method, route and body (key order ignored). */
export function requestFingerprint(request: Pick<FastifyRequest, "method" | "routeOptions" | "body">) {
  return createHash("sha256")
    .update(`${request.method} ${request.routeOptions.url ?? ""}\n${canonicalJson(request.body)}`)
    .digest("base64url");
}

/** A signed 64-bit advisory-lock id for one user's key. */
export function idempotencyLockId(userId: string, key: string): string {
  return createHash("sha256").update(`idempotency:${userId}:${key}`).digest().readBigInt64BE(0).toString();
}

/** Keys being worked on in this process, per database (tests run several apps in one process). */
const inFlight = new WeakMap<object, Set<string>>();

type Claim = { db: Db; userId: string; key: string; fingerprint: string };

/**
 * Runs `work` in a transaction under an idempotency key, or answers what the key already stored.
 * `work` gets the transaction and must do all its writes in it; its response is stored with them.
 */
export async function runIdempotent(
  claim: Claim,
  work: (tx: Db) => Promise<StoredResponse>,
): Promise<IdempotentOutcome> {
  const { db, userId, key, fingerprint } = claim;
  const running = inFlight.get(db) ?? new Set<string>();
  inFlight.set(db, running);
  const slot = `${userId}\n${key}`;
  if (running.has(slot)) throw inProgress();
  // A stored answer never changes: replays need no lock and run side by side.
  const done = await findStored(db, claim);
  if (done) return done;
  if (running.has(slot)) throw inProgress();
  running.add(slot);
  try {
    return await db.transaction(async (t) => {
      const tx = t as unknown as Db;
      const lock = (await tx.execute(
        sql`select pg_try_advisory_xact_lock(${idempotencyLockId(userId, key)}::bigint) as ok`,
      )) as unknown as { rows: { ok: boolean }[] };
      if (!lock.rows[0]?.ok) throw inProgress();
      // Finished by another request between the look above and the lock.
      const stored = await findStored(tx, claim);
      if (stored) return stored;
      const response = await work(tx);
      await tx.insert(idempotencyKeys).values({
        userId,
        key,
        fingerprint,
        statusCode: response.status,
        response: response.body,
      });
      return { ...response, replayed: false };
    });
  } finally {
    running.delete(slot);
  }
}

/** The answer stored under the claim's key, or null; another request under the key is a 422. */
async function findStored(db: Db, claim: Claim): Promise<IdempotentOutcome | null> {
  const [stored] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, claim.userId), eq(idempotencyKeys.key, claim.key)));
  if (!stored) return null;
  if (stored.fingerprint !== claim.fingerprint)
    throw new AppError(
      "idempotency_mismatch",
      "This Idempotency-Key was already used with a different request; use a new key for a new request",
    );
  return { status: stored.statusCode, body: stored.response, replayed: true };
}

function inProgress() {
  return new AppError(
    "idempotency_in_progress",
    "A request with this Idempotency-Key is still being processed; retry later",
    { retryAfterS: 1 },
  );
}

/**
 * Sends an outcome. A replay goes out as the stored JSON text (not through the route's serializer, so
 * an answer stored by an older version is replayed as it was) with `Idempotent-Replayed: true`.
 */
export function sendIdempotent(reply: FastifyReply, outcome: IdempotentOutcome) {
  reply.header("cache-control", "no-store");
  reply.status(outcome.status);
  if (!outcome.replayed) return reply.send(outcome.body);
  reply.header(IDEMPOTENT_REPLAYED_HEADER, "true");
  return reply.type("application/json; charset=utf-8").send(JSON.stringify(outcome.body));
}

/** Deletes answers older than the retention; returns how many. */
export async function pruneIdempotencyKeys(db: Db, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - IDEMPOTENCY_RETENTION_HOURS * 3_600_000);
  const gone = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, before))
    .returning({ key: idempotencyKeys.key });
  return gone.length;
}

/** Stored answers hold the person's data (a measurement's detail): deleted with the account, never exported. */
export const idempotencyDataSection: UserDataSection = {
  name: "idempotency",
  tables: { idempotency_keys: { policy: "internal" } },
};

/** Registers the data section and the hourly prune job. */
export function registerIdempotency(ctx: AppContext): void {
  ctx.services.registry.register(idempotencyDataSection);
  ctx.services.jobs.defineJob(
    IDEMPOTENCY_PRUNE_JOB,
    async () => {
      const pruned = await pruneIdempotencyKeys(ctx.database.db);
      if (pruned > 0) ctx.log.info({ pruned }, "idempotency keys pruned");
    },
    { cron: "23 * * * *" },
  );
}
