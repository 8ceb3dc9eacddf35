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

export function buildZip(entries: TestZipEntry[]): Uint8Array {
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
    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, (3 << 8) | 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, 0x800, true);
    cv.setUint16(10, method, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, body.length, true);
    cv.setUint32(24, size, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(38, ((e.symlink ? 0o120777 : 0o100644) << 16) >>> 0, true);
    cv.setUint32(42, at, true);
    central.set(name, 46);
    centrals.push(central);
  }
  const cdSize = centrals.reduce((a, c) => a + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, Math.min(entries.length, 0xffff), true);
  ev.setUint16(10, Math.min(entries.length, 0xffff), true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + cdSize + 22);
  let p = 0;
  for (const part of [...locals, ...centrals, end]) {
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
