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
