// A tiny zip writer for tests, able to write the hostile archives the reader must refuse: lying sizes,
// symlinks, unsafe names, entries sharing their data.
import zlib from "node:zlib";
import { updateCrc32 } from "../src/index.ts";

export type TestZipEntry = {
  name: string;
  data?: Uint8Array;
  /** Already-deflated data (with `uncompressedSize` and `crc32` then required). */
  deflated?: Uint8Array;
  uncompressedSize?: number;
  crc32?: number;
  method?: 0 | 8;
  /** Overrides the size written to the headers (a lie). */
  declaredSize?: number;
  symlink?: boolean;
  /** Point the central record at the local header of entry N (an overlapping bomb). */
  sameDataAs?: number;
};

/** Builds a zip; `zip64` writes every size and offset in zip64 form (as exports over 4 GB need). */
export function buildZip(entries: TestZipEntry[], options: { zip64?: boolean } = {}): Uint8Array {
  const z64 = options.zip64 === true;
  const enc = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  const offsets: number[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = enc.encode(e.name);
    const method = e.method ?? 8;
    const raw = e.data ?? new Uint8Array(0);
    const body = e.deflated ?? (method === 8 ? new Uint8Array(zlib.deflateRawSync(raw)) : raw);
    const size = e.declaredSize ?? e.uncompressedSize ?? raw.length;
    const crc = e.crc32 ?? updateCrc32(0, raw);
    const local = new Uint8Array(30 + name.length + body.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(6, 0x800, true);
    lv.setUint16(8, method, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, body.length, true);
    lv.setUint32(22, size, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    local.set(body, 30 + name.length);
    const at = e.sameDataAs === undefined ? offset : (offsets[e.sameDataAs] as number);
    offsets.push(offset);
    if (e.sameDataAs === undefined) {
      locals.push(local);
      offset += local.length;
    }
    const extra = z64 ? 28 : 0;
    const central = new Uint8Array(46 + name.length + extra);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, (3 << 8) | 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, 0x800, true);
    cv.setUint16(10, method, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, z64 ? 0xffffffff : body.length, true);
    cv.setUint32(24, z64 ? 0xffffffff : size, true);
    cv.setUint16(28, name.length, true);
    cv.setUint16(30, extra, true);
    cv.setUint32(38, ((e.symlink ? 0o120777 : 0o100644) << 16) >>> 0, true);
    cv.setUint32(42, z64 ? 0xffffffff : at, true);
    central.set(name, 46);
    if (z64) {
      // zip64 extended information: uncompressed size, compressed size, local header offset
      const x = 46 + name.length;
      cv.setUint16(x, 0x0001, true);
      cv.setUint16(x + 2, 24, true);
      cv.setBigUint64(x + 4, BigInt(size), true);
      cv.setBigUint64(x + 12, BigInt(body.length), true);
      cv.setBigUint64(x + 20, BigInt(at), true);
    }
    centrals.push(central);
  }
  const cdSize = centrals.reduce((a, c) => a + c.length, 0);
  const tail: Uint8Array[] = [];
  if (z64) {
    const rec = new Uint8Array(56 + 20);
    const rv = new DataView(rec.buffer);
    rv.setUint32(0, 0x06064b50, true);
    rv.setBigUint64(4, 44n, true);
    rv.setUint16(12, (3 << 8) | 45, true);
    rv.setUint16(14, 45, true);
    rv.setBigUint64(24, BigInt(entries.length), true);
    rv.setBigUint64(32, BigInt(entries.length), true);
    rv.setBigUint64(40, BigInt(cdSize), true);
    rv.setBigUint64(48, BigInt(offset), true);
    // locator: where the zip64 record starts
    rv.setUint32(56, 0x07064b50, true);
    rv.setBigUint64(56 + 8, BigInt(offset + cdSize), true);
    rv.setUint32(56 + 16, 1, true);
    tail.push(rec);
  }
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, z64 ? 0xffff : Math.min(entries.length, 0xffff), true);
  ev.setUint16(10, z64 ? 0xffff : Math.min(entries.length, 0xffff), true);
  ev.setUint32(12, z64 ? 0xffffffff : cdSize, true);
  ev.setUint32(16, z64 ? 0xffffffff : offset, true);
  tail.push(end);
  const out = new Uint8Array(offset + cdSize + tail.reduce((a, t) => a + t.length, 0));
  let p = 0;
  for (const part of [...locals, ...centrals, ...tail]) {
    out.set(part, p);
    p += part.length;
  }
  return out;
}

/**
 * Deflates `totalBytes` of zeros without holding them (about 1 KB of output per MB). The CRC is only
 * computed when asked: a bomb is aborted long before anyone could check it.
 */
export function deflatedZeros(totalBytes: number, withCrc = false): { deflated: Uint8Array; crc32: number } {
  const block = new Uint8Array(1 << 20);
  const parts: Buffer[] = [];
  let crc = 0;
  // Independent sync-flushed raw deflate pieces concatenate into one valid stream (no back-references
  // cross them), so memory stays at one block.
  for (let done = 0; done < totalBytes; done += block.length) {
    const piece = block.subarray(0, Math.min(block.length, totalBytes - done));
    if (withCrc) crc = updateCrc32(crc, piece);
    parts.push(zlib.deflateRawSync(piece, { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH }));
  }
  parts.push(zlib.deflateRawSync(new Uint8Array(0)));
  return { deflated: new Uint8Array(Buffer.concat(parts)), crc32: crc };
}
