/**
 * Bytes decoded into one string at a time. V8 allocates a string over 128 KB outside its young
 * generation, and text decoded from the file reader's 256 KB chunks scanned far slower: an Apple
 * Health export at 63 MB/s instead of 177 MB/s. Slices of 32 KB give strings of at most 64 KB.
 */
export const DECODE_SLICE_BYTES = 32 * 1024;

/** `chunk` decoded by a streaming `decoder`, slice by slice (see DECODE_SLICE_BYTES). */
export function* decodeSlices(
  decoder: InstanceType<typeof TextDecoder>,
  chunk: Uint8Array,
): Generator<string> {
  for (let i = 0; i < chunk.length; i += DECODE_SLICE_BYTES)
    yield decoder.decode(chunk.subarray(i, i + DECODE_SLICE_BYTES), { stream: true });
}

/** Yields `bytes` in slices of `chunkSize` (tests, and callers that already hold a small file). */
export async function* chunksOf(bytes: Uint8Array, chunkSize = 64 * 1024): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += chunkSize)
    yield bytes.subarray(i, Math.min(bytes.length, i + chunkSize));
}

/** Drains an import session's records into an array (tests and small files only). */
export async function collect<T>(records: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of records) out.push(r);
  return out;
}

/** Reads at least `bytes` (or all) of `input`, and returns them with an iterable replaying everything. */
export async function peek(
  input: AsyncIterable<Uint8Array>,
  bytes: number,
): Promise<{ head: Uint8Array; replay: AsyncIterable<Uint8Array> }> {
  const it = input[Symbol.asyncIterator]();
  const buffered: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  while (size < bytes) {
    const next = await it.next();
    if (next.done) {
      ended = true;
      break;
    }
    buffered.push(next.value);
    size += next.value.length;
  }
  const head = new Uint8Array(size);
  let p = 0;
  for (const b of buffered) {
    head.set(b, p);
    p += b.length;
  }
  async function* replay(): AsyncGenerator<Uint8Array> {
    yield* buffered;
    if (ended) return;
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head: head.subarray(0, Math.min(size, bytes)), replay: replay() };
}
