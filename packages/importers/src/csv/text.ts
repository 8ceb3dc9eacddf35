// Bytes → text for the text formats (CSV, Fitbit JSON): a byte-order mark picks UTF-8 or UTF-16; without
// one the text must be valid UTF-8 unless the caller names the encoding (windows-1251 from a Russian
// Excel, say). Invalid UTF-8 is not guessed at: the import ends with `not_utf8` and where it was found.
import { decodeSlices } from "../chunks.ts";
import { ImportInputError } from "../errors.ts";

/** Options for {@link decodeText}. */
export type TextOptions = {
  /** A WHATWG encoding label (`utf-8`, `utf-16le`, `windows-1251`, …); default: by BOM, else UTF-8. */
  encoding?: string;
};

/** The encoding a text's first bytes show (a BOM, UTF-16's zero bytes), else UTF-8; `skip`: the BOM's length. */
export function detectEncoding(first: Uint8Array): { encoding: string; skip: number } {
  if (first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf) return { encoding: "utf-8", skip: 3 };
  if (first[0] === 0xff && first[1] === 0xfe) return { encoding: "utf-16le", skip: 2 };
  if (first[0] === 0xfe && first[1] === 0xff) return { encoding: "utf-16be", skip: 2 };
  // UTF-16 without a BOM: ASCII text then has a zero in every other byte.
  const n = Math.min(first.length, 512) & ~1;
  if (n >= 8) {
    let zerosOdd = 0;
    let zerosEven = 0;
    for (let i = 0; i < n; i += 2) {
      if (first[i] === 0) zerosEven++;
      if (first[i + 1] === 0) zerosOdd++;
    }
    if (zerosOdd > n / 2 - 2 && zerosEven === 0) return { encoding: "utf-16le", skip: 0 };
    if (zerosEven > n / 2 - 2 && zerosOdd === 0) return { encoding: "utf-16be", skip: 0 };
  }
  return { encoding: "utf-8", skip: 0 };
}

/**
 * Decodes chunks to text chunks. Throws {@link ImportInputError} `not_utf8` (with the byte offset)
 * when the input is not valid in the detected encoding, or `unknown_format` for an encoding label the
 * runtime does not know.
 */
export async function* decodeText(
  input: AsyncIterable<Uint8Array>,
  options: TextOptions = {},
  progress: { bytes: number } = { bytes: 0 },
): AsyncGenerator<string, void, undefined> {
  let decoder: InstanceType<typeof TextDecoder> | undefined;
  let encoding = options.encoding;
  for await (const raw of input) {
    let chunk = raw;
    if (!decoder) {
      if (chunk.length === 0) continue;
      const found = detectEncoding(chunk);
      if (!encoding || (found.skip > 0 && /^utf-?(8|16)/i.test(encoding))) {
        encoding = found.encoding;
        chunk = chunk.subarray(found.skip);
        progress.bytes += found.skip;
      }
      try {
        decoder = new TextDecoder(encoding, { fatal: true });
      } catch {
        throw new ImportInputError({ reason: "unknown_format", detail: `encoding ${encoding}` });
      }
    }
    const texts: string[] = [];
    try {
      for (const text of decodeSlices(decoder, chunk)) if (text.length > 0) texts.push(text);
    } catch {
      const at = encoding === "utf-8" ? firstInvalidUtf8(chunk) : 0;
      throw new ImportInputError({
        reason: "not_utf8",
        offset: progress.bytes + at,
        detail: `not valid ${encoding}`,
      });
    }
    progress.bytes += chunk.length;
    yield* texts;
  }
  if (decoder) {
    let tail: string;
    try {
      tail = decoder.decode();
    } catch {
      throw new ImportInputError({
        reason: "not_utf8",
        offset: progress.bytes,
        detail: `ends inside a character`,
      });
    }
    if (tail.length > 0) yield tail;
  }
}

/** Index of the first byte that does not start or continue a valid UTF-8 sequence (0 if none found). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const len =
      b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (len === 0) return i;
    for (let k = 1; k < len; k++) {
      // a sequence cut by the chunk's end is judged with the next chunk
      if (i + k >= bytes.length) return 0;
      if (((bytes[i + k] as number) & 0xc0) !== 0x80) return i;
    }
    i += len;
  }
  return 0;
}
