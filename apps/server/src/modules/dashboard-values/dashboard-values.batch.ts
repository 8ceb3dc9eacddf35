// A batch of dashboard values encoded for COPY, built anywhere (the import's worker thread builds them
// while it parses) and written by `recordValueBatch`. Pure: no database, no Node APIs, so a worker can
// hand the bytes to the main thread without copying them.

/** One value as the builder takes it (`atMs`: ms since the epoch, UTC). */
export type BatchValue = { metric: string; atMs: number; value: number; source: string; clientId: string };

/**
 * Encoded values: COPY text rows `metric, at, value, source, client_id, counted`, one per key (a key
 * repeated while building keeps its last value). `counted` marks the values the caller counts (an
 * import counts each record by its own value, not the values that come along with it).
 */
export type ValueBatch = {
  bytes: Uint8Array;
  /** Rows in `bytes`. */
  rows: number;
  /** Rows marked counted. */
  counted: number;
  /** Counted values whose key had already been added to this batch (the earlier one was replaced). */
  repeatedCounted: number;
};

export const METRIC_RE = /^[a-z][a-z0-9_]{0,63}$/;
export const SOURCE_RE = /^[a-z][a-z0-9_.-]{0,63}$/;

/** PostgreSQL's COPY text format: backslash, tab, newline and carriage return are escaped. */
/** Times COPY can read back (years 1 to 9999); others are skipped like an invalid date. */
const MIN_AT_MS = -62_135_596_800_000;
const MAX_AT_MS = 253_402_300_799_999;

const NEEDS_ESCAPE = /[\\\t\n\r]/;
function copyText(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(/[\\\t\n\r]/g, (c) =>
    c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
  );
}

type Row = {
  metric: string;
  atMs: number;
  value: number;
  source: string;
  clientId: string;
  counted: boolean;
};

export class ValueBatchBuilder {
  private readonly rows: Row[] = [];
  private readonly index = new Map<string, number>();
  private repeatedCounted = 0;

  /** Rows so far (after merging repeated keys). */
  get size(): number {
    return this.rows.length;
  }

  /**
   * Adds a value; a non-finite value or an invalid time is skipped (answers false), as `recordValues` skips it. An
   * invalid metric or source key throws, as `recordValues` does.
   */
  add(v: BatchValue, counted: boolean): boolean {
    if (!Number.isFinite(v.value) || !(v.atMs >= MIN_AT_MS && v.atMs <= MAX_AT_MS)) return false;
    if (!METRIC_RE.test(v.metric)) throw new Error(`Invalid metric key ${v.metric}`);
    if (!SOURCE_RE.test(v.source)) throw new Error(`Invalid source ${v.source}`);
    if (v.clientId.includes("\u0000")) throw new Error("Invalid client id (NUL)");
    const key = `${v.source}\u0000${v.clientId}`;
    const at = this.index.get(key);
    const row: Row = { ...v, counted };
    if (at === undefined) {
      this.index.set(key, this.rows.length);
      this.rows.push(row);
      return true;
    }
    const held = this.rows[at] as Row;
    if (counted) this.repeatedCounted++;
    row.counted = counted || held.counted;
    this.rows[at] = row;
    return true;
  }

  /** Encodes what was added and empties the builder. */
  build(): ValueBatch {
    let text = "";
    let counted = 0;
    for (const r of this.rows) {
      if (r.counted) counted++;
      text += `${r.metric}\t${new Date(r.atMs).toISOString()}\t${r.value}\t${r.source}\t${copyText(r.clientId)}\t${r.counted ? "t" : "f"}\n`;
    }
    const batch: ValueBatch = {
      bytes: new TextEncoder().encode(text),
      rows: this.rows.length,
      counted,
      repeatedCounted: this.repeatedCounted,
    };
    this.rows.length = 0;
    this.index.clear();
    this.repeatedCounted = 0;
    return batch;
  }
}
