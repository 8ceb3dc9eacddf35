import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** A URL-safe random token with `bytes` bytes of entropy (ASVS 7.2.3: ≥ 16 bytes). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("base64url");
}

export function hmac(key: string, value: string): string {
  return createHmac("sha256", key).update(value).digest("base64url");
}

export function hmacHex(key: string, value: string): string {
  return createHmac("sha256", key).update(value).digest("hex");
}

/** Compares two strings in time independent of where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** A stable uuid-shaped pseudonym for `id`, keyed with `key`: linkable across rows, not reversible. */
export function pseudonymUuid(key: string, id: string): string {
  const hex = createHmac("sha256", key).update(`pseudonym:${id}`).digest("hex");
  const variant = ((Number.parseInt(hex[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
