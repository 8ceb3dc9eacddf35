// A streaming FIT decoder written from the published FIT protocol (file header, definition and data
// messages, compressed-timestamp headers, per-definition endianness, developer fields, chained files and
// the CRC-16 checks). It knows no profile beyond what the caller asks for: fields come back as raw numbers
// keyed by field number, invalid values dropped; scaling and meaning belong to `fit-import.ts`.
import type { Rejection } from "../types.ts";
import { BASE_TYPE_SIZE, BT, readElement } from "./base-types.ts";
import { updateFitCrc } from "./crc.ts";

/** Seconds between the Unix epoch and the FIT epoch (1989-12-31T00:00:00Z). */
export const FIT_EPOCH_S = 631065600;

/** A decoded field: a number, an array (invalid elements dropped) or a string. */
export type FitValue = number | number[] | string;

/** One decoded data message. */
export type FitMessage = {
  /** Global message number (20 record, 78 hrv, …). */
  global: number;
  /** Raw field values by field number; invalid values are absent. */
  fields: Map<number, FitValue>;
  /** FIT-epoch seconds from field 253 or a compressed-timestamp header. */
  timestamp?: number;
  /** The last full timestamp seen before this message (for `timestamp_16` style fields). */
  lastTimestamp?: number;
  /** Byte offset of the message's record header in the input. */
  offset: number;
};

type FieldDef = { num: number; size: number; bt: number; at: number };
type Definition = { global: number; little: boolean; fields: FieldDef[]; size: number; tsAt: number };
const TIMESTAMP_ONLY = new Set<number>();

type State = "header" | "records" | "crc" | "failed";

/** Options of {@link FitDecoder}. */
export type FitDecoderOptions = {
  /** Global message numbers to decode; others are only counted (and skipped fast). Default: all. */
  messages?: ReadonlySet<number>;
  /** For the messages listed, decode only these field numbers (the rest are stepped over). */
  fields?: ReadonlyMap<number, ReadonlySet<number>>;
};

const TIMESTAMP_FIELD = 253;
/** A FIT header is 12 or 14 bytes; anything else this large is not a FIT file (the size is one byte). */
const MIN_HEADER = 12;

/**
 * Streaming FIT decoder: `push` chunks of any size, get the data messages completed so far; `finish`
 * at end of input. Never throws on bad input: the first problem sets `error` (`invalid_header`,
 * `invalid_record`, `unexpected_eof`, `crc_mismatch`, `empty_file`) and decoding stops there, so the
 * messages returned before it are the readable part of a damaged file. Memory is bounded by one record
 * (at most 255 fields of 255 bytes) plus the caller's chunk.
 */
export class FitDecoder {
  /** Data messages seen per global number (decoded or skipped). */
  readonly counts = new Map<number, number>();
  /** Developer-data fields skipped (their bytes are stepped over, never interpreted). */
  developerFieldsSkipped = 0;
  /** FIT files in the input (chained files count each). */
  files = 0;
  /** The first problem, if any; decoding stopped there. */
  error?: Rejection;

  private readonly wanted?: ReadonlySet<number>;
  private readonly fieldFilter?: ReadonlyMap<number, ReadonlySet<number>>;
  private buf: Uint8Array = new Uint8Array(0);
  private view = new DataView(this.buf.buffer);
  private pos = 0;
  /** Absolute input offset of `buf[0]`. */
  private base = 0;
  private state: State = "header";
  private dataEnd = 0;
  private crc = 0;
  private defs: (Definition | undefined)[] = new Array(16);
  private lastTimestamp: number | undefined;

  constructor(options: FitDecoderOptions = {}) {
    this.wanted = options.messages;
    this.fieldFilter = options.fields;
  }

  /** Input bytes consumed (parsed) so far. */
  get offset(): number {
    return this.base + this.pos;
  }

  /** Feeds the next chunk; returns the data messages it completed (only the wanted ones). */
  push(chunk: Uint8Array): FitMessage[] {
    if (this.state === "failed") return [];
    this.append(chunk);
    const out: FitMessage[] = [];
    while (this.step(out)) {
      // each step consumes one header, record or CRC
    }
    return out;
  }

  /** Ends the input: sets `error` if the file stopped mid-way, had no FIT data, or was empty. */
  finish(): void {
    if (this.state === "failed") return;
    const pending = this.buf.length - this.pos;
    if (this.state === "header" && pending === 0) {
      if (this.files === 0) this.fail("empty_file", "no bytes");
      return;
    }
    if (this.state === "header" && this.files === 0) {
      this.fail("invalid_header", `${pending} bytes, too short for a FIT header`);
      return;
    }
    this.fail("unexpected_eof", `${pending} bytes left in ${this.state}`);
  }

  private append(chunk: Uint8Array): void {
    const rest = this.buf.length - this.pos;
    if (rest === 0) {
      this.base += this.buf.length;
      this.buf = chunk;
    } else {
      const joined = new Uint8Array(rest + chunk.length);
      joined.set(this.buf.subarray(this.pos));
      joined.set(chunk, rest);
      this.base += this.pos;
      this.buf = joined;
    }
    this.pos = 0;
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  private fail(reason: Rejection["reason"], detail: string): false {
    this.state = "failed";
    this.error = { reason, offset: this.offset, detail };
    return false;
  }

  /** One unit of work; false when more input is needed or decoding stopped. */
  private step(out: FitMessage[]): boolean {
    const avail = this.buf.length - this.pos;
    if (this.state === "header") return avail > 0 && this.readHeader(avail);
    if (this.state === "crc") {
      if (avail < 2) return false;
      const fileCrc = this.view.getUint16(this.pos, true);
      if (fileCrc !== this.crc) return this.fail("crc_mismatch", `file crc ${fileCrc} != ${this.crc}`);
      this.pos += 2;
      this.state = "header";
      return true;
    }
    if (this.offset === this.dataEnd) {
      this.state = "crc";
      return true;
    }
    return avail > 0 && this.readRecord(avail, out);
  }

  private readHeader(avail: number): boolean {
    const b = this.buf;
    const p = this.pos;
    const size = b[p] as number;
    if (size < MIN_HEADER) return this.fail("invalid_header", `header size ${size}`);
    if (avail < MIN_HEADER) return false;
    if (b[p + 8] !== 0x2e || b[p + 9] !== 0x46 || b[p + 10] !== 0x49 || b[p + 11] !== 0x54) {
      return this.fail("invalid_header", "no .FIT signature");
    }
    if (avail < size) return false;
    // Protocol major version lives in the high nibble; 1.x and 2.x share the record layout.
    if ((b[p + 1] as number) >> 4 > 2) return this.fail("invalid_header", `protocol ${b[p + 1]}`);
    if (size >= 14) {
      const headerCrc = this.view.getUint16(p + 12, true);
      if (headerCrc !== 0 && headerCrc !== updateFitCrc(0, b, p, p + 12)) {
        return this.fail("invalid_header", "header crc");
      }
    }
    const dataSize = this.view.getUint32(p + 4, true);
    this.crc = updateFitCrc(0, b, p, p + size);
    this.pos += size;
    this.dataEnd = this.offset + dataSize;
    this.files++;
    this.defs = new Array(16);
    this.state = "records";
    return true;
  }

  private readRecord(avail: number, out: FitMessage[]): boolean {
    const b = this.buf;
    const p = this.pos;
    const h = b[p] as number;
    let need: number;
    if (h & 0x80 || !(h & 0x40)) {
      const def = this.defs[h & 0x80 ? (h >> 5) & 3 : h & 0x0f];
      if (!def) return this.fail("invalid_record", `data message for undefined local type ${h & 0x0f}`);
      need = 1 + def.size;
      if (this.offset + need > this.dataEnd) return this.fail("invalid_record", "record crosses data end");
      if (avail < need) return false;
      this.readData(h, def, out);
    } else {
      if (avail < 6) return false;
      const nFields = b[p + 5] as number;
      need = 6 + nFields * 3;
      if (h & 0x20) {
        if (avail < need + 1) return false;
        need += 1 + (b[p + need] as number) * 3;
      }
      if (this.offset + need > this.dataEnd) return this.fail("invalid_record", "record crosses data end");
      if (avail < need) return false;
      this.readDefinition(h, nFields);
    }
    this.crc = updateFitCrc(this.crc, b, p, p + need);
    this.pos += need;
    return true;
  }

  private readDefinition(h: number, nFields: number): void {
    const b = this.buf;
    const p = this.pos;
    const little = b[p + 2] === 0;
    const global = this.view.getUint16(p + 3, little);
    const fields: FieldDef[] = [];
    const keep = this.wanted && !this.wanted.has(global) ? TIMESTAMP_ONLY : this.fieldFilter?.get(global);
    let at = 1;
    let tsAt = -1;
    for (let i = 0; i < nFields; i++) {
      const q = p + 6 + i * 3;
      const num = b[q] as number;
      const size = b[q + 1] as number;
      const bt = (b[q + 2] as number) & 0x1f;
      // A size that is not a whole number of elements (seen in Coros files) is read as raw bytes.
      const elem = BASE_TYPE_SIZE[bt as 0] ?? 1;
      const fieldBt = size % elem === 0 && bt <= BT.uint64z ? bt : BT.byte;
      if (num === TIMESTAMP_FIELD && fieldBt === BT.uint32 && size === 4) tsAt = at;
      if (!keep || keep.has(num)) fields.push({ num, size, bt: fieldBt, at });
      at += size;
    }
    if (h & 0x20) {
      const q = p + 6 + nFields * 3;
      const nDev = b[q] as number;
      for (let i = 0; i < nDev; i++) at += b[q + 2 + i * 3] as number;
      this.developerFieldsSkipped += nDev;
    }
    this.defs[h & 0x0f] = { global, little, fields, size: at - 1, tsAt };
  }

  private readData(h: number, def: Definition, out: FitMessage[]): void {
    const p = this.pos;
    this.counts.set(def.global, (this.counts.get(def.global) ?? 0) + 1);
    const previous = this.lastTimestamp;
    let timestamp: number | undefined;
    if (h & 0x80) {
      // Compressed header: 5-bit seconds offset from the last full timestamp, rolling over every 32 s.
      if (previous !== undefined) {
        const offset = h & 0x1f;
        timestamp = previous - (previous % 32) + offset + (offset < previous % 32 ? 32 : 0);
        this.lastTimestamp = timestamp;
      }
    } else if (def.tsAt >= 0) {
      timestamp = readElement(this.view, p + def.tsAt, BT.uint32, def.little);
      if (timestamp !== undefined) this.lastTimestamp = timestamp;
    }
    if (this.wanted && !this.wanted.has(def.global)) return;
    const fields = new Map<number, FitValue>();
    for (const f of def.fields) {
      const v = this.readField(p + f.at, f, def.little);
      if (v !== undefined) fields.set(f.num, v);
    }
    const msg: FitMessage = { global: def.global, fields, offset: this.offset };
    if (timestamp !== undefined) msg.timestamp = timestamp;
    if (previous !== undefined) msg.lastTimestamp = previous;
    out.push(msg);
  }

  private readField(at: number, f: FieldDef, little: boolean): FitValue | undefined {
    if (f.bt === BT.string) {
      let end = at;
      while (end < at + f.size && this.buf[end] !== 0) end++;
      return end === at ? undefined : new TextDecoder().decode(this.buf.subarray(at, end));
    }
    const elem = BASE_TYPE_SIZE[f.bt as 0];
    if (f.size === elem) return readElement(this.view, at, f.bt, little);
    const values: number[] = [];
    for (let q = at; q + elem <= at + f.size; q += elem) {
      const v = readElement(this.view, q, f.bt, little);
      if (v !== undefined) values.push(v);
    }
    return values.length > 0 ? values : undefined;
  }
}
