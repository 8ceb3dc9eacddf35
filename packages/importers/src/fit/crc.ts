// The FIT protocol's file and header check is CRC-16 with the reflected polynomial 0xA001 and a zero start
// (the protocol document gives it as a nibble table); a byte table computes the same value faster.
const TABLE = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xa001 : c >>> 1;
  TABLE[i] = c;
}

/** Continues FIT CRC-16 `crc` over `bytes[from, to)`; start with 0. */
export function updateFitCrc(crc: number, bytes: Uint8Array, from = 0, to = bytes.length): number {
  let c = crc;
  for (let i = from; i < to; i++) c = (c >>> 8) ^ (TABLE[(c ^ (bytes[i] as number)) & 0xff] as number);
  return c;
}
