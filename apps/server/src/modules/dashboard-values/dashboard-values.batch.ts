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

const encoder = new TextEncoder();

/**
 * Builds a batch's COPY bytes as values arrive: each row is encoded at once into one growing buffer
 * (outside the JavaScript heap), so an import's records and their row text die young instead of living
 * until the batch is full (in an import thread with a small heap, those survivors cost more time
 * collecting garbage than the encoding itself).
 */
export class ValueBatchBuilder {
  private buf = new Uint8Array(1 << 16);
  private used = 0;
  /** Where each row starts in `buf` (and, past the last, `used`). */
  private starts: number[] = [];
  private counted: boolean[] = [];
  /** Row index by source, then client id. */
  private readonly index = new Map<string, Map<string, number>>();
  /** Rows whose key came again: their replacement text (the first row keeps its place). */
  private readonly replaced = new Map<number, Uint8Array>();
  private repeatedCounted = 0;

  /** Rows so far (after merging repeated keys). */
  get size(): number {
    return this.starts.length;
  }

  /**
   * Adds a value; a non-finite value or an invalid time is skipped (answers false), as `recordValues` skips it. An
   * invalid metric or source key throws, as `recordValues` does.
   */
  add(v: BatchValue, counted: boolean): boolean {
    return this.addValue(v.metric, v.atMs, v.value, v.source, v.clientId, counted);
  }

  /** `add` without the object. */
  addValue(
    metric: string,
    atMs: number,
    value: number,
    source: string,
    clientId: string,
    counted: boolean,
  ): boolean {
    if (!Number.isFinite(value) || !(atMs >= MIN_AT_MS && atMs <= MAX_AT_MS)) return false;
    if (!METRIC_RE.test(metric)) throw new Error(`Invalid metric key ${metric}`);
    if (!SOURCE_RE.test(source)) throw new Error(`Invalid source ${source}`);
    if (clientId.includes("\u0000")) throw new Error("Invalid client id (NUL)");
    let ofSource = this.index.get(source);
    if (!ofSource) {
      ofSource = new Map();
      this.index.set(source, ofSource);
    }
    const row = (c: boolean) =>
      `${metric}\t${new Date(atMs).toISOString()}\t${value}\t${source}\t${copyText(clientId)}\t${c ? "t" : "f"}\n`;
    const at = ofSource.get(clientId);
    if (at !== undefined) {
      if (counted) this.repeatedCounted++;
      const both = counted || (this.counted[at] as boolean);
      this.counted[at] = both;
      this.replaced.set(at, encoder.encode(row(both)));
      return true;
    }
    ofSource.set(clientId, this.starts.length);
    this.starts.push(this.used);
    this.counted.push(counted);
    this.append(row(counted));
    return true;
  }

  private append(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const need = this.used + text.length * 3;
    if (need > this.buf.length) {
      const grown = new Uint8Array(Math.max(need, this.buf.length * 2));
      grown.set(this.buf.subarray(0, this.used));
      this.buf = grown;
    }
    this.used += encoder.encodeInto(text, this.buf.subarray(this.used)).written;
  }

  /** Encodes what was added and empties the builder. */
  build(): ValueBatch {
    const rows = this.starts.length;
    let bytes = this.buf.slice(0, this.used);
    if (this.replaced.size > 0) {
      const parts: Uint8Array[] = [];
      let size = 0;
      for (let i = 0; i < rows; i++) {
        const part =
          this.replaced.get(i) ?? bytes.subarray(this.starts[i] as number, this.starts[i + 1] ?? this.used);
        parts.push(part);
        size += part.length;
      }
      bytes = new Uint8Array(size);
      let at = 0;
      for (const part of parts) {
        bytes.set(part, at);
        at += part.length;
      }
    }
    const batch: ValueBatch = {
      bytes,
      rows,
      counted: this.counted.reduce((n, c) => (c ? n + 1 : n), 0),
      repeatedCounted: this.repeatedCounted,
    };
    this.used = 0;
    this.starts = [];
    this.counted = [];
    this.index.clear();
    this.replaced.clear();
    this.repeatedCounted = 0;
    return batch;
  }
}
