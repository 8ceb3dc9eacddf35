// The bulk store's batches (`dashboard_samples`): a file import's samples grouped by source, metric and UTC
// day, built anywhere (the import's reader thread builds them while it parses) and written by
// `recordSampleBatch`. Pure: no database, no Node APIs, so a worker can hand a batch to another thread
// with its arrays moved, not copied.
import { METRIC_RE, SOURCE_RE } from "./dashboard-values.batch.ts";

export const DAY_MS = 86_400_000;

/** Times PostgreSQL stores (years 1 to 9999); others are skipped like an invalid date. */
const MIN_AT_MS = -62_135_596_800_000;
const MAX_AT_MS = 253_402_300_799_999;

/** One block: a source's samples of one metric on one UTC day, elements `start` to `end` of the batch. */
export type SampleBlock = {
  source: string;
  metric: string;
  /** The UTC day: days since 1970-01-01. */
  day: number;
  start: number;
  end: number;
};

/**
 * A batch of samples: blocks and, block after block, each element's time (ms since 1970, ascending within a
 * block, ties by key), value, client id and whether the caller counts it (an import counts each record by
 * its own value, not the values that come with it). Within a block a key is unique: a key added twice
 * keeps its last value, in its place by time. The same key on another day or metric is another sample.
 * Client ids travel as UTF-8 bytes (what COPY sends), so a batch being built holds no strings.
 */
export type SampleBatch = {
  blocks: SampleBlock[];
  atMs: Float64Array;
  vals: Float64Array;
  counted: Uint8Array;
  /** The client ids, UTF-8, one after another: element `e`'s is bytes `keyStarts[e]` to `keyStarts[e + 1]`. */
  keyBytes: Uint8Array;
  keyStarts: Int32Array;
  /** Elements marked counted. */
  countedN: number;
  /** Counted elements whose key had already been added to its block (the earlier one was replaced). */
  repeatedCounted: number;
};

const decoder = new TextDecoder();

/** A batch's client ids, in element order. */
export function sampleKeys(b: SampleBatch): string[] {
  const out = new Array<string>(b.atMs.length);
  for (let e = 0; e < out.length; e++)
    out[e] = decoder.decode(b.keyBytes.subarray(b.keyStarts[e] as number, b.keyStarts[e + 1] as number));
  return out;
}

const encoder = new TextEncoder();

function grownF64(a: Float64Array, n: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}
function grownI32(a: Int32Array, n: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}
function grownU8(a: Uint8Array, n: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/** The blocks of one source and metric: the day last asked for and its block, and every day's. */
type MetricBlocks = {
  source: string;
  metric: string;
  day: number;
  block: number;
  byDay: Map<number, number>;
};
const RECENT_PAIRS = 4;

/**
 * Groups samples into blocks as they arrive; `build` answers the batch and empties the builder. Everything
 * a batch holds while it grows lives in typed arrays outside the JavaScript heap (client ids as UTF-8, a
 * hash table of them per block for repeats): in an import's reader thread, whose heap is small, values
 * kept alive until the batch is full cost more collecting than the reading itself.
 */
export class SampleBatchBuilder {
  private n = 0;
  private at = new Float64Array(1024);
  private vals = new Float64Array(1024);
  private counted = new Uint8Array(1024);
  private blockOf = new Int32Array(1024);
  private hashes = new Int32Array(1024);
  private keyStart = new Int32Array(1024);
  private keyEnd = new Int32Array(1024);
  private keyBuf = new Uint8Array(1 << 16);
  private keyUsed = 0;
  /** Open addressing: element index + 1, 0 for a free slot. */
  private table = new Int32Array(4096);
  private blocks: { source: string; metric: string; day: number }[] = [];
  /** Blocks by source and metric, then day; the few pairs used last are found without a lookup. */
  private readonly pairs = new Map<string, Map<string, MetricBlocks>>();
  private readonly recent: (MetricBlocks | undefined)[] = new Array(RECENT_PAIRS);
  private nextRecent = 0;
  private repeatedCounted = 0;

  /** Elements so far (after merging repeated keys). */
  get size(): number {
    return this.n;
  }

  private blockFor(source: string, metric: string, day: number): number {
    const pair = this.pairOf(source, metric);
    if (pair.day === day) return pair.block;
    let block = pair.byDay.get(day);
    if (block === undefined) {
      block = this.blocks.length;
      this.blocks.push({ source, metric, day });
      pair.byDay.set(day, block);
    }
    pair.day = day;
    pair.block = block;
    return block;
  }

  /**
   * The blocks of `source` and `metric`. Imports interleave a few metrics (a file's steps, energy and
   * heart rate minute by minute), so the pairs used last are compared first, by the strings' identity
   * when the caller reuses them: most samples then cost no lookup and no allocation.
   */
  private pairOf(source: string, metric: string): MetricBlocks {
    for (const pair of this.recent) if (pair && pair.source === source && pair.metric === metric) return pair;
    let metrics = this.pairs.get(source);
    if (!metrics) {
      if (!SOURCE_RE.test(source)) throw new Error(`Invalid source ${source}`);
      metrics = new Map();
      this.pairs.set(source, metrics);
    }
    let pair = metrics.get(metric);
    if (!pair) {
      if (!METRIC_RE.test(metric)) throw new Error(`Invalid metric key ${metric}`);
      pair = { source, metric, day: Number.NaN, block: -1, byDay: new Map() };
      metrics.set(metric, pair);
    }
    this.recent[this.nextRecent] = pair;
    this.nextRecent = (this.nextRecent + 1) % RECENT_PAIRS;
    return pair;
  }

  /** Writes `key` as UTF-8 after the used bytes (not yet taken) and answers its length. */
  private writeKey(key: string): number {
    const at = this.keyUsed;
    if (at + key.length * 3 > this.keyBuf.length) this.keyBuf = grownU8(this.keyBuf, at + key.length * 3);
    const buf = this.keyBuf;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      if (c >= 0x80) {
        if (key.includes("\u0000", i)) throw new Error("Invalid client id (NUL)");
        return encoder.encodeInto(key, buf.subarray(at)).written;
      }
      if (c === 0) throw new Error("Invalid client id (NUL)");
      buf[at + i] = c;
    }
    return key.length;
  }

  private sameKey(e: number, at: number, length: number): boolean {
    const start = this.keyStart[e] as number;
    if ((this.keyEnd[e] as number) - start !== length) return false;
    const buf = this.keyBuf;
    for (let i = 0; i < length; i++) if (buf[start + i] !== buf[at + i]) return false;
    return true;
  }

  private grow(): void {
    const need = this.n + 1;
    this.at = grownF64(this.at, need);
    this.vals = grownF64(this.vals, need);
    this.counted = grownU8(this.counted, need);
    this.blockOf = grownI32(this.blockOf, need);
    this.hashes = grownI32(this.hashes, need);
    this.keyStart = grownI32(this.keyStart, need);
    this.keyEnd = grownI32(this.keyEnd, need);
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let e = 0; e < this.n; e++) {
      let slot = (this.hashes[e] as number) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = e + 1;
    }
    this.table = table;
  }

  /**
   * Adds a sample; a non-finite value or an invalid time is skipped (answers false), as `recordValues`
   * skips it. An invalid metric or source key, or a client id holding NUL, throws.
   */
  add(
    metric: string,
    atMs: number,
    value: number,
    source: string,
    clientId: string,
    counted: boolean,
  ): boolean {
    if (!Number.isFinite(value) || !(atMs >= MIN_AT_MS && atMs <= MAX_AT_MS)) return false;
    const block = this.blockFor(source, metric, Math.floor(atMs / DAY_MS));
    const keyAt = this.keyUsed;
    const length = this.writeKey(clientId);
    // FNV-1a over the key's bytes and its block.
    let h = 0x811c9dc5 ^ block;
    const buf = this.keyBuf;
    for (let i = 0; i < length; i++) h = Math.imul(h ^ (buf[keyAt + i] as number), 0x01000193);
    const mask = this.table.length - 1;
    let slot = h & mask;
    for (let found = this.table[slot] as number; found !== 0; found = this.table[slot] as number) {
      const e = found - 1;
      if (this.hashes[e] === h && this.blockOf[e] === block && this.sameKey(e, keyAt, length)) {
        if (counted) this.repeatedCounted++;
        this.at[e] = atMs;
        this.vals[e] = value;
        if (counted) this.counted[e] = 1;
        return true;
      }
      slot = (slot + 1) & mask;
    }
    if (this.n === this.at.length) this.grow();
    const e = this.n++;
    this.at[e] = atMs;
    this.vals[e] = value;
    this.counted[e] = counted ? 1 : 0;
    this.blockOf[e] = block;
    this.hashes[e] = h;
    this.keyStart[e] = keyAt;
    this.keyEnd[e] = keyAt + length;
    this.keyUsed = keyAt + length;
    this.table[slot] = e + 1;
    if (this.n * 2 > this.table.length) this.rehash();
    return true;
  }

  /** Orders two elements by block, time, then key bytes (PostgreSQL's "C" collation order). */
  private compare(x: number, y: number): number {
    const b = (this.blockOf[x] as number) - (this.blockOf[y] as number);
    if (b !== 0) return b;
    const t = (this.at[x] as number) - (this.at[y] as number);
    if (t !== 0) return t;
    const buf = this.keyBuf;
    const xs = this.keyStart[x] as number;
    const ys = this.keyStart[y] as number;
    const xl = (this.keyEnd[x] as number) - xs;
    const yl = (this.keyEnd[y] as number) - ys;
    for (let i = 0; i < Math.min(xl, yl); i++) {
      const d = (buf[xs + i] as number) - (buf[ys + i] as number);
      if (d !== 0) return d;
    }
    return xl - yl;
  }

  /**
   * The elements in `compare` order: counted out by block (in the order they came), then each block
   * sorted by time and key, which its elements mostly came in already, so a block is checked in one
   * pass and sorted only if it needs it (a sort of the whole batch spent most of `build`).
   */
  private sortedOrder(): Int32Array {
    const n = this.n;
    const blocks = this.blocks.length;
    const starts = new Int32Array(blocks + 1);
    for (let e = 0; e < n; e++) {
      const b = (this.blockOf[e] as number) + 1;
      starts[b] = (starts[b] as number) + 1;
    }
    for (let b = 0; b < blocks; b++) starts[b + 1] = (starts[b + 1] as number) + (starts[b] as number);
    const next = starts.slice(0, blocks);
    const order = new Int32Array(n);
    for (let e = 0; e < n; e++) {
      const b = this.blockOf[e] as number;
      order[next[b] as number] = e;
      next[b] = (next[b] as number) + 1;
    }
    for (let b = 0; b < blocks; b++) {
      const from = starts[b] as number;
      const to = starts[b + 1] as number;
      for (let i = from + 1; i < to; i++) {
        if (this.compare(order[i - 1] as number, order[i] as number) > 0) {
          order.subarray(from, to).sort((x, y) => this.compare(x, y));
          break;
        }
      }
    }
    return order;
  }

  build(): SampleBatch {
    const n = this.n;
    const order = this.sortedOrder();
    const atMs = new Float64Array(n);
    const vals = new Float64Array(n);
    const counted = new Uint8Array(n);
    const keyStarts = new Int32Array(n + 1);
    const keyBytes = new Uint8Array(this.keyUsed);
    const blocks: SampleBlock[] = [];
    let countedN = 0;
    let used = 0;
    for (let i = 0; i < n; i++) {
      const e = order[i] as number;
      atMs[i] = this.at[e] as number;
      vals[i] = this.vals[e] as number;
      counted[i] = this.counted[e] as number;
      countedN += counted[i] as number;
      const start = this.keyStart[e] as number;
      const end = this.keyEnd[e] as number;
      keyStarts[i] = used;
      // A byte loop: a subarray for each of a batch's thousands of short keys cost more.
      for (let j = start; j < end; j++) keyBytes[used++] = this.keyBuf[j] as number;
      const block = this.blockOf[e] as number;
      const current = blocks[blocks.length - 1];
      const def = this.blocks[block] as { source: string; metric: string; day: number };
      if (
        current &&
        current.source === def.source &&
        current.metric === def.metric &&
        current.day === def.day
      )
        current.end = i + 1;
      else blocks.push({ ...def, start: i, end: i + 1 });
    }
    keyStarts[n] = used;
    const batch: SampleBatch = {
      blocks,
      atMs,
      vals,
      counted,
      keyBytes,
      keyStarts,
      countedN,
      repeatedCounted: this.repeatedCounted,
    };
    this.n = 0;
    this.keyUsed = 0;
    this.table.fill(0);
    this.blocks = [];
    this.pairs.clear();
    this.recent.fill(undefined);
    this.repeatedCounted = 0;
    return batch;
  }
}

/** The buffers a batch can move to another thread with (`postMessage`'s transfer list). */
export const sampleTransfer = (b: SampleBatch): ArrayBuffer[] =>
  [b.atMs.buffer, b.vals.buffer, b.counted.buffer, b.keyBytes.buffer, b.keyStarts.buffer] as ArrayBuffer[];

// PostgreSQL's binary COPY format: a signature, flags and header extension, then each row's field count and
// each field as its length and bytes (big-endian), then -1. Arrays are array_send's layout: dimensions,
// a has-nulls flag, the element type, each dimension's length and lower bound, then each element.
const SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00];
const INT8_OID = 20;
const TEXT_OID = 25;
const FLOAT8_OID = 701;
/** Days from 1970-01-01 to PostgreSQL's epoch, 2000-01-01. */
const PG_EPOCH_DAYS = 10_957;
const TWO_32 = 4_294_967_296;

class BinaryWriter {
  buf = new Uint8Array(1 << 16);
  view = new DataView(this.buf.buffer);
  at = 0;

  ensure(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.at + n, this.buf.length * 2));
    grown.set(this.buf.subarray(0, this.at));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }
  int16(v: number): void {
    this.ensure(2);
    this.view.setInt16(this.at, v);
    this.at += 2;
  }
  int32(v: number): void {
    this.ensure(4);
    this.view.setInt32(this.at, v);
    this.at += 4;
  }
  /** A length-prefixed UTF-8 string (a text field or element). */
  text(s: string): void {
    this.ensure(4 + s.length * 3);
    const written = encoder.encodeInto(s, this.buf.subarray(this.at + 4)).written;
    this.view.setInt32(this.at, written);
    this.at += 4 + written;
  }
  /** The header of a one-dimensional array field of `n` elements; answers where its length goes. */
  arrayStart(oid: number, n: number): number {
    this.ensure(24);
    const lengthAt = this.at;
    this.view.setInt32(this.at + 4, 1);
    this.view.setInt32(this.at + 8, 0);
    this.view.setInt32(this.at + 12, oid);
    this.view.setInt32(this.at + 16, n);
    this.view.setInt32(this.at + 20, 1);
    this.at += 24;
    return lengthAt;
  }
  fieldEnd(lengthAt: number): void {
    this.view.setInt32(lengthAt, this.at - lengthAt - 4);
  }
}

/**
 * The binary COPY rows of `blocks` (indexes into `batch.blocks`) for the staging table's columns
 * `(i, source, metric, day, at_ms, vals, keys)`, `i` being the block's index.
 */
export function encodeSampleBlocks(batch: SampleBatch, which: readonly number[]): Uint8Array {
  const w = new BinaryWriter();
  w.ensure(SIGNATURE.length + 8);
  w.buf.set(SIGNATURE, 0);
  w.at = SIGNATURE.length;
  w.int32(0);
  w.int32(0);
  for (const i of which) {
    const b = batch.blocks[i] as SampleBlock;
    const n = b.end - b.start;
    w.int16(7);
    w.int32(4);
    w.int32(i);
    w.text(b.source);
    w.text(b.metric);
    w.int32(4);
    w.int32(b.day - PG_EPOCH_DAYS);
    let field = w.arrayStart(INT8_OID, n);
    w.ensure(n * 12);
    for (let e = b.start; e < b.end; e++) {
      const ms = batch.atMs[e] as number;
      const hi = Math.floor(ms / TWO_32);
      w.view.setInt32(w.at, 8);
      w.view.setInt32(w.at + 4, hi);
      w.view.setUint32(w.at + 8, ms - hi * TWO_32);
      w.at += 12;
    }
    w.fieldEnd(field);
    field = w.arrayStart(FLOAT8_OID, n);
    w.ensure(n * 12);
    for (let e = b.start; e < b.end; e++) {
      w.view.setInt32(w.at, 8);
      w.view.setFloat64(w.at + 4, batch.vals[e] as number);
      w.at += 12;
    }
    w.fieldEnd(field);
    field = w.arrayStart(TEXT_OID, n);
    const from = batch.keyStarts[b.start] as number;
    const to = batch.keyStarts[b.end] as number;
    w.ensure(n * 4 + to - from);
    const bytes = batch.keyBytes;
    for (let e = b.start; e < b.end; e++) {
      const start = batch.keyStarts[e] as number;
      const length = (batch.keyStarts[e + 1] as number) - start;
      w.view.setInt32(w.at, length);
      const buf = w.buf;
      const at = w.at + 4;
      for (let j = 0; j < length; j++) buf[at + j] = bytes[start + j] as number;
      w.at = at + length;
    }
    w.fieldEnd(field);
  }
  w.int16(-1);
  return w.buf.subarray(0, w.at);
}

/** The batch's elements for which `keep(element)` holds, as a batch of their own. */
export function filterSamples(batch: SampleBatch, keys: readonly string[], keep: (e: number) => boolean) {
  const builder = new SampleBatchBuilder();
  for (const b of batch.blocks)
    for (let e = b.start; e < b.end; e++)
      if (keep(e))
        builder.add(
          b.metric,
          batch.atMs[e] as number,
          batch.vals[e] as number,
          b.source,
          keys[e] as string,
          batch.counted[e] === 1,
        );
  return builder.build();
}
