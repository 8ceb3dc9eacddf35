import { IFTTT_REALTIME_BATCH } from "@tonus/contract";
import { asc, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { iftttRealtimePending } from "../../db/schema.ts";

/** Batches one run of the sender posts before it hands over to a fresh run (a queued job). */
const BATCHES_PER_RUN = 10;
const REQUEST_TIMEOUT_MS = 10_000;

export type RealtimeTarget = { url: string; serviceKey: string; fetch?: typeof fetch };

/**
 * Notes in the caller's transaction that IFTTT should hear of the person's new trigger events. A person
 * already waiting moves to the back with a fresh `seq`, so a batch already read (and maybe already
 * posted) does not take this newer notice with it when it is deleted.
 */
export async function noteRealtimeNotice(tx: Db, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await tx
    .insert(iftttRealtimePending)
    .values(userIds.map((userId) => ({ userId })))
    .onConflictDoUpdate({
      target: iftttRealtimePending.userId,
      set: { seq: sql`excluded.seq`, noticedAt: sql`excluded.noticed_at` },
    });
}

/**
 * Posts the waiting notices to IFTTT's realtime API (https://ifttt.com/docs/api_reference#realtime-api),
 * `{data: [{user_id}, …]}` with at most IFTTT_REALTIME_BATCH items per request, oldest notice first.
 * A batch's rows are deleted only after IFTTT accepted it, and only with the `seq` that was posted; a
 * failed request throws with the rest still waiting, so the job's retry sends them. No transaction is
 * held across the request (on PGlite it would block every other query). Two senders at once may post a
 * person twice, which IFTTT takes as one more "poll now". Answers whether notices remain after this run.
 */
export async function sendRealtimeNotices(
  db: Db,
  target: RealtimeTarget,
): Promise<{ sent: number; more: boolean }> {
  const doFetch = target.fetch ?? fetch;
  let sent = 0;
  for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
    const rows = await db
      .select({ userId: iftttRealtimePending.userId, seq: iftttRealtimePending.seq })
      .from(iftttRealtimePending)
      .orderBy(asc(iftttRealtimePending.seq))
      .limit(IFTTT_REALTIME_BATCH);
    if (rows.length === 0) return { sent, more: false };
    const res = await doFetch(target.url, {
      method: "POST",
      headers: {
        "IFTTT-Service-Key": target.serviceKey,
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-Request-ID": crypto.randomUUID(),
      },
      body: JSON.stringify({ data: rows.map((r) => ({ user_id: r.userId })) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    // The body is not needed; reading it frees the connection.
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) throw new Error(`IFTTT realtime answered ${res.status}`);
    await db.delete(iftttRealtimePending).where(
      inArray(
        iftttRealtimePending.seq,
        rows.map((r) => r.seq),
      ),
    );
    sent += rows.length;
    if (rows.length < IFTTT_REALTIME_BATCH) return { sent, more: false };
  }
  const [left] = await db.select({ n: sql<number>`count(*)::int` }).from(iftttRealtimePending);
  return { sent, more: (left?.n ?? 0) > 0 };
}
