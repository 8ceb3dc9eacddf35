// CRC-32 (IEEE 802.3, reflected 0xEDB88320) as zip stores it for every entry.
const TABLE = new Int32Array(256);
for (let i = 0; i < 256; i++) {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  TABLE[i] = c;
}

/** Continues CRC-32 `crc` (start with 0) over `bytes`; returns it as an unsigned 32-bit number. */
export function updateCrc32(crc: number, bytes: Uint8Array): number {
  let c = ~crc;
  for (let i = 0; i < bytes.length; i++) c = (c >>> 8) ^ (TABLE[(c ^ (bytes[i] as number)) & 0xff] as number);
  return ~c >>> 0;
}
