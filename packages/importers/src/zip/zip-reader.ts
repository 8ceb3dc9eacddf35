// A defensive zip reader (PKWARE APPNOTE: end of central directory, zip64, central directory, local
// headers; stored and deflate entries). It reads the central directory over a random-access source and
// refuses the whole archive when anything about it is hostile: unsafe or symlink entries, too many
// entries, overlapping entries, encrypted or exotic compression. Entry data is inflated as a stream
// with the web-standard DecompressionStream, aborting as soon as the inflated bytes pass the caps.
import { ImportInputError } from "../errors.ts";
import type { RejectReason } from "../types.ts";
import { updateCrc32 } from "./crc32.ts";

/** Reads byte ranges of an archive (a file handle, a buffer, an object-store range reader). */
export type RandomAccessSource = {
  /** Total size in bytes. */
  size: number;
  /** Resolves with exactly `length` bytes at `offset` (fewer only at the end of the source). */
  read(offset: number, length: number): Promise<Uint8Array>;
};

/** One file in the archive, from its central-directory record. */
export type ZipEntry = {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  /** 0 stored, 8 deflate. */
  method: number;
  crc32: number;
  /** Offset of the local file header. */
  localHeaderOffset: number;
  isDirectory: boolean;
};

/** Limits that keep a zip bomb from costing more than a normal archive. */
export type ZipLimits = {
  /** Entries in the central directory (U4: 10,000). */
  maxEntries: number;
  /** Sum of uncompressed bytes read from the archive, declared and actual. */
  maxTotalUncompressedBytes: number;
  /** Uncompressed / compressed, checked on the declared sizes and again while inflating. */
  maxRatio: number;
};

/** Defaults: 10,000 entries, 16 GiB unpacked (the largest Apple Health exports are a few GB), ratio 200. */
export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 10_000,
  maxTotalUncompressedBytes: 16 * 1024 ** 3,
  maxRatio: 200,
};

/** Below this many inflated bytes the ratio is not judged (tiny entries compress absurdly well). */
const RATIO_GRACE_BYTES = 1 << 20;
const READ_CHUNK = 256 * 1024;

function bad(reason: RejectReason, detail: string, offset?: number): ImportInputError {
  return new ImportInputError(offset === undefined ? { reason, detail } : { reason, detail, offset });
}

/** True for a relative path without `..`, drive letters, backslashes or NUL: safe to name a file by. */
export function isSafeZipPath(name: string): boolean {
  if (name.length === 0 || name.includes("\\") || name.includes("\0")) return false;
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return false;
  return !name.split("/").some((part) => part === "..");
}

/** An archive whose central directory was read and found safe. */
export type ZipArchive = { entries: ZipEntry[]; source: RandomAccessSource; limits: ZipLimits };

/**
 * Reads and checks the central directory of `source`. Throws {@link ImportInputError} (`zip_invalid`,
 * `zip_unsafe_path`, `zip_too_many_entries`, `zip_too_large`, `zip_ratio_exceeded`, `zip_unsupported`)
 * when the archive is not one Tonus will open; nothing is inflated before these checks pass.
 */
export async function openZip(
  source: RandomAccessSource,
  limits: Partial<ZipLimits> = {},
): Promise<ZipArchive> {
  const lim = { ...DEFAULT_ZIP_LIMITS, ...limits };
  const { cdOffset, cdSize, count } = await readEnd(source);
  if (count > lim.maxEntries) throw bad("zip_too_many_entries", `${count} entries`);
  if (cdOffset + cdSize > source.size) throw bad("zip_invalid", "central directory outside the file");
  const cd = await source.read(cdOffset, cdSize);
  const entries = parseCentralDirectory(cd, count, cdOffset);
  checkEntries(entries, lim, cdOffset);
  return { entries, source, limits: lim };
}

async function readEnd(
  source: RandomAccessSource,
): Promise<{ cdOffset: number; cdSize: number; count: number }> {
  if (source.size < 22) throw bad("zip_invalid", "too small for a zip");
  const tailSize = Math.min(source.size, 22 + 0xffff);
  const tailStart = source.size - tailSize;
  const tail = await source.read(tailStart, tailSize);
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw bad("zip_invalid", "no end of central directory");
  let count = view.getUint16(eocd + 10, true);
  let cdSize = view.getUint32(eocd + 12, true);
  let cdOffset = view.getUint32(eocd + 16, true);
  // zip64: the locator sits right before the classic record and points at the zip64 record.
  if (eocd >= 20 && view.getUint32(eocd - 20, true) === 0x07064b50) {
    const at = Number(view.getBigUint64(eocd - 20 + 8, true));
    if (at + 56 > source.size) throw bad("zip_invalid", "zip64 record outside the file");
    const rec = await source.read(at, 56);
    const v = new DataView(rec.buffer, rec.byteOffset, rec.byteLength);
    if (v.getUint32(0, true) !== 0x06064b50) throw bad("zip_invalid", "bad zip64 record");
    count = Number(v.getBigUint64(32, true));
    cdSize = Number(v.getBigUint64(40, true));
    cdOffset = Number(v.getBigUint64(48, true));
  }
  return { cdOffset, cdSize, count };
}

function parseCentralDirectory(cd: Uint8Array, count: number, cdOffset: number): ZipEntry[] {
  const view = new DataView(cd.buffer, cd.byteOffset, cd.byteLength);
  const utf8 = new TextDecoder("utf-8");
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > cd.length || view.getUint32(p, true) !== 0x02014b50) {
      throw bad("zip_invalid", `central directory entry ${i}`, cdOffset + p);
    }
    const madeBy = view.getUint16(p + 4, true) >> 8;
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    const crc32 = view.getUint32(p + 16, true);
    let compressedSize = view.getUint32(p + 20, true);
    let uncompressedSize = view.getUint32(p + 24, true);
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    const externalAttrs = view.getUint32(p + 38, true);
    let localHeaderOffset = view.getUint32(p + 42, true);
    if (p + 46 + nameLen + extraLen + commentLen > cd.length)
      throw bad("zip_invalid", "truncated central directory");
    const name = utf8.decode(cd.subarray(p + 46, p + 46 + nameLen));
    // zip64 extended information: the 0xFFFFFFFF fields, in order, are in extra block 0x0001.
    let e = p + 46 + nameLen;
    const extraEnd = e + extraLen;
    while (e + 4 <= extraEnd) {
      const id = view.getUint16(e, true);
      const size = view.getUint16(e + 2, true);
      if (id === 0x0001) {
        let q = e + 4;
        const next = () => {
          if (q + 8 > e + 4 + size) throw bad("zip_invalid", `zip64 extra of ${name}`);
          const v = Number(view.getBigUint64(q, true));
          q += 8;
          return v;
        };
        if (uncompressedSize === 0xffffffff) uncompressedSize = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (localHeaderOffset === 0xffffffff) localHeaderOffset = next();
      }
      e += 4 + size;
    }
    if (flags & 0x1) throw bad("zip_unsupported", `encrypted entry ${name}`);
    if (!isSafeZipPath(name)) throw bad("zip_unsafe_path", name);
    // Unix mode in the high 16 bits of the external attributes: S_IFLNK entries are symlinks.
    if (madeBy === 3 && ((externalAttrs >>> 16) & 0o170000) === 0o120000) {
      throw bad("zip_unsafe_path", `symlink ${name}`);
    }
    const isDirectory = name.endsWith("/");
    if (!isDirectory && method !== 0 && method !== 8)
      throw bad("zip_unsupported", `method ${method} in ${name}`);
    entries.push({ name, compressedSize, uncompressedSize, method, crc32, localHeaderOffset, isDirectory });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

function checkEntries(entries: ZipEntry[], lim: ZipLimits, cdOffset: number): void {
  let total = 0;
  for (const e of entries) {
    total += e.uncompressedSize;
    if (
      e.uncompressedSize > RATIO_GRACE_BYTES &&
      e.uncompressedSize > lim.maxRatio * Math.max(1, e.compressedSize)
    ) {
      throw bad("zip_ratio_exceeded", `${e.name} declares ratio > ${lim.maxRatio}`);
    }
    if (e.method === 0 && e.compressedSize !== e.uncompressedSize)
      throw bad("zip_invalid", `stored sizes of ${e.name}`);
  }
  if (total > lim.maxTotalUncompressedBytes) throw bad("zip_too_large", `${total} bytes declared`);
  // Entries must not share bytes: overlapping local data is the classic way to make a small zip huge.
  const sorted = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 0; i < sorted.length; i++) {
    const e = sorted[i] as ZipEntry;
    const end = e.localHeaderOffset + 30 + new TextEncoder().encode(e.name).length + e.compressedSize;
    const next = sorted[i + 1]?.localHeaderOffset ?? cdOffset;
    if (end > next) throw bad("zip_invalid", `entry ${e.name} overlaps the next one`);
  }
}

/** Finds the entry named exactly `name`, or by a predicate. */
export function findZipEntry(
  zip: ZipArchive,
  match: string | ((e: ZipEntry) => boolean),
): ZipEntry | undefined {
  return zip.entries.find((e) => !e.isDirectory && (typeof match === "string" ? e.name === match : match(e)));
}

/** Progress of one entry read: compressed bytes consumed. */
export type ZipReadProgress = { compressedBytes: number };

/**
 * Streams the uncompressed bytes of `entry`. Throws {@link ImportInputError} while streaming when the
 * data is corrupt, the inflated size passes the declared size, the total cap or the ratio cap
 * (`zip_ratio_exceeded`), or the CRC-32 does not match.
 */
export async function* readZipEntry(
  zip: ZipArchive,
  entry: ZipEntry,
  progress: ZipReadProgress = { compressedBytes: 0 },
): AsyncGenerator<Uint8Array, void, undefined> {
  const { source, limits } = zip;
  const head = await source.read(entry.localHeaderOffset, 30);
  const hv = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (head.length < 30 || hv.getUint32(0, true) !== 0x04034b50) {
    throw bad("zip_invalid", `local header of ${entry.name}`, entry.localHeaderOffset);
  }
  const dataStart = entry.localHeaderOffset + 30 + hv.getUint16(26, true) + hv.getUint16(28, true);
  const dataEnd = dataStart + entry.compressedSize;
  if (dataEnd > source.size) throw bad("zip_invalid", `data of ${entry.name} outside the file`);

  async function* compressed(): AsyncGenerator<Uint8Array> {
    for (let at = dataStart; at < dataEnd; at += READ_CHUNK) {
      const chunk = await source.read(at, Math.min(READ_CHUNK, dataEnd - at));
      if (chunk.length === 0) throw bad("zip_invalid", "source ended early");
      progress.compressedBytes += chunk.length;
      yield chunk;
    }
  }

  const cap = Math.min(entry.uncompressedSize, limits.maxTotalUncompressedBytes);
  let inflated = 0;
  let crc = 0;
  const check = (chunk: Uint8Array) => {
    inflated += chunk.length;
    if (inflated > cap) {
      throw bad(
        inflated > entry.uncompressedSize ? "zip_invalid" : "zip_too_large",
        `${entry.name} inflates past its declared size`,
      );
    }
    if (inflated > RATIO_GRACE_BYTES && inflated > limits.maxRatio * Math.max(1, progress.compressedBytes)) {
      throw bad("zip_ratio_exceeded", `${entry.name} inflates more than ${limits.maxRatio}x`);
    }
    crc = updateCrc32(crc, chunk);
  };

  if (entry.method === 0) {
    for await (const chunk of compressed()) {
      check(chunk);
      yield chunk;
    }
  } else {
    const inflater = new DecompressionStream("deflate-raw");
    const stream = ReadableStream.from(compressed()).pipeThrough(inflater);
    const reader = stream.getReader();
    try {
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (e) {
          if (e instanceof ImportInputError) throw e;
          throw bad("zip_invalid", `corrupt deflate data in ${entry.name}`);
        }
        if (next.done) break;
        check(next.value);
        yield next.value;
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
  if (inflated !== entry.uncompressedSize) throw bad("zip_invalid", `${entry.name} is not its declared size`);
  if (crc !== entry.crc32) throw bad("zip_invalid", `crc-32 of ${entry.name}`);
}

/** A {@link RandomAccessSource} over bytes already in memory (tests, small uploads). */
export function bytesSource(bytes: Uint8Array): RandomAccessSource {
  return {
    size: bytes.length,
    read: async (offset, length) => bytes.subarray(offset, Math.min(bytes.length, offset + length)),
  };
}
