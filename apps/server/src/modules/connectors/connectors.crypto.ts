import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";

/**
 * Connector secrets at rest: AES-256-GCM with a key derived from SECRET_KEY by HKDF-SHA-256 (its own
 * `info`, so this key is used for nothing else). Each value is bound to where it is stored (`context`,
 * e.g. the connection id and the token's kind) as additional authenticated data: a ciphertext copied to
 * another row or column does not decrypt.
 */
const VERSION = "v1";
const INFO = "tonus/connector-tokens/v1";

export type SecretBox = {
  seal: (plain: string, context: string) => string;
  /** The plain text, or null when the value was altered, sealed for another context or with another key. */
  open: (sealed: string, context: string) => string | null;
};

export function createSecretBox(secretKey: string): SecretBox {
  if (secretKey.length < 32) throw new Error("SECRET_KEY is too short to derive the connector key");
  const key = Buffer.from(hkdfSync("sha256", secretKey, "", INFO, 32));
  return {
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${iv.toString("base64url")}.${body.toString("base64url")}`;
    },
    open(sealed, context) {
      const [version, ivText, bodyText] = sealed.split(".");
      if (version !== VERSION || !ivText || !bodyText) return null;
      try {
        const iv = Buffer.from(ivText, "base64url");
        const body = Buffer.from(bodyText, "base64url");
        if (iv.length !== 12 || body.length < 16) return null;
        const decipher = createDecipheriv("aes-256-gcm", key, iv);
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(body.subarray(body.length - 16));
        return Buffer.concat([
          decipher.update(body.subarray(0, body.length - 16)),
          decipher.final(),
        ]).toString("utf8");
      } catch {
        return null;
      }
    },
  };
}

/** Tonus's namespace for connector-derived ids (a random UUID fixed once). */
const NAMESPACE = "8f6b1d2e-4c3a-4e57-9b1f-2d7c5a9e0b43";

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of namespace and name): the same provider record always
 * gives the same id, so a reading created from it twice is created once (blood pressure's client id).
 */
export function uuidFromName(name: string): string {
  const ns = Buffer.from(NAMESPACE.replaceAll("-", ""), "hex");
  const hash = createHash("sha1").update(ns).update(name, "utf8").digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
