// A small FIT writer for tests: definition and data messages in little-endian order, a 14-byte header
// and the file CRC, as the FIT protocol document lays them out. It writes only what the tests need (no
// compressed timestamps, no developer fields) and re-defines a local type whenever a message's layout
// changes, as device files do.
import { FIT_EPOCH_S, updateFitCrc } from "../src/index.ts";

/** FIT base types by name: [base type byte, size of one value]. */
const BASE = {
  enum: [0x00, 1],
  uint8: [0x02, 1],
  sint16: [0x83, 2],
  uint16: [0x84, 2],
  sint32: [0x85, 4],
  uint32: [0x86, 4],
  uint32z: [0x8c, 4],
} as const;

export type FitFieldType = keyof typeof BASE;
export type FitField = { num: number; type: FitFieldType; value: number | readonly number[] };

/** Seconds since the FIT epoch (1989-12-31) for a Unix time in ms. */
export const fitTime = (unixMs: number) => Math.floor(unixMs / 1000) - FIT_EPOCH_S;

export class FitWriter {
  private buf = new Uint8Array(1 << 16);
  private length = 0;
  private readonly layouts = new Map<number, string>();
  private readonly locals = new Map<number, number>();

  private ensure(extra: number) {
    if (this.length + extra <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + extra));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  private byte(b: number) {
    this.buf[this.length++] = b & 0xff;
  }

  private value(type: FitFieldType, v: number) {
    const size = BASE[type][1];
    for (let i = 0; i < size; i++) this.byte(Math.floor(v / 2 ** (8 * i)));
  }

  /** Writes one data message of `global` (a definition first when its layout is new). */
  message(global: number, fields: readonly FitField[]): this {
    const layout = `${global}:${fields.map((f) => `${f.num}/${f.type}/${Array.isArray(f.value) ? f.value.length : 1}`).join(",")}`;
    let local = this.locals.get(global);
    this.ensure(
      6 +
        fields.length * 3 +
        fields.reduce((n, f) => n + 4 * (Array.isArray(f.value) ? f.value.length : 1), 1),
    );
    if (local === undefined || this.layouts.get(local) !== layout) {
      local = local ?? this.locals.size % 16;
      this.locals.set(global, local);
      this.layouts.set(local, layout);
      this.byte(0x40 | local);
      this.byte(0);
      this.byte(0); // little-endian
      this.byte(global & 0xff);
      this.byte(global >> 8);
      this.byte(fields.length);
      for (const f of fields) {
        const count = Array.isArray(f.value) ? f.value.length : 1;
        this.byte(f.num);
        this.byte(BASE[f.type][1] * count);
        this.byte(BASE[f.type][0]);
      }
    }
    this.byte(local);
    for (const f of fields) {
      const values: readonly number[] = Array.isArray(f.value) ? f.value : [f.value as number];
      for (const v of values) this.value(f.type, v);
    }
    return this;
  }

  /** The whole file: header with the data size, the messages, and the CRC over both. */
  finish(): Uint8Array {
    const out = new Uint8Array(14 + this.length + 2);
    out.set([14, 0x20, 0x08, 0x08], 0);
    new DataView(out.buffer).setUint32(4, this.length, true);
    out.set([0x2e, 0x46, 0x49, 0x54], 8);
    const headerCrc = updateFitCrc(0, out, 0, 12);
    out[12] = headerCrc & 0xff;
    out[13] = headerCrc >> 8;
    out.set(this.buf.subarray(0, this.length), 14);
    const crc = updateFitCrc(0, out, 0, 14 + this.length);
    out[14 + this.length] = crc & 0xff;
    out[15 + this.length] = crc >> 8;
    return out;
  }
}

/** A `file_id` message: type 4 (activity) unless given, a serial number and the creation time. */
export function fileId(w: FitWriter, serial: number, createdMs: number, type = 4): FitWriter {
  return w.message(0, [
    { num: 0, type: "enum", value: type },
    { num: 3, type: "uint32z", value: serial },
    { num: 4, type: "uint32", value: fitTime(createdMs) },
  ]);
}

/**
 * A long activity: `records` heart-rate `record` messages a second apart from `startMs`, `beats` beat
 * intervals in `hrv` messages (five a message) and a running `session` over it all.
 */
export function activityFit(opts: { startMs: number; records: number; beats: number; serial?: number }) {
  const w = fileId(new FitWriter(), opts.serial ?? 3_000_123, opts.startMs);
  for (let i = 0; i < opts.records; i++) {
    w.message(20, [
      { num: 253, type: "uint32", value: fitTime(opts.startMs) + i },
      { num: 3, type: "uint8", value: 60 + ((i * 7) % 90) },
    ]);
  }
  for (let i = 0; i < opts.beats; i += 5) {
    const times = Array.from({ length: Math.min(5, opts.beats - i) }, (_, k) => 800 + ((i + k) % 40) * 5);
    w.message(78, [{ num: 0, type: "uint16", value: times }]);
  }
  w.message(18, [
    { num: 253, type: "uint32", value: fitTime(opts.startMs) + opts.records },
    { num: 2, type: "uint32", value: fitTime(opts.startMs) },
    { num: 5, type: "enum", value: 1 },
    { num: 7, type: "uint32", value: opts.records * 1000 },
    { num: 9, type: "uint32", value: opts.records * 300 },
    { num: 11, type: "uint16", value: Math.round(opts.records / 6) },
  ]);
  return w.finish();
}
