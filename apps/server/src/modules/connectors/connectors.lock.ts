import type { PoolClient } from "pg";
import type { Database } from "../../db/client.ts";

/**
 * Never two syncs of one connection at once. On PostgreSQL a session-level advisory lock on a connection
 * of its own, held for the whole sync: instances on several machines exclude each other, and a process
 * that dies mid-sync loses its session and with it the lock, so the next run can resume at once. On
 * PGlite only this process can hold the data directory (db/lock.ts), so a set of running ids suffices;
 * it is kept on PostgreSQL too because advisory locks are re-entrant within one session.
 */
export type SyncLock = {
  /** The release function, or null when this connection is being synced already. */
  tryAcquire: (connectionId: string) => Promise<(() => Promise<void>) | null>;
};

export function createSyncLock(database: Pick<Database, "pool">): SyncLock {
  const held = new Set<string>();
  return {
    async tryAcquire(connectionId) {
      if (held.has(connectionId)) return null;
      held.add(connectionId);
      const pool = database.pool;
      if (!pool) {
        return async () => {
          held.delete(connectionId);
        };
      }
      const key = `connector-sync:${connectionId}`;
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        held.delete(connectionId);
        throw error;
      }
      try {
        const result = await client.query<{ ok: boolean }>(
          "select pg_try_advisory_lock(hashtext($1)) as ok",
          [key],
        );
        if (!result.rows[0]?.ok) {
          client.release();
          held.delete(connectionId);
          return null;
        }
      } catch (error) {
        client.release();
        held.delete(connectionId);
        throw error;
      }
      return async () => {
        try {
          await client.query("select pg_advisory_unlock(hashtext($1))", [key]);
          client.release();
        } catch (error) {
          // The session is unusable: destroying it drops the lock with it.
          client.release(error instanceof Error ? error : true);
        } finally {
          held.delete(connectionId);
        }
      };
    },
  };
}
