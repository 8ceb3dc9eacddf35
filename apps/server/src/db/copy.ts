// COPY … FROM for bulk writes, on either driver: node-postgres streams the rows through pg-copy-streams,
// PGlite reads them from a blob (`COPY … FROM '/dev/blob'`). Both run on the transaction's own connection,
// so what is copied is visible to the statements that follow in the same transaction, and gone if it
// rolls back.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { PoolClient } from "pg";
import { from as copyStream } from "pg-copy-streams";
import type { Db } from "./client.ts";

type PgliteTx = {
  query: (text: string, params?: unknown[], options?: { blob?: Blob }) => Promise<unknown>;
};

/** The connection behind a Drizzle transaction (Drizzle keeps it on the transaction's session). */
function connectionOf(tx: Db): PoolClient | PgliteTx {
  const client = (tx as unknown as { session?: { client?: unknown } }).session?.client;
  if (!client || typeof (client as { query?: unknown }).query !== "function")
    throw new Error("COPY needs a transaction's connection");
  return client as PoolClient | PgliteTx;
}

const isNodePostgres = (c: PoolClient | PgliteTx): c is PoolClient =>
  typeof (c as PoolClient).release === "function" || "connection" in (c as object);

/**
 * Copies rows in PostgreSQL's text format (tab-separated columns, one row per line, `\\` escapes) or, with
 * `binary`, its binary format into `target` (a table name with its column list, trusted SQL). `tx` must be
 * a transaction: on a pool, COPY and the next statement could otherwise run on different connections.
 */
export async function copyRows(tx: Db, target: string, data: Uint8Array, binary = false): Promise<void> {
  if (data.length === 0) return;
  const client = connectionOf(tx);
  const format = binary ? " with (format binary)" : "";
  if (isNodePostgres(client)) {
    await pipeline(
      Readable.from([Buffer.from(data.buffer, data.byteOffset, data.length)]),
      client.query(copyStream(`copy ${target} from stdin${format}`)),
    );
    return;
  }
  await client.query(`copy ${target} from '/dev/blob'${format}`, [], {
    blob: new Blob([data as Uint8Array<ArrayBuffer>]),
  });
}
